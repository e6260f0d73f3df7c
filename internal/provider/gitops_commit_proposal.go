// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// The open proposal of kalypso_gitops_commit in pull-request mode: the plan says what the apply does to
// the pull request the state records as open (updated in place, closed, or retargeted to the removal of a
// move's old location), and the apply closes one it no longer uses. The rules are internal/delivery's
// (proposal.go).

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// openProposal is the pull request the state m records as open, nil for none (or m nil).
func (r *GitopsCommitResource) openProposal(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) *delivery.Proposal {
	if m == nil {
		return nil
	}
	return r.settings(ctx, m, diags).OpenProposal(int(m.PullRequestNumber.ValueInt64()), m.PullRequestState.ValueString())
}

// planProposal warns, in the plan of plan from state (nil on create), what the apply does to the
// proposal the state records as open. cs is the change set (nil when unknown), move the old side of a
// move (nil for none).
func (r *GitopsCommitResource) planProposal(ctx context.Context, state, plan *gitopsCommitModel, cs *delivery.Plan, move *movePlan, diags *diag.Diagnostics) {
	open := r.openProposal(ctx, state, diags)
	if open == nil || diags.HasError() || !gitopsKnown(plan.RepositoryURL) || !gitopsKnown(plan.Branch) || plan.PullRequest.IsUnknown() {
		return
	}
	to := r.settings(ctx, plan, diags)
	c := r.client(plan)
	sameRepo := c.RepositoryKey(open.RepoURL) == c.RepositoryKey(to.RepoURL)
	removesOld := 0
	if move != nil && !move.retain && !move.old.Gone && (!sameRepo || to.Branch != open.Base) {
		removesOld = move.old.Files + len(move.old.RootFiles)
	}
	outcome, why := delivery.DecideProposal(open, to, cs, sameRepo, removesOld)
	summary := map[delivery.ProposalOutcome]string{
		delivery.ProposalWithdrawn:  "The apply closes pull request #%d: nothing is left to propose",
		delivery.ProposalSuperseded: "The apply closes pull request #%d",
		delivery.ProposalRetargeted: "The apply updates pull request #%d to propose the removal at the old location",
	}[outcome]
	if summary != "" {
		diags.AddWarning(fmt.Sprintf(summary, open.Number), fmt.Sprintf("kalypso_gitops_commit %s: %s.", plan.ID.ValueString(), why))
	}
}

// replacedProposal is the open proposal of prior (nil on create) that the apply of m closes unless it
// updates it in place. A move to another branch or repository that removes the old location's files
// leaves it to that removal (removeOld), which proposes it on the same head branch.
func (r *GitopsCommitResource) replacedProposal(ctx context.Context, prior *gitopsCommitModel, movesAway bool, diags *diag.Diagnostics) *delivery.Proposal {
	if movesAway {
		return nil
	}
	return r.openProposal(ctx, prior, diags)
}
