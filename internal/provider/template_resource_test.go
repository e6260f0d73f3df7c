// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccTemplateResource_basic(t *testing.T) {
	t.Parallel()
	address := "kalypso_template.sh"
	want := `apiVersion: scheduler.kalypso.io/v1alpha1
kind: Template
metadata:
  name: sh-config
spec:
  contentType: sh
  manifests:
  - |
    export REGION="{{ .ConfigData.REGION }}"
  type: config
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "kalypso_template" "sh" {
  name         = "sh-config"
  type         = "config"
  content_type = "sh"
  manifests    = ["export REGION=\"{{ .ConfigData.REGION }}\"\n"]
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(want))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName: address, ImportState: true, ImportStateId: "sh-config",
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "name",
				ImportStateVerifyIgnore: []string{"type", "content_type", "manifests", "manifest"},
			},
		},
	})
}

func TestAccTemplateResource_validation(t *testing.T) {
	t.Parallel()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(`
resource "kalypso_template" "t" {
  name      = "t"
  type      = "kustomize"
  manifests = ["a: b"]
}
`, "Invalid Attribute Value Match", `type = "kustomize"`, `Attribute type value must be one of: ["reconciler" "namespace" "config"]`),
			expectPlanError(`
resource "kalypso_template" "t" {
  name         = "t"
  type         = "config"
  content_type = "json"
  manifests    = ["a: b"]
}
`, "Invalid Attribute Value Match", `content_type = "json"`, `Attribute content_type value must be one of: ["yaml" "sh"]`),
			{
				Config: `
resource "kalypso_template" "t" {
  name      = "t"
  type      = "namespace"
  manifests = []
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value.*manifests = \[\]`),
			},
		},
	})
}
