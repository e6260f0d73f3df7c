// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Adding a scheduling policy to an applied configuration: the plan already holds the newly rendered
// files as known values (the function is evaluated at plan time), and nothing is left to do after apply.
func TestAccSchedulingPolicyResource_addPolicyShowsNewFilesInPlan(t *testing.T) {
	t.Parallel()
	tut := newTutorialAsResources(t, "tutorial-dev")
	const newPolicy = "observability-policy"
	const newFolder = "large/observability-prometheus/"
	before := withoutPrefix(tut.Case.Expected, newFolder)
	if len(before) == len(tut.Case.Expected) {
		t.Fatalf("fixture has no files below %s", newFolder)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{
			{
				Config: tut.Config(newPolicy),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("files", filesCheck(before))},
			},
			{
				Config: tut.Config(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kalypso_scheduling_policy."+newPolicy, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue("kalypso_scheduling_policy."+newPolicy, tfjsonpath.New("manifest"),
							knownvalue.StringRegexp(regexp.MustCompile(`(?s)kind: SchedulingPolicy\n.*workspace: platform-team`))),
						plancheck.ExpectKnownOutputValue("files", filesCheck(tut.Case.Expected)),
						plancheck.ExpectKnownOutputValueAtPath("files", tfjsonpath.New(newFolder+"reconciler.yaml"),
							knownvalue.StringExact(tut.Case.Expected[newFolder+"reconciler.yaml"])),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("files", filesCheck(tut.Case.Expected))},
			},
		},
	})
}

func TestAccSchedulingPolicyResource_manifestAndImport(t *testing.T) {
	t.Parallel()
	address := "kalypso_scheduling_policy.p"
	want := `apiVersion: scheduler.kalypso.io/v1alpha1
kind: SchedulingPolicy
metadata:
  name: edge-policy
spec:
  clusterTypeSelector:
    labelSelector:
      matchExpressions:
      - key: size
        operator: In
        values:
        - large
        - medium
      - key: restricted
        operator: DoesNotExist
  deploymentTargetSelector:
    labelSelector:
      matchLabels:
        edge: "true"
    workspace: kaizen-app-team
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "kalypso_scheduling_policy" "p" {
  name = "edge-policy"
  deployment_target_selector = {
    workspace    = "kaizen-app-team"
    match_labels = { edge = "true" }
  }
  cluster_type_selector = {
    match_expressions = [
      { key = "size", operator = "In", values = ["large", "medium"] },
      { key = "restricted", operator = "DoesNotExist" },
    ]
  }
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(want))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName: address, ImportState: true, ImportStateId: "edge-policy",
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "name",
				ImportStateVerifyIgnore: []string{"deployment_target_selector", "cluster_type_selector", "manifest"},
			},
		},
	})
}

func TestAccSchedulingPolicyResource_validation(t *testing.T) {
	t.Parallel()
	policy := func(expr string) string {
		return `
resource "kalypso_scheduling_policy" "p" {
  name = "p"
  cluster_type_selector = {
    match_expressions = [` + expr + `]
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			// Terraform shows the top-level argument that holds the nested value, and the detail names its path.
			expectPlanError(policy(`{ key = "size", operator = "In" }`), "Selector operator needs values", `cluster_type_selector = {`, `cluster_type_selector.match_expressions[0].values: the requirement on key "size" uses operator In, which needs at least one value`),
			expectPlanError(policy(`{ key = "size", operator = "NotIn", values = [] }`), "Selector operator needs values", `operator NotIn`),
			expectPlanError(policy(`{ key = "size", operator = "Exists", values = ["large"] }`), "Selector operator takes no values", `operator Exists, which must not have values`),
			expectPlanError(policy(`{ key = "size", operator = "DoesNotExist", values = ["large"] }`), "Selector operator takes no values", `operator DoesNotExist`),
			expectPlanError(policy(`{ key = "size", operator = "Equals", values = ["large"] }`), "Invalid Attribute Value Match", `cluster_type_selector = {`, `Attribute cluster_type_selector.match_expressions[0].operator value must be one of: ["In" "NotIn" "Exists" "DoesNotExist"]`),
			expectPlanError(policy(`{ key = "not a key", operator = "Exists" }`), "Invalid label key", `label key "not a key"`),
			expectPlanError(policy(`{ key = "size", operator = "In", values = ["not a value"] }`), "Invalid label value", `label value "not a value"`),
			expectPlanError(`
resource "kalypso_scheduling_policy" "p" {
  name = "p"
  deployment_target_selector = { match_labels = { "edge" = "not valid!" } }
}
`, "Invalid label value", `value "not valid!" of label "edge"`),
			expectPlanError(`
resource "kalypso_scheduling_policy" "p" {
  name = "P"
}
`, "Invalid Kubernetes name", `name = "P"`),
		},
	})
}
