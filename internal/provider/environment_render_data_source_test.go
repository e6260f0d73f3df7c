// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

func TestAccEnvironmentRenderDataSource_upstreamParity(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures.TutorialCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := fixtures.Load(t, name)
			config := fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = %q
  manifests   = %s
}

resource "terraform_data" "files" {
  input = data.kalypso_environment_render.this.files
}

output "files" {
  value = data.kalypso_environment_render.this.files
}
`, c.Environment, hclManifestList(t, c))
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: config,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						// With an empty state the plan already knows every rendered file.
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectKnownValue("terraform_data.files", tfjsonpath.New("input"), filesCheck(c.Expected)),
							plancheck.ExpectKnownOutputValue("files", filesCheck(c.Expected)),
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("files"), filesCheck(c.Expected)),
						statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(c.PromotedCommit)),
						statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("content_hash"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					},
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderDataSource_assignments(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	config := fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = %q
  manifests   = %s
}
`, c.Environment, hclManifestList(t, c))
	assignment := func(ct, dt, workload, workspace, policy string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"cluster_type":        knownvalue.StringExact(ct),
			"deployment_target":   knownvalue.StringExact(dt),
			"workload":            knownvalue.StringExact(workload),
			"workspace":           knownvalue.StringExact(workspace),
			"scheduling_policies": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(policy)}),
			"namespace":           knownvalue.StringExact("dev-" + ct + "-" + dt),
			"path":                knownvalue.StringExact(ct + "/" + dt),
		})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("assignments"), knownvalue.ListExact([]knownvalue.Check{
					assignment("drone", "hello-world-app-functional-test", "hello-world-app", "kaizen-app-team", "functional-test-policy"),
					assignment("large", "hello-world-app-performance-test", "hello-world-app", "kaizen-app-team", "performance-test-policy"),
					assignment("large", "observability-prometheus", "observability", "platform-team", "observability-policy"),
				})),
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("cluster_types"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("command-center"), knownvalue.StringExact("drone"), knownvalue.StringExact("large"), knownvalue.StringExact("small"),
				})),
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("unscheduled_deployment_targets"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

const badInputBase = `
apiVersion: scheduler.kalypso.io/v1alpha1
kind: ClusterType
metadata:
  name: large
  labels:
    size: large
spec:
  reconciler: arc-flux
  namespaceService: default
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: Workload
metadata:
  name: app
spec:
  deploymentTargets:
    - name: web
      environment: dev
      manifests:
        repo: https://example.com/app
        branch: main
        path: ./web
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: WorkloadRegistration
metadata:
  name: app
spec:
  workspace: team
  workload:
    repo: https://example.com/app
    branch: main
    path: .
`

const allPolicy = `
apiVersion: scheduler.kalypso.io/v1alpha1
kind: SchedulingPolicy
metadata:
  name: all
spec:
  deploymentTargetSelector: {}
  clusterTypeSelector: {}
`

// badInputCases are shared by the data source and function tests: each names the input and the diagnostic it must produce.
var badInputCases = []struct {
	name     string
	extra    string
	errorRes string
}{
	{"malformed YAML", "kind: [unclosed", `(?s)Malformed YAML document.*manifests\[1\], document 0`},
	{"unknown kind", "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: x\n", `(?s)Unknown kind.*"Cluster" is not a Kalypso kind`},
	{"missing template", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: small\nspec:\n  reconciler: nope\n  namespaceService: default\n",
		`(?s)Missing template.*spec\.reconciler.*template "nope"`},
	{"template fails to parse", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - \"{{ .Namespace \"\n",
		`(?s)Template failed.*does not parse`},
	{"template fails to execute", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - \"{{ fail \\\"boom\\\" }}\"\n",
		`(?s)Template failed.*boom`},
	{"invalid selector operator", "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n  name: bad\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      matchExpressions:\n        - key: a\n          operator: Near\n          values: [x]\n  clusterTypeSelector: {}\n",
		`(?s)Invalid label selector.*SchedulingPolicy "bad".*spec\.deploymentTargetSelector\.labelSelector`},
	{"config schema violation", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: ConfigSchema\nmetadata:\n  name: needs-region\nspec:\n  schema: '{\"type\":\"object\",\"required\":[\"REGION\"]}'\n",
		`(?s)Platform config violates schema.*app-web.*large.*ConfigSchema needs-region.*/REGION|(?s)Platform config violates schema.*app-web.*large.*ConfigSchema needs-region`},
	{"annotation names a missing registration", "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: other\n  annotations:\n    scheduler.kalypso.io/registration: ghost\nspec: {}\n",
		`(?s)Workload names a missing WorkloadRegistration.*"ghost"`},
}

func TestAccEnvironmentRenderDataSource_badInput(t *testing.T) {
	t.Parallel()
	for _, tc := range badInputCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = "dev"
  manifests   = [%s, %s]
}
`, hclString(badInputBase), hclString(tc.extra)),
					ExpectError: regexp.MustCompile(spaceTolerant(tc.errorRes)),
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderDataSource_configValidationWarnSkipsAssignment(t *testing.T) {
	t.Parallel()
	schema := allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: ConfigSchema\nmetadata:\n  name: needs-region\nspec:\n  schema: '{\"type\":\"object\",\"required\":[\"REGION\"]}'\n"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment       = "dev"
  config_validation = "warn"
  manifests         = [%s, %s]
}
`, hclString(badInputBase), hclString(schema)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("assignments"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
					"large/README.md": knownvalue.StringExact("This folder contains deployment targets scheduled on the cluster type"),
				})),
			},
		}},
	})
}

func TestAccEnvironmentRenderDataSource_unscheduledTarget(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = "dev"
  manifests   = [%s]
}
`, hclString(badInputBase)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("unscheduled_deployment_targets"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("app-web")})),
				statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("assignments"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}
