// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// Moves of kalypso_gitops_commit (a change of repository_url, branch or path): the plan shows both
// sides (the location step of delivery.PlanSteps); on one branch the apply writes both in one commit,
// elsewhere it writes the new location first and removes the old one after. The rules are
// internal/delivery's (move.go, steps.go).

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// moveKey is the planned private-state key of the delivery.MoveRecord of a move.
const moveKey = "move"

// removeOld removes the old location of a move on another branch or repository after the new one was
// written, only while it holds the tree the plan listed.
func (r *GitopsCommitResource) removeOld(ctx context.Context, priorState tfsdk.State, planned tfsdk.Plan, rec *delivery.MoveRecord, diags *diag.Diagnostics) {
	var prior, m gitopsCommitModel
	if diags.Append(priorState.Get(ctx, &prior)...); diags.HasError() {
		return
	}
	if diags.Append(planned.Get(ctx, &m)...); diags.HasError() {
		return
	}
	from := r.settings(ctx, &prior, diags)
	req := from.MoveRemovalRequest(rec.Tree, m.ID.ValueString())
	req.Replaces = r.openProposal(ctx, &prior, diags) // proposed on the same head branch: updated in place, or closed
	if _, err := delivery.Deliver(ctx, r.client(&prior), r.data.GitHubClient, req); err != nil {
		diags.AddError("The old location of the moved resource was not emptied", fmt.Sprintf(
			"kalypso_gitops_commit %s: the new location %s is written, but removing the files at the old location failed: %s. "+
				"Terraform no longer tracks the old location: remove its files by hand, or move the resource back and forth again.", prior.ID.ValueString(), m.ID.ValueString(), err))
	}
}
