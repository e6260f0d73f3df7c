// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// azure_resource_graph explains its own errors at the attribute to change, with what to change there.
func TestAzureResourceGraphSource_Explain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		at     path.Path
		advice string
	}{
		{fmt.Errorf("3 pages: %w", rollout.ErrTooManyClusters), path.Root("max_clusters"), "Scope azure_resource_graph.subscriptions"},
		{fmt.Errorf("a row: %w", rollout.ErrMalformedAnswer), path.Root("azure_resource_graph"), "Check azure_resource_graph.endpoint"},
		{fmt.Errorf("403: %w", rollout.ErrResourceGraph), path.Root("azure_resource_graph"), "has Reader on the subscriptions"},
	} {
		diags := rolloutError(c.err, "dev", azureResourceGraphSource)
		d, ok := diags[0].(interface{ Path() path.Path })
		if len(diags) != 1 || !ok || !d.Path().Equal(c.at) || !strings.Contains(diags[0].Detail(), c.advice) {
			t.Errorf("%v: %v", c.err, diags)
		}
	}
	if azureResourceGraphSource.explain(fmt.Errorf("%w", githubpr.ErrTooMany), "dev", path.Root("azure_resource_graph"), &diag.Diagnostics{}) {
		t.Error("azure_resource_graph explains GitHub's status limit")
	}
}

// kalypso_gitops_commit's rollout describes the block by pointing at kalypso_rollout's.
func TestAzureResourceGraphSource_Schema(t *testing.T) {
	t.Parallel()
	inRollout, inCommit := azureResourceGraphSchema(inRolloutDataSource, "ONE."), azureResourceGraphSchema(inGitopsCommit, "ONE.")
	if !strings.HasSuffix(inRollout.MarkdownDescription, "ONE.") || !strings.Contains(inCommit.MarkdownDescription, "as `kalypso_rollout.azure_resource_graph` does") {
		t.Errorf("descriptions: %q / %q", inRollout.MarkdownDescription, inCommit.MarkdownDescription)
	}
	for name := range inRollout.Attributes {
		if _, ok := inCommit.Attributes[name]; !ok {
			t.Errorf("the commit's block lacks %s", name)
		}
	}
}
