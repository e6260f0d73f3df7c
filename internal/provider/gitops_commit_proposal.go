// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// The open proposal of kalypso_gitops_commit in pull-request mode: the apply closes the pull request the
// state records as open when it no longer uses it. The rules, and the plan's warning (the proposal
// step), are internal/delivery's (proposal.go).

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// openProposal is the pull request the state m records as open, nil for none (or m nil).
func (r *GitopsCommitResource) openProposal(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) *delivery.Proposal {
	if m == nil {
		return nil
	}
	return r.settings(ctx, m, diags).OpenProposal(wholeNumber(m.PullRequestNumber), m.PullRequestState.ValueString())
}
