// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// Public addresses used by the control-plane sample; tests rewrite them to local repositories.
const (
	sampleOrg          = fixtures.SampleOrg
	sampleControlPlane = fixtures.SampleControlPlaneURL
	sampleSvcSrc       = fixtures.SampleSvcSrcURL
)

// sampleRepos creates, below one root, the sample's control-plane repository and its services source repository.
func sampleRepos(t *testing.T) (root, controlPlane, svcSrc string) {
	t.Helper()
	root = t.TempDir()
	return root, fixtures.ControlPlaneRepo(t, root), fixtures.SvcSrcRepo(t, root)
}

// renderBlocks renders env from main + env through the data source and the function, and outputs both.
func renderBlocks(env string) string {
	return fmt.Sprintf(`
locals {
  manifests = concat(data.kalypso_control_plane.main.manifests, data.kalypso_control_plane.env.manifests)
}

data "kalypso_environment_render" "this" {
  environment = %[1]q
  manifests   = local.manifests
}

output "data_source_files" {
  value = data.kalypso_environment_render.this.files
}

output "function_files" {
  value = provider::kalypso::environment_render(%[1]q, local.manifests).files
}

output "promoted_commit_id" {
  value = data.kalypso_environment_render.this.promoted_commit_id
}
`, env)
}

func renderChecks(t *testing.T, env string) []statecheck.StateCheck {
	want, promoted := fixtures.ControlPlaneExpected(t, env)
	return []statecheck.StateCheck{
		statecheck.ExpectKnownOutputValue("data_source_files", filesCheck(want)),
		statecheck.ExpectKnownOutputValue("function_files", filesCheck(want)),
		statecheck.ExpectKnownOutputValue("promoted_commit_id", knownvalue.StringExact(promoted)),
		statecheck.ExpectKnownValue("data.kalypso_control_plane.env", tfjsonpath.New("base_repo_commit"), knownvalue.StringExact(promoted)),
		statecheck.ExpectKnownValue("data.kalypso_control_plane.env", tfjsonpath.New("gitops_repo"), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"repo":   knownvalue.StringExact("https://github.com/microsoft/kalypso-gitops"),
			"branch": knownvalue.StringExact(env),
			"path":   knownvalue.StringExact("."),
		})),
		statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("templates"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.StringExact("arc-flux"), knownvalue.StringExact("argocd"), knownvalue.StringExact("configmap"), knownvalue.StringExact("default"),
		})),
		statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("workload_registrations"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("platform-svc")})),
		statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("workloads"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("observability")})),
		// .sourceignore hides .github/ and .environments/: nothing is read there, so nothing is skipped.
		statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("skipped"), knownvalue.ListSizeExact(0)),
	}
}

func TestAccControlPlaneDataSource_sampleDirModeMatchesUpstream(t *testing.T) {
	t.Parallel()
	_, _, svcSrc := sampleRepos(t)
	for _, env := range []string{"dev", "stage"} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			config := fmt.Sprintf(`
provider "kalypso" {
  git_url_rewrites = {
    %[1]q = %[2]q
  }
}

data "kalypso_control_plane" "main" {
  dir               = %[3]q
  resolve_workloads = true
}

data "kalypso_control_plane" "env" {
  dir = %[4]q
}
`, sampleSvcSrc, "file://"+svcSrc, fixtures.ControlPlane("control-plane-main"), fixtures.ControlPlane("control-plane-"+env)) + renderBlocks(env)
			checks := append(renderChecks(t, env),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.env", tfjsonpath.New("commit"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("workload_commits"), knownvalue.MapExact(map[string]knownvalue.Check{
					"platform-svc": knownvalue.StringExact(gitserver.Head(t, svcSrc, "main")),
				})),
			)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config:            config,
					ConfigStateChecks: checks,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
				}},
			})
		})
	}
}

func TestAccControlPlaneDataSource_sampleGitModeOverSmartHTTPMatchesUpstream(t *testing.T) {
	t.Parallel()
	root, controlPlane, svcSrc := sampleRepos(t)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for _, env := range []string{"dev", "stage"} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			// One rewrite sends both public repositories (the control plane and, through resolve_workloads,
			// the services source) to the local smart-HTTP server.
			config := fmt.Sprintf(`
provider "kalypso" {
  git_url_rewrites = {
    %[1]q = %[2]q
  }
  cache_dir = %[3]q
}

data "kalypso_control_plane" "main" {
  git = {
    repo   = %[4]q
    branch = "main"
  }
  resolve_workloads = true
}

data "kalypso_control_plane" "env" {
  git = {
    repo   = %[4]q
    branch = %[5]q
    path   = "."
  }
}
`, sampleOrg, srv.URL+"/", filepath.ToSlash(t.TempDir()), sampleControlPlane, env) + renderBlocks(env)
			checks := append(renderChecks(t, env),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("commit"), knownvalue.StringExact(gitserver.Head(t, controlPlane, "main"))),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.env", tfjsonpath.New("commit"), knownvalue.StringExact(gitserver.Head(t, controlPlane, env))),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("workload_commits"), knownvalue.MapExact(map[string]knownvalue.Check{
					"platform-svc": knownvalue.StringExact(gitserver.Head(t, svcSrc, "main")),
				})),
			)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config:            config,
					ConfigStateChecks: checks,
				}},
			})
		})
	}
}

func TestAccControlPlaneDataSource_summariesAndSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/cluster-type.yaml", cpClusterType("small")+"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")
	write("b/policy.yml", "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n  name: all\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector: {}\n")
	write("c/config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform\ndata:\n  A: b\n")
	write("c/schema.yaml", "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ConfigSchema\nmetadata:\n  name: schema\nspec:\n  schema: '{}'\n")
	write("README.yaml", "title: not an object\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("data \"kalypso_control_plane\" \"this\" {\n  dir = %q\n}\n", filepath.ToSlash(dir)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("cluster_types"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("small")})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("scheduling_policies"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("all")})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("configs"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("platform")})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("config_schemas"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("schema")})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("templates"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("base_repo_commit"), knownvalue.StringExact("")),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("gitops_repo"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("manifests"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact(cpClusterType("small")),
					knownvalue.StringRegexp(regexp.MustCompile(`^apiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy\n`)),
					knownvalue.StringRegexp(regexp.MustCompile(`^apiVersion: v1\nkind: ConfigMap\n`)),
					knownvalue.StringRegexp(regexp.MustCompile(`^apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ConfigSchema\n`)),
				})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.this", tfjsonpath.New("skipped"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("file README.yaml, document 0 (line 1): a YAML document that is not a Kubernetes object"),
					knownvalue.StringExact(`file a/cluster-type.yaml, document 1 (line 9): kind "Deployment" (apiVersion "apps/v1")`),
				})),
			},
		}},
	})
}

func cpClusterType(name string) string {
	return "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: " + name + "\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n"
}

func TestAccControlPlaneDataSource_diagnostics(t *testing.T) {
	t.Parallel()
	parseDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(parseDir, "cluster-types"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parseDir, "cluster-types", "broken.yaml"), []byte(cpClusterType("ok")+"---\nkind: ClusterType\nmetadata: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	dupRepo := gitserver.NewSeededRepo(t, "", "dup.git", "dev", map[string]string{
		"east/large.yaml": cpClusterType("large"),
		"west/large.yaml": cpClusterType("large"),
	})
	missing := "https://github.com/example/does-not-exist"
	missingLocal := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "nowhere.git"))

	cases := []struct {
		name, config, errorRe string
	}{
		{
			name:    "parse failure names file and document index",
			config:  fmt.Sprintf("data \"kalypso_control_plane\" \"this\" {\n  dir = %q\n}\n", filepath.ToSlash(parseDir)),
			errorRe: `Malformed YAML document[\s\S]*file cluster-types/broken.yaml, document 1 \(line 9\)`,
		},
		{
			name:    "duplicate names both files",
			config:  fmt.Sprintf("data \"kalypso_control_plane\" \"this\" {\n  git = {\n    repo   = %q\n    branch = \"dev\"\n  }\n}\n", "file://"+filepath.ToSlash(dupRepo)),
			errorRe: `Duplicate object[\s\S]*ClusterType "large" is defined twice: first at file east/large.yaml, document 0 \(line 1\), again at file west/large.yaml, document 0 \(line 1\)`,
		},
		{
			name: "unreachable repository is named",
			config: fmt.Sprintf("provider \"kalypso\" {\n  git_url_rewrites = {\n    %q = %q\n  }\n}\n\ndata \"kalypso_control_plane\" \"this\" {\n  git = {\n    repo   = %q\n    branch = \"main\"\n  }\n}\n",
				missing, missingLocal, missing),
			errorRe: `Cannot read control-plane repository[\s\S]*` + regexp.QuoteMeta(missing) + `[\s\S]*repository not found`,
		},
		{
			name:    "dir and git are exclusive",
			config:  fmt.Sprintf("data \"kalypso_control_plane\" \"this\" {\n  dir = %q\n  git = {\n    repo   = \"file:///x\"\n    branch = \"main\"\n  }\n}\n", filepath.ToSlash(parseDir)),
			errorRe: `Invalid Attribute Combination[\s\S]*Exactly one of these attributes must be configured: \[dir,git\]`,
		},
		{
			name:    "a source is required",
			config:  "data \"kalypso_control_plane\" \"this\" {\n  resolve_workloads = true\n}\n",
			errorRe: `Missing Attribute Configuration[\s\S]*Exactly one of these attributes must be configured: \[dir,git\]`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tc.config,
					ExpectError: regexp.MustCompile(spaceTolerant(tc.errorRe)),
				}},
			})
		})
	}
}

func TestAccControlPlaneDataSource_unreachableWorkloadRepositoryNamesRegistration(t *testing.T) {
	t.Parallel()
	gone := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "gone.git"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "kalypso" {
  git_url_rewrites = {
    %q = %q
  }
}

data "kalypso_control_plane" "main" {
  dir               = %q
  resolve_workloads = true
}
`, sampleSvcSrc, gone, fixtures.ControlPlane("control-plane-main")),
			ExpectError: regexp.MustCompile(spaceTolerant(`Cannot resolve the Workload of a WorkloadRegistration[\s\S]*workloads/platform-svc.yaml[\s\S]*WorkloadRegistration "platform-svc"[\s\S]*` + regexp.QuoteMeta(sampleSvcSrc))),
		}},
	})
}
