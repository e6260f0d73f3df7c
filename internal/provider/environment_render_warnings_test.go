// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// warningCases are the inputs of each warning kind, on top of badInputBase (cluster type "large",
// workload "app" with target "web" in dev). The function returns them in `warnings` because it cannot
// emit warnings; the data source returns the same list and also reports them as plan warnings.
var warningCases = []struct {
	name        string
	environment string
	extra       string
	want        knownvalue.Check
}{
	{"none", "dev", allPolicy, knownvalue.ListExact([]knownvalue.Check{})},
	{"unscheduled deployment target", "dev", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nothing-to-see\ndata: {}\n",
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
			`^Unscheduled deployment targets: 1 deployment target\(s\) in environment "dev" match no scheduling policy and are not placed on any cluster type: app-web$`))})},
	{"policy selects nothing", "dev", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n  name: edge-only\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchLabels: {edge: \"true\"}\n",
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
			`^Scheduling policy selects nothing \(SchedulingPolicy "edge-only"\): .*its clusterTypeSelector matches none of the 1 cluster type\(s\) of the environment`))})},
	{"environment without deployment targets", "Dev", allPolicy,
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
			`^Environment has no deployment targets: no Workload has a deployment target in environment "Dev".*are: "dev"\. .*did you mean "dev"\?$`))})},
	{"workload without registration", "dev", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: orphan\nspec:\n  deploymentTargets:\n    - name: web\n      environment: dev\n      manifests: {repo: https://example.com/orphan, branch: main, path: ./web}\n",
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
			`^Workload has no WorkloadRegistration \(Workload "orphan"\): no WorkloadRegistration is named "orphan"`))})},
	{"template renders invalid YAML", "dev", allPolicy + "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - \"key: [unclosed\"\n",
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
			`^Rendered file is not valid YAML \(ClusterType "large", field spec.reconciler\): large/app-web/reconciler.yaml`))})},
}

func TestAccEnvironmentRenderFunction_warnings(t *testing.T) {
	t.Parallel()
	for _, tc := range warningCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
output "warnings" {
  value = provider::kalypso::environment_render(%q, [%s, %s]).warnings
}
`, tc.environment, hclString(badInputBase), hclString(tc.extra)),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectKnownOutputValue("warnings", tc.want)},
					},
					ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("warnings", tc.want)},
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderDataSource_warnings(t *testing.T) {
	t.Parallel()
	for _, tc := range warningCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = %q
  manifests   = [%s, %s]
}
`, tc.environment, hclString(badInputBase), hclString(tc.extra)),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.kalypso_environment_render.this", tfjsonpath.New("warnings"), tc.want),
					},
				}},
			})
		})
	}
}

// TestAccEnvironmentRenderFunction_warningsInCheckBlock: the documented way to surface the function's
// warnings in a plan. A failing check is a warning, not an error, so the plan still succeeds; the plan
// records the check as failed with the warnings as its message.
func TestAccEnvironmentRenderFunction_warningsInCheckBlock(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
locals {
  dev = provider::kalypso::environment_render("Dev", [%s, %s])
}

check "dev_render" {
  assert {
    condition     = length(local.dev.warnings) == 0
    error_message = join("\n", local.dev.warnings)
  }
}

output "unscheduled" {
  value = local.dev.unscheduled_deployment_targets
}
`, hclString(badInputBase), hclString(allPolicy)),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("unscheduled", knownvalue.ListExact([]knownvalue.Check{})),
					expectCheckFailed("check.dev_render", regexp.MustCompile(`Environment has no deployment targets: .*did you mean "dev"\?`)),
				},
			},
		}},
	})
}

// expectCheckFailed asserts that the plan records the check block as failed with a matching message.
func expectCheckFailed(address string, message *regexp.Regexp) plancheck.PlanCheck {
	return checkBlockStatus{address, message}
}

type checkBlockStatus struct {
	address string
	message *regexp.Regexp
}

func (c checkBlockStatus) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, r := range req.Plan.Checks {
		if r.Address.ToDisplay != c.address {
			continue
		}
		for _, inst := range r.Instances {
			for _, p := range inst.Problems {
				if inst.Status == tfjson.CheckStatusFail && c.message.MatchString(p.Message) {
					return
				}
			}
		}
		resp.Error = fmt.Errorf("%s: status %s, no failure matching %s in %+v", c.address, r.Status, c.message, r.Instances)
		return
	}
	resp.Error = fmt.Errorf("the plan has no check %s", c.address)
}
