// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

// clusterTypesOf returns the cluster type folders of a fixture's expected tree, sorted.
func clusterTypesOf(files map[string]string) []string {
	seen := map[string]bool{}
	for p := range files {
		ct, _, _ := strings.Cut(p, "/")
		seen[ct] = true
	}
	var out []string
	for ct := range seen {
		out = append(out, ct)
	}
	sort.Strings(out)
	return out
}

func filesUnder(files map[string]string, clusterType string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		if strings.HasPrefix(p, clusterType+"/") {
			out[p] = c
		}
	}
	return out
}

func stringListCheck(values []string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

// The per-cluster-type pattern: a summary call drives for_each, and each instance gets one folder. Joined
// back together, the folders are the upstream tree.
func TestAccEnvironmentRenderFunction_onlyClusterTypesPerClusterType(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	clusterTypes := clusterTypesOf(c.Expected)
	config := fmt.Sprintf(`
locals {
  manifests = %s
  summary   = provider::kalypso::environment_render(%q, local.manifests, { only_cluster_types = [] })
  by_cluster_type = {
    for ct in local.summary.cluster_types : ct => provider::kalypso::environment_render(%q, local.manifests, { only_cluster_types = [ct] })
  }
}

output "summary_files" {
  value = local.summary.files
}

output "cluster_types" {
  value = local.summary.cluster_types
}

output "first_files" {
  value = local.by_cluster_type[%q].files
}

output "joined_files" {
  value = merge([for r in values(local.by_cluster_type) : r.files]...)
}
`, hclManifestList(t, c), c.Environment, c.Environment, clusterTypes[0])
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("summary_files", knownvalue.MapExact(map[string]knownvalue.Check{})),
				plancheck.ExpectKnownOutputValue("cluster_types", stringListCheck(clusterTypes)),
				plancheck.ExpectKnownOutputValue("first_files", filesCheck(filesUnder(c.Expected, clusterTypes[0]))),
				plancheck.ExpectKnownOutputValue("joined_files", filesCheck(c.Expected)),
			}},
		}},
	})
}

func TestAccEnvironmentRenderFunction_onlyClusterTypesErrors(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	for _, tc := range []struct{ name, options, errorRe string }{
		{"unknown cluster type", `{ only_cluster_types = ["no-such-cluster-type"] }`, `"no-such-cluster-type", which is not a cluster type of environment`},
		{"unknown option", `{ cluster_type = "x" }`, `unknown option "cluster_type"`},
		{"not a list", `{ only_cluster_types = "x" }`, `only_cluster_types must be a list`},
		{"two option objects", `{}, {}`, `at most one options object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
output "files" {
  value = provider::kalypso::environment_render(%q, %s, %s).files
}
`, c.Environment, hclManifestList(t, c), tc.options),
					ExpectError: regexp.MustCompile(spaceTolerant(tc.errorRe)),
				}},
			})
		})
	}
}

func TestAccEnvironmentRenderDataSource_onlyClusterTypes(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	clusterTypes := clusterTypesOf(c.Expected)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "kalypso_environment_render" "one" {
  environment        = %q
  manifests          = %s
  only_cluster_types = [%q]
}

output "files" {
  value = data.kalypso_environment_render.one.files
}

output "cluster_types" {
  value = data.kalypso_environment_render.one.cluster_types
}
`, c.Environment, hclManifestList(t, c), clusterTypes[len(clusterTypes)-1]),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("files", filesCheck(filesUnder(c.Expected, clusterTypes[len(clusterTypes)-1]))),
				plancheck.ExpectKnownOutputValue("cluster_types", stringListCheck(clusterTypes)),
			}},
		}},
	})
}
