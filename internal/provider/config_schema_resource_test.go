// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccConfigSchemaResource_basic(t *testing.T) {
	t.Parallel()
	address := "kalypso_config_schema.s"
	want := `apiVersion: scheduler.kalypso.io/v1alpha1
kind: ConfigSchema
metadata:
  labels:
    region: east-us
  name: region-required
spec:
  schema: '{"required":["REGION"],"type":"object"}'
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "kalypso_config_schema" "s" {
  name   = "region-required"
  labels = { region = "east-us" }
  schema = jsonencode({ type = "object", required = ["REGION"] })
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(want))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName: address, ImportState: true, ImportStateId: "region-required",
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "name",
				ImportStateVerifyIgnore: []string{"labels", "schema", "manifest"},
			},
		},
	})
}

func TestAccConfigSchemaResource_validation(t *testing.T) {
	t.Parallel()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(`
resource "kalypso_config_schema" "s" {
  name   = "s"
  schema = jsonencode({ type = 12 })
}
`, "Invalid JSON Schema", `schema = jsonencode`, `does not compile as JSON Schema draft-07`),
			expectPlanError(`
resource "kalypso_config_schema" "s" {
  name   = "s"
  schema = "{ not json"
}
`, "Invalid JSON Schema", `schema = "{ not json"`),
		},
	})
}
