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

var functionVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}

func TestAccEnvironmentRenderFunction_upstreamParity(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures.TutorialCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := fixtures.Load(t, name)
			config := fmt.Sprintf(`
locals {
  render = provider::kalypso::environment_render(%q, %s)
}

resource "terraform_data" "files" {
  input = local.render.files
}

output "files" {
  value = local.render.files
}

output "promoted_commit_id" {
  value = local.render.promoted_commit_id
}
`, c.Environment, hclManifestList(t, c))
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config: config,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectKnownValue("terraform_data.files", tfjsonpath.New("input"), filesCheck(c.Expected)),
							plancheck.ExpectKnownOutputValue("files", filesCheck(c.Expected)),
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownOutputValue("files", filesCheck(c.Expected)),
						statecheck.ExpectKnownOutputValue("promoted_commit_id", knownvalue.StringExact(c.PromotedCommit)),
					},
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderFunction_badInput(t *testing.T) {
	t.Parallel()
	for _, tc := range badInputCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
output "files" {
  value = provider::kalypso::environment_render("dev", [%s, %s]).files
}
`, hclString(badInputBase), hclString(tc.extra)),
					ExpectError: regexp.MustCompile(spaceTolerant(tc.errorRes)),
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderFunction_missingEnvironment(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config:      `output "x" { value = provider::kalypso::environment_render("", []) }`,
			ExpectError: regexp.MustCompile(`Missing environment`),
		}},
	})
}
