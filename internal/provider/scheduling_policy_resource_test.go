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
