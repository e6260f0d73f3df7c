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

const clusterTypeManifest = `apiVersion: scheduler.kalypso.io/v1alpha1
kind: ClusterType
metadata:
  labels:
    edge: "true"
    region: east-us
  name: drone
spec:
  configType: configmap
  namespaceService: default
  reconciler: arc-flux
`

// Defaults, the canonical manifest known at plan time, an empty plan after apply, an update that
// changes only the manifest, and import by name.
func TestAccClusterTypeResource_basic(t *testing.T) {
	t.Parallel()
	address := "kalypso_cluster_type.drone"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "kalypso_cluster_type" "drone" {
  name   = "drone"
  labels = { region = "east-us", edge = "true" }
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact("drone")),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("reconciler"), knownvalue.StringExact("arc-flux")),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("namespace_service"), knownvalue.StringExact("default")),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("config_type"), knownvalue.StringExact("configmap")),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(clusterTypeManifest)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringExact(clusterTypeManifest)),
				},
			},
			{
				Config: `
resource "kalypso_cluster_type" "drone" {
  name       = "drone"
  labels     = { region = "east-us", edge = "true" }
  reconciler = "argocd"
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`\n  reconciler: argocd\n`))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:                         address,
				ImportState:                          true,
				ImportStateId:                        "drone",
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "name",
				// Logical resource: only the name comes from the import; the next plan takes the rest from configuration.
				ImportStateVerifyIgnore: []string{"labels", "reconciler", "namespace_service", "config_type", "manifest"},
			},
		},
	})
}

// Import with an import block: the plan imports the name and computes everything else from
// configuration, known in the plan.
func TestAccClusterTypeResource_importBlockComputesFromConfiguration(t *testing.T) {
	t.Parallel()
	config := `
resource "kalypso_cluster_type" "large" {
  name   = "large"
  labels = { size = "large" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				Config:             config,
				ResourceName:       "kalypso_cluster_type.large",
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ImportStateId:      "large",
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kalypso_cluster_type.large", tfjsonpath.New("manifest"),
							knownvalue.StringRegexp(regexp.MustCompile(`(?s)labels:\n    size: large\n  name: large\n`))),
					},
				},
			},
		},
	})
}

func TestAccClusterTypeResource_validation(t *testing.T) {
	t.Parallel()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(`
resource "kalypso_cluster_type" "x" {
  name = "Drone_1"
}
`, "Invalid Kubernetes name", `name = "Drone_1"`, `"Drone_1" is not a valid name`),
			expectPlanError(`
resource "kalypso_cluster_type" "x" {
  name   = "drone"
  labels = { "bad key" = "x" }
}
`, "Invalid label key", `labels = {`, `label key "bad key"`),
			expectPlanError(`
resource "kalypso_cluster_type" "x" {
  name   = "drone"
  labels = { edge = "not a valid value" }
}
`, "Invalid label value", `labels = {`, `value "not a valid value" of label "edge"`),
			expectPlanError(`
resource "kalypso_cluster_type" "x" {
  name       = "drone"
  reconciler = "Arc Flux"
}
`, "Invalid Kubernetes name", `reconciler = "Arc Flux"`),
		},
	})
}
