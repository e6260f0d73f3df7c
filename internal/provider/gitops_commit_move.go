// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// Moves of kalypso_gitops_commit (a change of repository_url, branch or path): the plan shows both
// sides; on one branch the apply writes both in one commit, elsewhere it writes the new location first
// and removes the old one after. The rules are internal/delivery's (move.go).

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// moveKey is the planned private-state key of the delivery.MoveRecord of a move.
const moveKey = "move"

// movePlan is the old side of a planned move.
type movePlan struct {
	old *delivery.RemovalPlan
	// key is the key in changes of a file of the old location (delivery.OldKey).
	key func(rel string) string
	// retain is true when the old files stay (retain_on_destroy).
	retain bool
}

func (m *movePlan) record() []byte {
	if m == nil || m.retain || m.old.Gone {
		return nil
	}
	return delivery.MoveRecord{Tree: m.old.Tree}.Marshal()
}

// planMove returns the old side when the plan moves the resource in state to another location (nil
// otherwise), with a warning that states what the move deletes there, or the refusal.
func (r *GitopsCommitResource) planMove(ctx context.Context, state, plan *gitopsCommitModel, diags *diag.Diagnostics) *movePlan {
	from, to := r.settings(ctx, state, diags), r.settings(ctx, plan, diags)
	c := r.client(plan)
	if diags.HasError() || !delivery.Moved(from, to, c.RepositoryKey) {
		return nil
	}
	sameBranch := delivery.SameBranch(from, to, c.RepositoryKey)
	sameRepo := c.RepositoryKey(from.RepoURL) == c.RepositoryKey(to.RepoURL)
	if sameBranch && (delivery.Overlaps(from.Path, to.Path)) {
		diags.AddAttributeError(path.Root("path"), "Cannot move into or out of the resource's own path", fmt.Sprintf(
			"kalypso_gitops_commit %s: path %q and the new path %q on the same branch contain one another, so removing the old files would remove "+
				"the new ones too. Nothing was written. Move in two steps: first to a path beside the old one, then to the new one.", state.ID.ValueString(), state.Path.ValueString(), plan.Path.ValueString()))
		return nil
	}
	retain := state.RetainOnDestroy.ValueBool()
	old := &delivery.RemovalPlan{RepoURL: from.RepoURL, Branch: from.Branch, Path: from.Path, ByDirectory: map[string]int{}}
	if !retain {
		var err error
		limit := to.MaxChanges
		if limit <= 0 {
			limit = delivery.DefaultMaxChanges
		}
		if old, err = delivery.PlanMove(ctx, r.client(state), from, limit); err != nil {
			diags.Append(deliveryDiag(state.ID.ValueString(), err))
			return nil
		}
	}
	d := delivery.DecideMove(old, plan.ID.ValueString(), retain, deletionProtected(*state), to.MaxDeletePercent)
	if d.Refusal != nil {
		diags.AddAttributeError(path.Root("deletion_protection"), "The move deletes files at the old location", fmt.Sprintf("kalypso_gitops_commit %s: %s.", state.ID.ValueString(), d.Refusal))
		return nil
	}
	how := "The apply writes the new location first, then removes the old one."
	if sameBranch {
		how = "The apply writes both in one commit."
	}
	diags.AddWarning("The resource moves: files are deleted at the old location", fmt.Sprintf("kalypso_gitops_commit %s: %s. %s", state.ID.ValueString(), d.Warning, how))
	return &movePlan{old: old, retain: retain, key: func(rel string) string { return delivery.OldKey(from, sameBranch, sameRepo, rel) }}
}

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

// keepRepositorySpelling plans the state's repository_url when the configuration names the same
// repository in another spelling (gitrepo.RepositoryKey, after git_url_rewrites): no change, so the plan
// is empty and the state keeps the spelling it was applied with. Terraform accepts a configured
// attribute planned as its prior value (the rule that semantic equality relies on). A custom type's
// semantic equality would not do: the framework checks it only after Create, Update and Read, never at
// plan, and an attribute plan modifier cannot reach the provider configuration's rewrites.
func (r *GitopsCommitResource) keepRepositorySpelling(state, plan *gitopsCommitModel) {
	if !gitopsKnown(state.RepositoryURL) || !gitopsKnown(plan.RepositoryURL) || state.RepositoryURL.Equal(plan.RepositoryURL) {
		return
	}
	c := r.client(plan)
	if c.RepositoryKey(state.RepositoryURL.ValueString()) == c.RepositoryKey(plan.RepositoryURL.ValueString()) {
		plan.RepositoryURL = state.RepositoryURL
	}
}
