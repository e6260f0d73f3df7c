// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// kalypso_gitops_commit's rollout: a progressive rollout inside the environment, in waves of cluster
// types (issue 31). The schema of `rollout` and `rollout_status`, their conversion into delivery.Rollout,
// and the wave plan into `rollout_status`. The decisions are the engine's: rollout.PlanWaves, and the
// waves step of the plan (internal/delivery, waves.go).

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

type gitopsRolloutModel struct {
	Waves    []gitopsWaveModel `tfsdk:"waves"`
	Expected types.Object      `tfsdk:"expected"`
	rolloutSourceBlocks
	ProgressDeadline types.String `tfsdk:"progress_deadline"`
	Paused           types.Bool   `tfsdk:"paused"`
	OnFailure        types.String `tfsdk:"on_failure"`
	History          types.String `tfsdk:"history"`
	MaxClusters      types.String `tfsdk:"max_clusters"`
}

type gitopsWaveModel struct {
	Name              types.String `tfsdk:"name"`
	ClusterTypes      types.List   `tfsdk:"cluster_types"`
	ClusterTypeLabels types.Map    `tfsdk:"cluster_type_labels"`
	SoakTime          types.String `tfsdk:"soak_time"`
	MaxFailures       types.String `tfsdk:"max_failures"`
}

type gitopsRolloutExpectedModel struct {
	Clusters                  map[string][]types.String `tfsdk:"clusters"`
	MinClustersPerClusterType types.String              `tfsdk:"min_clusters_per_cluster_type"`
}

// gitopsRolloutAttrTypes are the types of `rollout`'s value, for a null one.
var gitopsRolloutAttrTypes = func() map[string]attr.Type {
	t, _ := gitopsRolloutAttribute().GetType().(types.ObjectType) // a SingleNestedAttribute's type is an object type
	return t.AttrTypes
}()

// rolloutOnFailureHalt is on_failure's default: a failed wave halts the rollout; with
// delivery.OnFailureRollback the plan rolls back to the last known good commit.
const rolloutOnFailureHalt = "halt"

var gitopsWaveStatusTypes = map[string]attr.Type{
	"name": types.StringType, "cluster_types": types.ListType{ElemType: types.StringType}, "state": types.StringType,
	"pending_files": types.StringType, "pending_cluster_types": types.StringType, "reason": types.StringType,
}

// gitopsRolloutAttribute is the schema of `rollout`.
func gitopsRolloutAttribute() schema.SingleNestedAttribute {
	a := schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Roll a change out across the environment's cluster types in waves, one wave per apply, each only once the clusters " +
			"of every earlier wave reported it healthy. The cluster types are the folders under `path` (render mode: the rendered cluster types, " +
			"with their labels). The apply writes only the admitted wave's folders; the other folders keep their bytes, and files outside the " +
			"cluster types' folders, such as `" + promotedCommitFile + "`, move with the last wave. `rollout_status` shows each wave. " +
			"Needs direct mode (no `pull_request`). See the guide \"Progressive rollout\".",
		Attributes: map[string]schema.Attribute{
			"waves": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "The waves, in order. A cluster type belongs to the first wave that selects it; a wave without a selector takes " +
					"every cluster type no earlier wave took and must be the last. A cluster type that no wave takes is an error.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "The wave's name, unique among the waves.",
						Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"cluster_types": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Cluster types the wave takes, by name.",
						Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
							listvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("cluster_type_labels"))}},
					"cluster_type_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Cluster types the wave takes, by their labels: every label must match (render mode).",
						Validators:          []validator.Map{mapvalidator.SizeAtLeast(1)}},
					"soak_time": schema.StringAttribute{Optional: true,
						MarkdownDescription: "How long each of the wave's clusters must have reported success before the next wave may start (a Go duration such as `\"30m\"`).",
						Validators:          []validator.String{validators.Duration()}},
					"max_failures": schema.StringAttribute{Optional: true,
						MarkdownDescription: "How many of the wave's clusters may fail without halting the rollout, a whole number (`max_failures = 1`; kept as a string, " +
							"see `changes_summary`). Defaults to `0`.",
						Validators: []validator.String{validators.WholeNumberString(0, 1000000)}},
				}},
			},
			"expected": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Which clusters must report. Zero reporting clusters never count: a cluster type without a list needs at least " +
					"`min_clusters_per_cluster_type` reporters (1 by default), and every cluster that reports for it must succeed.",
				Attributes: map[string]schema.Attribute{
					"clusters": schema.MapAttribute{Optional: true, ElementType: types.ListType{ElemType: types.StringType},
						MarkdownDescription: "Per cluster type, the clusters that must report, by name or full identity (see `kalypso_rollout`'s `clusters[*].id`)."},
					"min_clusters_per_cluster_type": schema.StringAttribute{Optional: true,
						MarkdownDescription: "How many clusters of a cluster type without a list must report (the source must tell the cluster type, " +
							"for example a context pattern's `cluster_type` group), a whole number kept as a string. Defaults to `1`.",
						Validators: []validator.String{validators.WholeNumberString(1, 1000000)}},
				},
			},
			"progress_deadline": schema.StringAttribute{Optional: true,
				MarkdownDescription: "A wave whose clusters have not all succeeded this long after its folders changed halts the rollout (a Go duration). Defaults to none.",
				Validators:          []validator.String{validators.Duration()}},
			"paused": schema.BoolAttribute{Optional: true, MarkdownDescription: "Write nothing, and say so. Defaults to `false`."},
			"on_failure": schema.StringAttribute{Optional: true,
				MarkdownDescription: "What a wave with more failures than `max_failures`, or past `progress_deadline`, does: `halt` (nothing more is written until the " +
					"clusters recover or a new change starts the rollout again), or `rollback`: the plan of the halted rollout proposes by itself the rollback to " +
					"`last_known_good` (as `rollback = { to = \"last_known_good\" }` would, all cluster types at once), and the tree it replaces is held. " +
					"There is no rollback of a rollback: while the hold of a rollback stands, a failure halts. Defaults to `halt`.",
				Validators: []validator.String{stringvalidator.OneOf(rolloutOnFailureHalt, delivery.OnFailureRollback)}},
			"history": schema.StringAttribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("How many commits of the branch to read reports about; one status request each; a whole number kept as a string. Defaults to %d.", rollout.DefaultHistory),
				Validators:          []validator.String{validators.WholeNumberString(1, 1000)}},
			"max_clusters": schema.StringAttribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("More clusters (or status contexts on one commit) than this is an error; a whole number kept as a string. Defaults to %d.", rollout.DefaultMaxClusters),
				Validators:          []validator.String{validators.WholeNumberString(1, 100000)}},
		},
	}
	maps.Copy(a.Attributes, rolloutSourceResourceAttributes())
	return a
}

// gitopsRolloutStatusAttribute is the schema of `rollout_status`.
func gitopsRolloutStatusAttribute() schema.ListNestedAttribute {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "With `rollout`: every wave as it stands once this apply is done (the plan shows it before). Null without `rollout`. " +
			"The plan's warning says which waves stay behind and why, with what changes with the clock (how far a soak got).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":          computed("The wave's name."),
			"cluster_types": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Its cluster types, sorted."},
			"state": computed("`done` (its folders hold the desired content and its clusters reported it healthy), `current` (the wave this apply writes, " +
				"or whose clusters the rollout waits for), `waiting` (behind the current wave), `blocked` (behind a halted wave), `halted` or `paused`."),
			"pending_files":         computed("How many files of its folders (and, for the last wave, outside them) still differ from the desired tree after this apply."),
			"pending_cluster_types": computed("How many of its cluster types still have such a file, of the environment's cluster types: `2 of 10`."),
			"reason":                computed("Why it is in its state, for example `waits: 3/4 clusters succeeded; drone-2 has not reported`."),
		}},
	}
}

// rolloutKnown reports whether m's rollout is null or known all through: a plan that does not know its
// waves yet cannot tell which files the apply writes, so its change set stays unknown.
func rolloutKnown(m *gitopsCommitModel) bool { return m.Rollout.IsNull() || known(m.Rollout) }

// known reports whether v and every value inside it are known.
func known(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	var elems []attr.Value
	switch c := v.(type) {
	case types.Object:
		for _, e := range c.Attributes() {
			elems = append(elems, e)
		}
	case types.List:
		elems = c.Elements()
	case types.Map:
		for _, e := range c.Elements() {
			elems = append(elems, e)
		}
	}
	for _, e := range elems {
		if !known(e) {
			return false
		}
	}
	return true
}

// rolloutConfig converts m's rollout (nil without one, or while a value in it is unknown). The source is
// built here; its reads happen in the waves step.
func (r *GitopsCommitResource) rolloutConfig(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) *delivery.Rollout {
	if m.Rollout.IsNull() || !known(m.Rollout) {
		return nil
	}
	var rm gitopsRolloutModel
	if diags.Append(m.Rollout.As(ctx, &rm, objectAsOptions)...); diags.HasError() {
		return nil
	}
	at := path.Root("rollout")
	out := &delivery.Rollout{Now: r.data.Now(), Paused: rm.Paused.ValueBool(), History: wholeNumber(rm.History), OnFailure: rm.OnFailure.ValueString()}
	if s := rm.ProgressDeadline.ValueString(); s != "" {
		out.Deadline, _ = time.ParseDuration(s) // validated
	}
	for _, w := range rm.Waves {
		wave := rollout.Wave{Name: w.Name.ValueString(), MaxFailures: wholeNumber(w.MaxFailures)}
		if s := w.SoakTime.ValueString(); s != "" {
			wave.Soak, _ = time.ParseDuration(s)
		}
		if !w.ClusterTypes.IsNull() {
			diags.Append(w.ClusterTypes.ElementsAs(ctx, &wave.ClusterTypes, false)...)
		}
		if !w.ClusterTypeLabels.IsNull() {
			diags.Append(w.ClusterTypeLabels.ElementsAs(ctx, &wave.Labels, false)...)
		}
		out.Waves = append(out.Waves, wave)
	}
	if !rm.Expected.IsNull() {
		var e gitopsRolloutExpectedModel
		diags.Append(rm.Expected.As(ctx, &e, objectAsOptions)...)
		out.Expect.MinPerClusterType = wholeNumber(e.MinClustersPerClusterType)
		for ct, names := range e.Clusters {
			if out.Expect.Clusters == nil {
				out.Expect.Clusters = map[string][]string{}
			}
			for _, n := range names {
				out.Expect.Clusters[ct] = append(out.Expect.Clusters[ct], n.ValueString())
			}
		}
	}
	if err := rollout.ValidateWaves(out.Waves); err != nil {
		diags.AddAttributeError(at.AtName("waves"), "Invalid rollout", err.Error()+".")
	}
	if diags.HasError() {
		return nil
	}
	limit := wholeNumber(rm.MaxClusters)
	if limit == 0 {
		limit = rollout.DefaultMaxClusters
	}
	var d diag.Diagnostics
	src, block := rm.source()
	out.Source, d = src.build(ctx, r.data, block, at.AtName(src.attr), m.RepositoryURL.ValueString(), m.Branch.ValueString(), limit, d)
	if diags.Append(d...); diags.HasError() {
		return nil
	}
	return out
}

// rolloutStatusValue is rollout_status: null without a rollout, unknown while the plan cannot decide it.
func rolloutStatusValue(m *gitopsCommitModel, w *rollout.WavePlan) types.List {
	elem := types.ObjectType{AttrTypes: gitopsWaveStatusTypes}
	switch {
	case m.Rollout.IsNull():
		return types.ListNull(elem)
	case w == nil:
		return types.ListUnknown(elem)
	}
	waves := make([]attr.Value, 0, len(w.Waves))
	for _, s := range w.Waves {
		pending, types_ := s.PendingFiles, s.PendingClusterTypes
		if s.Writes { // as it stands once this apply is done
			pending, types_ = 0, 0
		}
		cts := make([]attr.Value, len(s.ClusterTypes))
		for i, ct := range s.ClusterTypes {
			cts[i] = types.StringValue(ct)
		}
		waves = append(waves, types.ObjectValueMust(gitopsWaveStatusTypes, map[string]attr.Value{
			"name": types.StringValue(s.Name), "cluster_types": types.ListValueMust(types.StringType, cts), "state": types.StringValue(string(s.State)),
			"pending_files": types.StringValue(fmt.Sprint(pending)), "pending_cluster_types": types.StringValue(fmt.Sprintf("%d of %d", types_, w.TotalClusterTypes)),
			"reason": types.StringValue(s.Reason),
		}))
	}
	return types.ListValueMust(elem, waves)
}

// plannedWaves reads the waves back from the planned rollout_status, for the apply (delivery.Resource.HoldBack).
func plannedWaves(ctx context.Context, status types.List, diags *diag.Diagnostics) []delivery.PlannedWave {
	var waves []struct {
		Name         types.String   `tfsdk:"name"`
		ClusterTypes []types.String `tfsdk:"cluster_types"`
		State        types.String   `tfsdk:"state"`
		Pending      types.String   `tfsdk:"pending_files"`
		PendingTypes types.String   `tfsdk:"pending_cluster_types"`
		Reason       types.String   `tfsdk:"reason"`
	}
	if diags.Append(status.ElementsAs(ctx, &waves, false)...); diags.HasError() {
		return nil
	}
	out := make([]delivery.PlannedWave, len(waves))
	for i, w := range waves {
		out[i].Current = w.State.ValueString() == string(rollout.WaveCurrent)
		for _, ct := range w.ClusterTypes {
			out[i].ClusterTypes = append(out[i].ClusterTypes, ct.ValueString())
		}
	}
	return out
}

// clusterTypeLabels are the labels of the cluster types in a render's manifests (nil when they do not
// parse: the render reports that).
func clusterTypeLabels(manifests []string) map[string]map[string]string {
	set, diags := model.Parse(manifests)
	if set == nil || diags.HasError() {
		return nil
	}
	out := make(map[string]map[string]string, len(set.ClusterTypes))
	for _, ct := range set.ClusterTypes {
		out[ct.Metadata.Name] = ct.Metadata.Labels
	}
	return out
}
