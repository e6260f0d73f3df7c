// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// lazyStringExact compares with a value that is only known once an earlier step's PreConfig has run.
type lazyStringExact struct{ want *string }

func (c lazyStringExact) CheckValue(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a string, got %T", v)
	}
	if s != *c.want {
		return fmt.Errorf("expected %q, got %q", *c.want, s)
	}
	return nil
}

func (c lazyStringExact) String() string { return *c.want }

// The application team pushes a new deployment target between two plans: the refresh re-reads the
// source, and the plan shows the new assignment's files and the new target, with the new commit.
func TestAccWorkloadRegistrationResource_pushedTargetShowsInNextPlan(t *testing.T) {
	t.Parallel()
	tut := newTutorialAsResources(t, "tutorial-dev")
	const reg = "hello-world-app"
	const folder = "large/hello-world-app-canary-test/"
	repo := tut.Repos[reg]
	var pushed string
	addTarget := func() {
		text := strings.TrimRight(tut.WorkloadTexts[reg], " \n") + `
    - name: canary-test
      labels:
        purpose: performance-test
        edge: "false"
      environment: dev
      manifests:
        repo: https://github.com/microsoft/kalypso-app-gitops
        branch: dev
        path: ./canary-test
`
		pushed = gitserver.Commit(t, repo, "main", "add canary-test", map[string]string{tut.WorkloadFiles[reg]: text}, nil)
	}
	address := "kalypso_workload_registration." + reg
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{
			{
				Config: tut.Config(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("files", filesCheck(tut.Case.Expected)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("hello-world-app-functional-test")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets").AtSliceIndex(0).AtMapKey("labels"), knownvalue.MapExact(map[string]knownvalue.Check{
						"purpose": knownvalue.StringExact("functional-test"), "edge": knownvalue.StringExact("true"),
						"type": knownvalue.StringExact("application"), "family": knownvalue.StringExact("force"),
						"workload": knownvalue.StringExact("hello-world-app"), "workspace": knownvalue.StringExact("kaizen-app-team"),
					})),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets"), knownvalue.ListSizeExact(3)),
				},
			},
			{
				PreConfig: addTarget,
				Config:    tut.Config(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownOutputValueAtPath("files", tfjsonpath.New(folder+"reconciler.yaml"),
							knownvalue.StringRegexp(regexp.MustCompile(`path: "\./canary-test"`))),
						plancheck.ExpectKnownOutputValueAtPath("files", tfjsonpath.New(folder+"namespace.yaml"),
							knownvalue.StringRegexp(regexp.MustCompile(`name: "dev-large-hello-world-app-canary-test"`))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("source_commit"), lazyStringExact{&pushed}),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets"), knownvalue.ListSizeExact(4)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("hello-world-app-canary-test")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`name: canary-test`))),
				},
			},
		},
	})
}

const inlineRegistrationConfig = `
resource "kalypso_workload_registration" "inline" {
  name      = "inline-app"
  workspace = "team-a"
  labels    = { type = "application" }
  workload = {
    labels = { family = "force" }
    deployment_targets = [
      {
        name        = "qa"
        environment = "dev"
        labels      = { purpose = "qa", family = "overridden" }
        manifests   = { repo = "https://example.com/app-gitops", branch = "dev", path = "./qa" }
      },
      {
        name        = "prod"
        environment = "prod"
        manifests   = { repo = "https://example.com/app-gitops", branch = "main", path = "./prod" }
      },
    ]
  }
}
`

// An inline Workload: every computed attribute is known in the plan, without any Git access.
func TestAccWorkloadRegistrationResource_inlineWorkloadKnownAtPlan(t *testing.T) {
	t.Parallel()
	address := "kalypso_workload_registration.inline"
	target0 := tfjsonpath.New("deployment_targets").AtSliceIndex(0)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: inlineRegistrationConfig,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact("inline-app")),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("source_commit"), knownvalue.Null()),
						plancheck.ExpectKnownValue(address, target0.AtMapKey("name"), knownvalue.StringExact("inline-app-prod")),
						// Each target says once what a reviewer needs; its manifests are in `manifest` only.
						plancheck.ExpectKnownValue(address, target0, knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("inline-app-prod"), "environment": knownvalue.NotNull(), "labels": knownvalue.NotNull(),
						})),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("deployment_targets").AtSliceIndex(1).AtMapKey("labels"), knownvalue.MapExact(map[string]knownvalue.Check{
							"purpose": knownvalue.StringExact("qa"), "family": knownvalue.StringExact("force"),
							"workload": knownvalue.StringExact("inline-app"), "workspace": knownvalue.StringExact("team-a"),
						})),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
							`(?s)^apiVersion: scheduler.kalypso.io/v1alpha1\nkind: WorkloadRegistration\n.*\n---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\n`))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:                         address,
				ImportState:                          true,
				ImportStateId:                        "inline-app",
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "name",
				// A logical resource's other attributes come from configuration: the next plan fills them in.
				ImportStateVerifyIgnore: []string{"workspace", "labels", "workload", "deployment_targets", "manifest"},
			},
		},
	})
}

// Import with `<name>@<repo>//<path>?ref=<branch>` re-reads the source: the Workload, its targets and the
// commit come back from Git.
func TestAccWorkloadRegistrationResource_importReReadsSource(t *testing.T) {
	t.Parallel()
	tut := newTutorialAsResources(t, "tutorial-dev")
	address := "kalypso_workload_registration.platform-svc"
	repo := "https://github.com/microsoft/kalypso-svc-src"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: tut.ProviderBlock() + `
resource "kalypso_workload_registration" "platform-svc" {
  name      = "platform-svc"
  workspace = "platform-team"
  source    = { repo = "` + repo + `", branch = "main", path = "./workloads" }
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`scheduler.kalypso.io/registration: platform-svc`))),
				},
			},
			{
				ResourceName:                         address,
				ImportState:                          true,
				ImportStateId:                        "platform-svc@" + repo + "//./workloads?ref=main&workspace=platform-team",
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "name",
			},
			{
				ResourceName:  address,
				ImportState:   true,
				ImportStateId: "platform-svc@" + repo,
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*no\s+\?ref=<branch>`),
			},
		},
	})
}

func TestParseRegistrationImportID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"hello": "hello <nil>",
		"hello@https://github.com/o/r//wl?ref=main": "hello &{https://github.com/o/r main wl}",
		"hello@https://github.com/o/r?ref=dev":      "hello &{https://github.com/o/r dev .}",
		"hello@git@github.com:o/r.git//a/b?ref=x":   "hello &{git@github.com:o/r.git x a/b}",
		"hello@file:///tmp/r//w?ref=main":           "hello &{file:///tmp/r main w}",
	} {
		name, src, _, err := parseRegistrationImportID(id)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if got := fmt.Sprintf("%s %v", name, src); got != want {
			t.Errorf("%s: got %s, want %s", id, got, want)
		}
	}
	if _, _, ws, _ := parseRegistrationImportID("hello@https://x/r//p?ref=main&workspace=team-a"); ws != "team-a" {
		t.Errorf("workspace = %q, want team-a", ws)
	}
	if _, _, _, err := parseRegistrationImportID("hello@https://x/r"); err == nil {
		t.Error("an import ID without ?ref= must fail")
	}
}

// Plan-time diagnostics of a registration: exactly one of source and workload, a missing branch, path
// or Workload file, and an unparsable Workload, each naming the repository, branch and path.
func TestAccWorkloadRegistrationResource_validation(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "app-src.git", "main", map[string]string{
		"workload/workload.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets:\n    - name: dev\n      environment: dev\n      manifests: {repo: r, branch: b, path: p}\n",
		"docs/README.md":         "no workload here",
		"broken/workload.yaml":   "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets: \"not a list\"\n",
	})
	url := "file://" + repo
	source := func(branch, p string) string {
		return fmt.Sprintf(`
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "team-a"
  source    = { repo = %q, branch = %q, path = %q }
}
`, url, branch, p)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(`
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "team-a"
}
`, "Missing Attribute Configuration", `Exactly one of these attributes must be configured: [source,workload]`),
			expectPlanError(`
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "team-a"
  source    = { repo = "file:///nowhere", branch = "main", path = "." }
  workload  = { deployment_targets = [{ name = "a", environment = "dev", manifests = { repo = "r", branch = "b", path = "p" } }] }
}
`, "Invalid Attribute Combination", `source = { repo = "file:///nowhere"`, `Exactly one of these attributes must be configured: [source,workload]`),
			expectPlanError(source("nope", "workload"), "Workload source branch not found", `kalypso_workload_registration "app": repository "`+url+`", branch "nope", path "workload"`, `Check source.branch`),
			expectPlanError(source("main", "missing"), "Workload source path not found", `kalypso_workload_registration "app": repository "`+url+`", branch "main", path "missing"`, `Check source.path`),
			expectPlanError(source("main", "docs"), "No Workload in the workload source", `repository "`+url+`", branch "main", path "docs"`),
			expectPlanError(source("main", "broken"), "Invalid Workload in the workload source", `repository "`+url+`", branch "main", path "broken"`, `spec.deploymentTargets`),
			expectPlanError(`
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "not a workspace"
  workload  = { deployment_targets = [{ name = "Bad_Target", environment = "dev", labels = { "a b" = "c" }, manifests = { repo = "r", branch = "b", path = "p" } }] }
}
`, "Invalid label value", `workspace = "not a workspace"`),
			expectPlanError(`
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "team-a"
  workload  = { deployment_targets = [{ name = "Bad_Target", environment = "dev", manifests = { repo = "r", branch = "b", path = "p" } }] }
}
`, "Invalid Kubernetes name", `"Bad_Target" is not a valid name`),
		},
	})
}

// TestAccWorkloadRegistration_duplicateTargetPointsAtItsName: a problem with one inline deployment
// target is reported on the `workload` argument that holds it, naming the target's attribute path.
// (Terraform looks a nested path's last name up among the top-level arguments, so the precise path
// would show the resource's own `name = "app"` line.)
func TestAccWorkloadRegistration_duplicateTargetPointsAtItsName(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "kalypso_workload_registration" "r" {
  name      = "app"
  workspace = "team"
  workload = {
    deployment_targets = [
      {
        name        = "web"
        environment = "dev"
        manifests   = { repo = "r", branch = "b", path = "p" }
      },
      {
        name        = "web"
        environment = "dev"
        manifests   = { repo = "r", branch = "b", path = "p2" }
      },
    ]
  }
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Error: Invalid deployment target.*line \d+, in resource "kalypso_workload_registration" "r":\s+\d+:\s+workload = \{.*workload.deployment_targets\[1\].name: kalypso_workload_registration\s+"app":\s+deployment\s+target\s+"app-web"\s+is\s+also\s+derived\s+from\s+workload\s+"app"`),
		}},
	})
}
