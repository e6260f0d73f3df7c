// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// hasResource reports whether the provider registers a resource type, so that this test starts running
// as soon as kalypso_gitops_commit is registered.
func hasResource(t *testing.T, typeName string) bool {
	t.Helper()
	p := New("test")()
	for _, f := range p.Resources(context.Background()) {
		var resp fwresource.MetadataResponse
		f().Metadata(context.Background(), fwresource.MetadataRequest{ProviderTypeName: "kalypso"}, &resp)
		if resp.TypeName == typeName {
			return true
		}
	}
	return false
}

func TestAccControlPlaneDataSource_reverseWriteWithGitopsCommitReadsBackSameRender(t *testing.T) {
	if !hasResource(t, "kalypso_gitops_commit") {
		t.Skip("kalypso_gitops_commit is not registered in Resources() yet")
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "control-plane-reverse", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	// The example itself, minus its terraform/variable blocks, against a local bare repository.
	config := string(example)
	config = config[strings.Index(config, `provider "kalypso"`):]
	bare := gitserver.NewBareRepo(t, "", "control-plane.git", "main")
	repo := "file://" + filepath.ToSlash(bare)
	config = strings.ReplaceAll(config, "var.control_plane_repo", fmt.Sprintf("%q", repo))

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
