// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// rollback and release_hold of kalypso_gitops_commit: their schema, their conversion, and the apply's
// side (the rollback's files, its commit message, the hold it records). The plan's side is the steps
// rollback and hold of internal/delivery (rollback.go).

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// holdKey is the private-state key of the delivery.Hold the last rollback recorded; autoRollbackKey, in
// the planned private state, the commit a halted rollout's plan rolls back to (rollout.on_failure).
const (
	holdKey         = "hold"
	autoRollbackKey = "auto_rollback"
)

var (
	gitopsRollbackTypes          = map[string]attr.Type{"to": types.StringType}
	gitopsWaveLastKnownGoodTypes = map[string]attr.Type{"name": types.StringType, "cluster_types": types.ListType{ElemType: types.StringType}, "commit": types.StringType, "tree": types.StringType}
	gitopsLastKnownGoodTypes     = map[string]attr.Type{"commit": types.StringType, "tree": types.StringType,
		"waves": types.ListType{ElemType: types.ObjectType{AttrTypes: gitopsWaveLastKnownGoodTypes}}}
)

func lastKnownGoodSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "With `rollout`: the last commit of `branch` whose tree under `path` every expected cluster reported healthy (on it or on a " +
			"later commit), read from the rollout's sources among the `rollout.history` newest commits, and that tree's Git id " +
			"(`content_hash`'s kind). A plan that writes something updates it; a plan that writes nothing keeps it, so that it stays empty. " +
			"Null without `rollout`, or when no commit read qualifies, for the environment or for any wave (`commit` and `tree` are null " +
			"while only a wave has one). `rollback = { to = \"last_known_good\" }` restores the commit the plan " +
			"finds then, which it shows in the plan.",
		Attributes: map[string]schema.Attribute{
			"commit": schema.StringAttribute{Computed: true, MarkdownDescription: "The commit's full id."},
			"tree":   schema.StringAttribute{Computed: true, MarkdownDescription: "The Git tree id of the managed files under `path` at that commit."},
			"waves": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "With `rollout.waves`, each wave's own last known good, in the order of the waves: the last commit whose content of the " +
					"wave's cluster-type folders every expected cluster of the wave reported healthy (on it or on a later commit): a wave " +
					"whose clusters are healthy keeps a later commit than the wave that failed. `commit` and `tree` are null " +
					"when no commit read qualifies. `rollback = { to = \"last_known_good\" }` restores the environment's commit, never a wave's: " +
					"the tree it writes is one every expected cluster reported healthy.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":          schema.StringAttribute{Computed: true, MarkdownDescription: "The wave's name."},
					"cluster_types": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Its cluster types, sorted."},
					"commit":        schema.StringAttribute{Computed: true, MarkdownDescription: "The commit's full id."},
					"tree":          schema.StringAttribute{Computed: true, MarkdownDescription: "The Git tree id of the managed files under `path` at that commit; the wave's folders in it are what its clusters reported healthy."},
				}},
			},
		},
	}
}

// lastKnownGoodValue is last_known_good as the plan knows it: unknown with a rollout while the step did
// not decide, null without one or when no commit qualifies. A plan that writes nothing keeps the state's
// value: every apply adds a commit nobody reported yet, and an attribute that moved with each report would
// make the plan after every apply non-empty (drift detection runs exactly that plan).
func lastKnownGoodValue(m *gitopsCommitModel, lkg *delivery.LastKnownGood, state *gitopsCommitModel, writes bool) types.Object {
	switch {
	case m.Rollout.IsNull():
		return types.ObjectNull(gitopsLastKnownGoodTypes)
	case state != nil && (lkg == nil || !writes) && !state.LastKnownGood.IsUnknown():
		return state.LastKnownGood
	case lkg == nil:
		return types.ObjectUnknown(gitopsLastKnownGoodTypes)
	case lkg.Commit == "" && !anyWaveGood(lkg.Waves):
		return types.ObjectNull(gitopsLastKnownGoodTypes)
	}
	return types.ObjectValueMust(gitopsLastKnownGoodTypes, map[string]attr.Value{"commit": nullIfEmpty(lkg.Commit), "tree": nullIfEmpty(lkg.Tree),
		"waves": waveLastKnownGoodValue(lkg.Waves)})
}

// anyWaveGood reports whether a wave has a last known good commit.
func anyWaveGood(waves []delivery.WaveLastKnownGood) bool {
	for _, w := range waves {
		if w.Commit != "" {
			return true
		}
	}
	return false
}

// waveLastKnownGoodValue is last_known_good.waves: null while the waves are not decided.
func waveLastKnownGoodValue(waves []delivery.WaveLastKnownGood) types.List {
	elem := types.ObjectType{AttrTypes: gitopsWaveLastKnownGoodTypes}
	if waves == nil {
		return types.ListNull(elem)
	}
	out := make([]attr.Value, len(waves))
	for i, w := range waves {
		cts := make([]attr.Value, len(w.ClusterTypes))
		for j, ct := range w.ClusterTypes {
			cts[j] = types.StringValue(ct)
		}
		out[i] = types.ObjectValueMust(gitopsWaveLastKnownGoodTypes, map[string]attr.Value{"name": types.StringValue(w.Name),
			"cluster_types": types.ListValueMust(types.StringType, cts), "commit": nullIfEmpty(w.Commit), "tree": nullIfEmpty(w.Tree)})
	}
	return types.ListValueMust(elem, out)
}

// applyWaves are the waves the apply writes (delivery.Resource.HoldBack): those of the planned
// rollout_status; none for the rollback a halted rollout proposed, which writes every wave and keeps the
// promoted commit, and whose rollout_status is the rollout after it.
func applyWaves(ctx context.Context, m *gitopsCommitModel, rolled *delivery.RolledBack, diags *diag.Diagnostics) []delivery.PlannedWave {
	if rolled != nil && rolled.Auto {
		return nil
	}
	return plannedWaves(ctx, m.RolloutStatus, diags)
}

// plannedLastKnownGood is the commit the plan found as last_known_good ("" for none).
func plannedLastKnownGood(m *gitopsCommitModel) string {
	if m.LastKnownGood.IsNull() || m.LastKnownGood.IsUnknown() {
		return ""
	}
	if v, ok := m.LastKnownGood.Attributes()["commit"].(types.String); ok {
		return v.ValueString()
	}
	return ""
}

type gitopsRollbackModel struct {
	To types.String `tfsdk:"to"`
}

func rollbackSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Roll the files under `path` back to what a commit of `branch` held there. The plan shows the exact reverse change in " +
			"`changes`, every file with its content, and passes the same guards and `change_windows` as any change; the render does not run, so a " +
			"configuration that fails to render does not stop the way back. The apply writes one commit whose message names both commits " +
			"(\"Roll back clusters on main to <to> (from <from>)\"), after which the tree under `path` equals that commit's byte for byte. " +
			"The tree it replaces is then **held**: once `rollback` is removed, while the configuration still renders that tree, the plan " +
			"writes nothing and warns what is held and since when; a change of input that renders another tree releases the hold, and so " +
			"does `release_hold = true`. With `rollout.waves` the hold is kept per cluster-type folder: a folder that still renders the " +
			"content that failed there stays held in every wave, a folder that renders other content is released on its own. " +
			"See the guide \"Recovery and change windows\".",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"to": schema.StringAttribute{Required: true, MarkdownDescription: "The commit to restore: its full id (or at least its first 7 hexadecimal " +
				"digits), the branch head or one of its first-parent ancestors. `last_known_good` names the last commit every expected cluster " +
				"reported healthy; it needs the rollout's sources, which this version does not configure on the resource yet."},
		},
	}
}

func releaseHoldSchema() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Write the tree a rollback held again, on purpose: the plan shows the change and warns that it releases the hold. " +
			"Without it, a configuration that still renders the rolled-back tree plans nothing (see `rollback`). With `rollout.waves` it " +
			"releases every held folder at once; the rollout writes them again, wave by wave.",
	}
}

// rollbackConfig converts rollback (nil when not set or not known yet).
func rollbackConfig(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) *delivery.Rollback {
	if m.Rollback.IsNull() || !fullyKnown(m.Rollback) {
		return nil
	}
	var rb gitopsRollbackModel
	if diags.Append(m.Rollback.As(ctx, &rb, objectAsOptions)...); diags.HasError() {
		return nil
	}
	return &delivery.Rollback{To: rb.To.ValueString()}
}

// privateFacts sets what the steps read from the prior private state: the last break-glass and the hold.
func privateFacts(ctx context.Context, private privateGetter, p *delivery.Planning) {
	p.BreakGlassUsed = breakGlassUsed(ctx, private)
	b, _ := private.GetKey(ctx, holdKey)
	p.Hold = delivery.ParseHold(b)
}

// applyDesired is the desired files of an apply: a rollback's (rolledBack set), or the render's or files'.
func (r *GitopsCommitResource) applyDesired(ctx context.Context, m *gitopsCommitModel, private privateGetter, diags *diag.Diagnostics) (desired, *delivery.RolledBack) {
	rb := rollbackConfig(ctx, m, diags)
	var auto string
	if b, _ := private.GetKey(ctx, autoRollbackKey); len(b) > 0 {
		_ = json.Unmarshal(b, &auto)
	}
	if rb == nil && auto != "" {
		rb = &delivery.Rollback{To: auto} // the rollback the plan of a halted rollout proposed
	}
	if rb == nil {
		return r.desiredFiles(ctx, m, diags, nil), nil
	}
	s := r.settings(ctx, m, diags)
	to := rb.To
	if lkg := plannedLastKnownGood(m); to == delivery.LastKnownGoodName && lkg != "" {
		to = lkg // the commit the plan resolved and showed, not one found since
	}
	files, rolled, err := delivery.RollbackFiles(ctx, r.client(m), s, to)
	if err != nil {
		diags.Append(deliveryDiag(m.ID.ValueString(), err))
		return desired{}, nil
	}
	rolled.Auto = auto != "" && rollbackConfig(ctx, m, diags) == nil
	return desired{files: files, known: true}, &rolled
}

// autoRollbackRecord is what the plan keeps for the apply of a rollback it proposed by itself (nil: none).
func autoRollbackRecord(p *delivery.Planning) []byte {
	if p.RolledBack == nil || !p.RolledBack.Auto {
		return nil
	}
	b, _ := json.Marshal(p.RolledBack.To) // private state holds JSON
	return b
}

// recordHold keeps, after an apply, the hold the apply leaves (delivery.Applying.HoldAfter; nil: none).
func (r *GitopsCommitResource) recordHold(ctx context.Context, h *delivery.Hold, private privateSetter, diags *diag.Diagnostics) {
	var b []byte
	if h != nil {
		b = h.Marshal()
	}
	diags.Append(private.SetKey(ctx, holdKey, b)...)
}
