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

// github_statuses explains its own errors at the attribute to change, with what to change there.
func TestGitHubStatusesSource_Explain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		at     path.Path
		advice string
	}{
		{fmt.Errorf("drone-1: %w", rollout.ErrSharedCluster), path.Root("github_statuses").AtName("creators"), "Set github_statuses.creators"},
		{fmt.Errorf("600 statuses: %w", githubpr.ErrTooMany), path.Root("max_clusters"), "Narrow github_statuses.context_patterns"},
		{fmt.Errorf("org/gitops: %w", githubpr.ErrNotFound), path.Root("github_statuses"), "Check github_statuses.repository"},
		{fmt.Errorf("a status: %w", githubpr.ErrMalformed), path.Root("github_statuses"), "Check github_statuses.repository"},
	} {
		diags := rolloutError(c.err, "dev", githubStatusesSource)
		d, ok := diags[0].(interface{ Path() path.Path })
		if len(diags) != 1 || !ok || !d.Path().Equal(c.at) || !strings.Contains(diags[0].Detail(), c.advice) {
			t.Errorf("%v: %v", c.err, diags)
		}
	}
	if githubStatusesSource.explain(fmt.Errorf("%w", rollout.ErrTooManyClusters), "dev", path.Root("github_statuses"), &diag.Diagnostics{}) {
		t.Error("github_statuses explains Azure's cluster limit")
	}
	hint := githubStatusesSource.noReportHint(&rollout.GitHubStatuses{Owner: "org", Repo: "gitops"})
	if !strings.Contains(hint, "GitHub repository org/gitops") {
		t.Errorf("the hint does not name the repository read: %s", hint)
	}
}

// kalypso_gitops_commit's rollout describes the block by pointing at kalypso_rollout's.
func TestGitHubStatusesSource_Schema(t *testing.T) {
	t.Parallel()
	inRollout, inCommit := githubStatusesSchema(inRolloutDataSource, "ONE."), githubStatusesSchema(inGitopsCommit, "ONE.")
	if !strings.HasSuffix(inRollout.MarkdownDescription, "ONE.") || !strings.Contains(inCommit.MarkdownDescription, "as `kalypso_rollout.github_statuses` does") {
		t.Errorf("descriptions: %q / %q", inRollout.MarkdownDescription, inCommit.MarkdownDescription)
	}
	for name := range inRollout.Attributes {
		if _, ok := inCommit.Attributes[name]; !ok {
			t.Errorf("the commit's block lacks %s", name)
		}
	}
}
