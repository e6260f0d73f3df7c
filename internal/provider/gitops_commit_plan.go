// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// The plan of kalypso_gitops_commit: ModifyPlan (gitops_commit_resource.go) converts the plan and the
// state into a delivery.Planning here, runs the engine's steps (internal/delivery, steps.go), and reports
// here what they decided as planned values, private state and diagnostics. The decisions are the steps'.

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// The private-state keys of a replacement (delivery/replace.go): replacedKey, in an update's plan, names
// the object in state for the create's plan of a forced replacement; takeOverKey, in a create's plan, is
// the location it takes over, for the destroy of the object it replaces.
const (
	replacedKey = "replaced"
	takeOverKey = "take_over"
)

// privateGetter reads the resource's private state.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// planning converts the plan (nil on destroy) and the state (nil on create) for the engine's steps.
func (r *GitopsCommitResource) planning(ctx context.Context, plan, state *gitopsCommitModel, rend *planRenderer, private privateGetter, diags *diag.Diagnostics) *delivery.Planning {
	p := &delivery.Planning{
		Renderer: rend, Store: r.data.RenderStore(), Build: render.BuildID(), Now: r.data.Now(),
		Phase: func(msg string, start time.Time, err error) { phaseLog(ctx, msg, start, err) },
		Log:   func(msg string, fields map[string]any) { tflog.Warn(ctx, msg, fields) },
	}
	if r.data != nil {
		p.Locations, p.GitHub = r.data.Locations, r.data.GitHubClient
	}
	if plan != nil {
		p.Git = r.client(plan)
		p.Config = delivery.Config{
			Resource: r.settings(ctx, plan, diags), RawPath: plan.Path.ValueString(),
			RepoURLKnown: gitopsKnown(plan.RepositoryURL), BranchKnown: gitopsKnown(plan.Branch), PathKnown: gitopsKnown(plan.Path),
			SettingsKnown: !plan.PromotedCommitID.IsUnknown() && !plan.PullRequest.IsUnknown() && !plan.MaxChanges.IsUnknown() &&
				!plan.MaxDeletePercent.IsUnknown() && !plan.CreateBranch.IsUnknown() && !plan.Adopt.IsUnknown() && rolloutKnown(plan),
			PullRequestUnknown: plan.PullRequest.IsUnknown(), Window: windowConfig(ctx, plan, diags),
			Rollback: rollbackConfig(ctx, plan, diags), ReleaseHold: plan.ReleaseHold.ValueBool(),
		}
		p.Rollout = r.rolloutConfig(ctx, plan, diags)
	}
	if state == nil && plan != nil {
		b, _ := private.GetKey(ctx, replacedKey)
		p.Replaces = delivery.ParseReplaced(b)
	}
	if state != nil {
		p.PriorGit = r.client(state)
		p.Prior = &delivery.Prior{
			Resource: r.settings(ctx, state, diags), ID: state.ID.ValueString(), RawPath: state.Path.ValueString(),
			ContentHash: state.ContentHash.ValueString(), CommitSHA: state.CommitSHA.ValueString(), PullRequestState: state.PullRequestState.ValueString(),
			PullRequestNumber: wholeNumber(state.PullRequestNumber), DeletionReference: delivery.ParseReference(state.DeletionReference.ValueString()),
			Promoted: !state.PromotedCommitID.IsNull(), Retain: state.RetainOnDestroy.ValueBool(), Protected: deletionProtected(*state),
		}
	}
	return p
}

// lastRender is the render record of the last apply (nil on create): a plan with the same inputs may skip
// the render (delivery.RenderRecord).
func (r *GitopsCommitResource) lastRender(ctx context.Context, private privateGetter, state *gitopsCommitModel) *delivery.RenderRecord {
	if state == nil {
		return nil
	}
	b, _ := private.GetKey(ctx, renderRecordKey)
	return delivery.ParseRenderRecord(b)
}

// takenOver reports whether the destroy of the resource in state s writes nothing because the object
// that replaces it takes its location over: its plan recorded that in the planned private state Terraform
// hands this destroy, or, with create_before_destroy, it was created at that location in this process.
func (r *GitopsCommitResource) takenOver(ctx context.Context, private privateGetter, s delivery.Resource, state *gitopsCommitModel) bool {
	key := r.client(state).RepositoryKey
	if b, _ := private.GetKey(ctx, takeOverKey); delivery.ParseTakeOver(b).Covers(s, key) {
		return true
	}
	return r.data != nil && r.data.Locations.WasApplied(key(s.RepoURL), s.Branch, s.Path)
}

// reportPlan sets the planned values and private state from what the steps decided.
func (r *GitopsCommitResource) reportPlan(ctx context.Context, p *delivery.Planning, plan, state *gitopsCommitModel, prior tftypes.Value, rend *planRenderer, resp *resource.ModifyPlanResponse) {
	if gitopsKnown(plan.RepositoryURL) {
		plan.RepositoryURL = types.StringValue(p.Config.Resource.RepoURL) // the state's spelling of the same repository
	}
	if p.ID != "" {
		plan.ID = types.StringValue(p.ID)
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, moveKey, p.Move.Record())...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, autoRollbackKey, autoRollbackRecord(p))...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, replacedKey, p.ReplacedRecord())...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, takeOverKey, p.TakeOverRecord())...)
	plan.AdoptedFrom = adoptedFromValue(p, state)
	if cs := p.Changes; cs != nil {
		plan.setChanges(cs)
		plan.ChangesMarkdown = types.StringValue(p.Markdown)
		plan.BaseTreeID, plan.ContentHash = types.StringValue(cs.BaseTree), types.StringValue(cs.DesiredTree)
	} else {
		plan.changesUnknown()
		plan.BaseTreeID, plan.ContentHash = types.StringUnknown(), types.StringUnknown()
	}
	d := rend.d
	plan.RenderSummary = renderSummaryValue(plan, d.summary)
	if d.reused != "" || p.RolledBack != nil && state != nil {
		plan.RenderSummary = state.RenderSummary // same inputs, same render; or no render (a rollback)
		tflog.Info(ctx, "render reused: the render inputs are those of the last apply and the branch still holds its tree")
	}
	plan.RolloutStatus = rolloutStatusValue(plan, p.Waves)
	plan.LastKnownGood = lastKnownGoodValue(plan, p.LastKnownGood, state, p.Decision.CommitUnknown)
	planDecision(ctx, p.Decision, plan, state)
	planReference(p, plan, state)
	if p.Changes != nil && d.record.Inputs != "" {
		// The apply finds the plan's tree by these (in this process, or in the local render store).
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, plannedRenderKey, delivery.RenderRecord{Inputs: d.record.Inputs, Tree: p.Changes.DesiredTree}.Marshal())...)
	}
	plan.withoutWriteOnlyManifests()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	if !plan.Rollout.IsNull() && resp.Plan.Raw.Equal(prior) {
		// Nothing changes, so no apply (and no apply-time plan) follows: the next plan decides the waves afresh.
		r.data.RenderStore().DropWaves(p.ID)
	}
}

// adoptedFromValue is the planned adopted_from: the identity the plan's ownership record carries once the
// change set is known (null for a resource that claimed its path first), the state's until then.
func adoptedFromValue(p *delivery.Planning, state *gitopsCommitModel) types.String {
	switch {
	case p.Changes != nil && p.Config.Resource.AdoptedFrom == "":
		return types.StringNull()
	case p.Changes != nil:
		return types.StringValue(p.Config.Resource.AdoptedFrom)
	case state != nil:
		return state.AdoptedFrom
	}
	return types.StringUnknown()
}

// planDecision sets what a plan keeps from the state or leaves unknown (delivery.DecidePlan).
func planDecision(ctx context.Context, decision delivery.PlanDecision, plan, state *gitopsCommitModel) {
	switch {
	case decision.CommitUnknown:
		plan.CommitSHA = types.StringUnknown()
	case decision.KeepRecorded:
		tflog.Info(ctx, "nothing to write: the branch already holds the desired files under path")
		plan.CommitSHA, plan.BaseTreeID = state.CommitSHA, state.BaseTreeID
		plan.changesFrom(state)
		plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = state.PullRequestNumber, state.PullRequestURL, state.PullRequestState
		if !plan.PullRequest.IsNull() && state.PullRequestState.IsNull() {
			// Pull-request mode newly set (or imported): the apply has nothing to propose and records "none".
			plan.PullRequestState = types.StringValue(delivery.PullRequestNone)
		}
	}
	if decision.PullRequestUnknown {
		plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	if decision.PullRequestNull {
		plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = types.StringNull(), types.StringNull(), types.StringNull()
	}
}

// planRenderer is the delivery.Renderer of a plan: files mode reads the files, render mode renders (or
// reuses the last apply's tree, or loads an earlier plan's from the render store). It keeps the render's
// diagnostics, with their attribute paths, for ModifyPlan to report.
type planRenderer struct {
	r *GitopsCommitResource
	m *gitopsCommitModel
	// last is the render record of the last apply (nil on create).
	last  *delivery.RenderRecord
	d     desired
	diags diag.Diagnostics
}

func (pr *planRenderer) Desired(ctx context.Context, reuse bool) (delivery.Rendered, error) {
	pr.diags = nil
	var last *delivery.RenderRecord
	if reuse {
		last = pr.last
	}
	pr.d = pr.r.desiredFiles(ctx, pr.m, &pr.diags, last)
	if pr.diags.HasError() {
		return delivery.Rendered{}, delivery.ErrReported
	}
	out := delivery.Rendered{Known: pr.d.known, Files: pr.d.files, Reused: pr.d.reused, Stored: pr.d.stored, ConfigKey: pr.d.configKey, ClusterTypes: pr.d.labels}
	if pr.d.summary != nil {
		out.Workloads = pr.d.summary.Workloads
	}
	return out, nil
}

func (pr *planRenderer) Keep(ctx context.Context, t *gitrepo.Tree) {
	if !pr.m.Rollout.IsNull() {
		return // the tree of what this apply writes, not the render's: another resource must not reuse it
	}
	pr.d.cached.rememberTree(t)
	pr.r.keepRender(ctx, pr.d, t)
}

// planReference sets deletion_reference: what the reference step decided, the state's when the plan
// writes nothing, unknown while the change set is.
func planReference(p *delivery.Planning, plan, state *gitopsCommitModel) {
	switch {
	case p.Reference != "":
		plan.DeletionReference = types.StringValue(p.Reference)
	case p.Changes != nil && state != nil:
		plan.DeletionReference = state.DeletionReference
	default:
		plan.DeletionReference = types.StringUnknown()
	}
}
