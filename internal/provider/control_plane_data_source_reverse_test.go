// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccControlPlaneDataSource_reverseWriteWithGitopsCommitReadsBackSameRender(t *testing.T) {
	t.Parallel()
	config, _ := controlPlaneReverseExample(t)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("same_render", knownvalue.Bool(true)),
				// The round trip is not trivially equal: the read-back tree holds the scheduled assignment.
				statecheck.ExpectKnownValue("data.kalypso_environment_render.read_back", tfjsonpath.New("assignments"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"cluster_type":      knownvalue.StringExact("large"),
						"deployment_target": knownvalue.StringExact("observability-prometheus"),
					}),
				})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main", tfjsonpath.New("templates"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("arc-flux"), knownvalue.StringExact("configmap"), knownvalue.StringExact("default"),
				})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.dev", tfjsonpath.New("commit"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{40}$`))),
				statecheck.CompareValuePairs(
					"data.kalypso_control_plane.dev", tfjsonpath.New("commit"),
					"kalypso_gitops_commit.dev", tfjsonpath.New("commit_sha"), compare.ValuesSame()),
			},
		}},
	})
}
