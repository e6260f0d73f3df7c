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

// The manifest is a v1 ConfigMap carrying the platform-config label that makes the scheduler read it.
func TestAccPlatformConfigResource_basic(t *testing.T) {
	t.Parallel()
	address := "kalypso_platform_config.west"
	want := `apiVersion: v1
data:
  DATABASE_URL: mysql://west:8806/mysql2
  FLAG: "false"
kind: ConfigMap
metadata:
  labels:
    platform-config: "true"
    region: west-us
  name: west-us-config
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "kalypso_platform_config" "west" {
  name   = "west-us-config"
  labels = { region = "west-us" }
  data   = { DATABASE_URL = "mysql://west:8806/mysql2", FLAG = "false" }
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(want))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName: address, ImportState: true, ImportStateId: "west-us-config",
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "name",
				ImportStateVerifyIgnore: []string{"labels", "data", "manifest"},
			},
		},
	})
}

func TestAccPlatformConfigResource_validation(t *testing.T) {
	t.Parallel()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(`
resource "kalypso_platform_config" "c" {
  name   = "west.us.config."
  data   = {}
}
`, "Invalid Kubernetes name", `name = "west.us.config."`),
			expectPlanError(`
resource "kalypso_platform_config" "c" {
  name   = "c"
  labels = { "example.com/a/b" = "x" }
}
`, "Invalid label key", `labels = {`),
		},
	})
}
