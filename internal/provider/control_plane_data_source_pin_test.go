// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// The operator makes Flux fetch main at the BaseRepo's spec.commit. Main here has a newer commit that
// changes the namespace template; following dev's BaseRepo (over smart HTTP, so the shallow cache must
// be deepened) renders upstream's dev tree without it, and so does an explicit git.commit on main.
func TestAccControlPlaneDataSource_followBaseRepoReadsMainAtThePin(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare, pinned := fixtures.ControlPlanePinnedRepo(t, root)
	fixtures.SvcSrcRepo(t, root)
	srv := gitserver.Start(t, root, gitserver.Options{})
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	cfg := fmt.Sprintf(`
provider "kalypso" {
  git_url_rewrites = { %[1]q = %[2]q }
  cache_dir        = %[3]q
}

data "kalypso_control_plane" "dev" {
  git = {
    repo   = %[4]q
    branch = "dev"
  }
  follow_base_repo  = true
  resolve_workloads = true
}

data "kalypso_control_plane" "main_at_pin" {
  git = {
    repo   = %[4]q
    branch = "main"
    commit = data.kalypso_control_plane.dev.base_repo_commit
  }
  resolve_workloads = true
}

data "kalypso_control_plane" "dev_only" {
  git = {
    repo   = %[4]q
    branch = "dev"
  }
}

output "followed" {
  value = provider::kalypso::environment_render("dev", data.kalypso_control_plane.dev.manifests).files
}

output "pinned" {
  value = provider::kalypso::environment_render("dev", concat(data.kalypso_control_plane.main_at_pin.manifests, data.kalypso_control_plane.dev_only.manifests)).files
}
`, sampleOrg, srv.URL+"/", filepath.ToSlash(t.TempDir()), sampleControlPlane)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("followed", filesCheck(want)),
				statecheck.ExpectKnownOutputValue("pinned", filesCheck(want)),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.dev", tfjsonpath.New("base_repo"), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"repo": knownvalue.StringExact(sampleControlPlane), "branch": knownvalue.StringExact("main"),
					"path": knownvalue.StringExact("."), "commit": knownvalue.StringExact(pinned),
				})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main_at_pin", tfjsonpath.New("commit"), knownvalue.StringExact(pinned)),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.dev", tfjsonpath.New("commit"), knownvalue.StringExact(gitserver.Head(t, bare, "dev"))),
			},
		}},
	})
}

func TestAccControlPlaneDataSource_pinnedCommitErrors(t *testing.T) {
	t.Parallel()
	bare, _ := fixtures.ControlPlanePinnedRepo(t, "")
	devHead := gitserver.Head(t, bare, "dev")
	read := func(commit string) string {
		return fmt.Sprintf(`
data "kalypso_control_plane" "main" {
  git = {
    repo   = %q
    branch = "main"
    commit = %q
  }
}
`, "file://"+bare, commit)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: read(devHead), ExpectError: regexp.MustCompile(`(?s)` + devHead + `\s+is not main's head.*nor one of its\s+ancestors.*Check git\.commit`)},
			{Config: read("v1.2.3"), ExpectError: regexp.MustCompile(`(?s)Attribute git\.commit must be a Git commit SHA`)},
			{Config: `
data "kalypso_control_plane" "dir" {
  dir              = "."
  follow_base_repo = true
}
`, ExpectError: regexp.MustCompile(`cannot be configured together: \[dir,follow_base_repo\]`)},
		},
	})
}

// examples/control-plane as users run it, through its git_mirror variable: the pushed dev tree is
// upstream's, although main's head holds a change that was never promoted, and the tracking file names
// the pin.
func TestAccControlPlaneDataSource_exampleRendersMainAtThePin(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	org := filepath.Join(root, "microsoft")
	_, pinned := fixtures.ControlPlanePinnedRepo(t, org)
	fixtures.SvcSrcRepo(t, org)
	gitops := gitserver.NewSeededRepo(t, org, "kalypso-gitops", "dev", map[string]string{"README.md": "dev"})
	srv := gitserver.Start(t, root, gitserver.Options{})
	cfg := exampleForTestFramework(t, "control-plane")
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigVariables: config.Variables{
				"control_plane_repo": config.StringVariable(sampleControlPlane),
				"git_mirror":         config.StringVariable(srv.URL + "/"),
			},
			Check: func(*terraform.State) error {
				files, promoted := fixtures.SplitTracking(gitserver.Files(t, gitops, "dev"))
				delete(files, "README.md")
				delete(files, ".kalypso-gitops-commit") // the resource's own marker
				if d := fixtures.DiffTrees(want, files); d != "" {
					return fmt.Errorf("pushed dev tree differs from upstream's:\n%s", d)
				}
				if promoted != pinned {
					return fmt.Errorf("Promoted_Commit_Id = %q, want the pin %s", promoted, pinned)
				}
				return nil
			},
		}},
	})
}

// examples/control-plane as written, against the sample's layout as it is published (fixtures.
// ControlPlaneLegacyPinsRepo): dev's and stage's BaseRepo pin commits of main whose Templates list their
// manifests as YAML objects, while main's head is in today's format. At both pins the plan succeeds with
// the "Deprecated Template format" warning naming the Templates (it failed with "expected string, got a
// YAML object" three times), and the pushed tree is upstream's, written as the 2023 operator wrote it
// (yaml.v2, keys sorted), with the pin as Promoted_Commit_Id.
func TestAccControlPlaneDataSource_exampleReadsTheSamplesLegacyPins(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	root := t.TempDir()
	org := filepath.Join(root, "microsoft")
	_, devPin, stagePin := fixtures.ControlPlaneLegacyPinsRepo(t, org)
	fixtures.SvcSrcRepo(t, org)
	gitops := gitserver.NewSeededRepo(t, org, "kalypso-gitops", "dev", map[string]string{"README.md": "dev"})
	gitserver.Commit(t, gitops, "stage", "stage", map[string]string{"README.md": "stage"}, nil)
	srv := gitserver.Start(t, root, gitserver.Options{})
	example := []byte(exampleFile(t, "control-plane"))
	for env, pin := range map[string]string{"dev": devPin, "stage": stagePin} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), example, 0o600); err != nil {
				t.Fatal(err)
			}
			tf := newTerraformCLI(t, dir)
			tf.mustRun("init", "-input=false", "-no-color")
			vars := []string{"-var", "control_plane_repo=" + sampleControlPlane, "-var", "git_mirror=" + srv.URL + "/", "-var", "environment=" + env}
			plan := tf.mustRun(append([]string{"plan", "-input=false", "-no-color", "-out=tfplan"}, vars...)...)
			flat := strings.Join(strings.Fields(plan), " ")
			for _, want := range []string{"Warning: Deprecated Template format", `Template "arc-flux" lists its manifests as YAML objects`, "move the environment branch's BaseRepo spec.commit"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the plan lacks %q:\n%s", want, plan)
				}
			}
			tf.mustRun("apply", "-input=false", "-no-color", "tfplan")
			want, _ := fixtures.ControlPlaneExpected(t, env)
			files, promoted := fixtures.SplitTracking(gitserver.Files(t, gitops, env))
			delete(files, "README.md")
			delete(files, ".kalypso-gitops-commit")
			if d := fixtures.DiffYAMLTrees(t, want, files); d != "" {
				t.Errorf("pushed %s tree differs from upstream's:\n%s", env, d)
			}
			if promoted != pin {
				t.Errorf("Promoted_Commit_Id = %q, want the pin %s", promoted, pin)
			}
			if env == "dev" {
				// The 2023 format: yaml.v2 with sorted keys.
				if got := files["large/observability-prometheus/reconciler.yaml"]; !strings.Contains(got, "  interval: 30s\n  ref:\n    branch: dev\n  secretRef:\n    name: repo-secret\n  url: ") {
					t.Errorf("reconciler.yaml is not written as the 2023 operator wrote it:\n%s", got)
				}
			}
		})
	}
}
