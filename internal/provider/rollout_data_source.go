// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ datasource.DataSource                     = &RolloutDataSource{}
	_ datasource.DataSourceWithConfigure        = &RolloutDataSource{}
	_ datasource.DataSourceWithConfigValidators = &RolloutDataSource{}
)

// RolloutDataSource is kalypso_rollout: how far an environment's clusters got with its GitOps branch,
// and, with `promotion`, the control-plane commit the next environment may move to.
type RolloutDataSource struct {
	provider *ProviderData
}

// NewRolloutDataSource returns the data source.
func NewRolloutDataSource() datasource.DataSource { return &RolloutDataSource{} }

// RolloutModel is the data source's configuration and state.
type RolloutModel struct {
	Environment   types.String `tfsdk:"environment"`
	RepositoryURL types.String `tfsdk:"repository_url"`
	Branch        types.String `tfsdk:"branch"`
	History       types.Int64  `tfsdk:"history"`
	Expected      types.Object `tfsdk:"expected"`
	SoakTime      types.String `tfsdk:"soak_time"`
	MaxClusters   types.Int64  `tfsdk:"max_clusters"`
	FailOnFailure types.Bool   `tfsdk:"fail_on_failure"`
	Promotion     types.Object `tfsdk:"promotion"`
	rolloutSourceBlocks

	HeadCommit              types.String `tfsdk:"head_commit"`
	HeadPromotedCommit      types.String `tfsdk:"head_promoted_commit"`
	State                   types.String `tfsdk:"state"`
	Summary                 types.String `tfsdk:"summary"`
	Counts                  types.Object `tfsdk:"counts"`
	Clusters                types.List   `tfsdk:"clusters"`
	SucceededCommit         types.String `tfsdk:"succeeded_commit"`
	SucceededPromotedCommit types.String `tfsdk:"succeeded_promoted_commit"`
	PromotionCommit         types.String `tfsdk:"promotion_commit"`
	PromotionMoves          types.Bool   `tfsdk:"promotion_moves"`
	PromotionReason         types.String `tfsdk:"promotion_reason"`
}

type rolloutExpectedModel struct {
	Clusters     []types.String         `tfsdk:"clusters"`
	MinClusters  types.Int64            `tfsdk:"min_clusters"`
	ClusterTypes map[string]types.Int64 `tfsdk:"cluster_types"`
}

type rolloutPromotionModel struct {
	To             types.String `tfsdk:"to"`
	ToBranch       types.String `tfsdk:"to_branch"`
	CurrentCommit  types.String `tfsdk:"current_commit"`
	ControlPlane   types.Object `tfsdk:"control_plane"`
	AllowBackwards types.Bool   `tfsdk:"allow_backwards"`
}

type rolloutControlPlaneModel struct {
	Repo   types.String `tfsdk:"repo"`
	Branch types.String `tfsdk:"branch"`
}

var (
	rolloutCountsTypes = map[string]attr.Type{
		"expected": types.Int64Type, "succeeded": types.Int64Type, "progressing": types.Int64Type, "failed": types.Int64Type, "unknown": types.Int64Type,
	}
	rolloutClusterTypes = map[string]attr.Type{
		"name": types.StringType, "id": types.StringType, "cluster_type": types.StringType, "commit": types.StringType, "state": types.StringType,
		"message": types.StringType, "reported_at": types.StringType, "expected": types.BoolType,
	}
)

func (d *RolloutDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rollout"
}

func (d *RolloutDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reports how far the clusters of an environment got with the commits of its GitOps branch, from what they report " +
			"(commit statuses that Flux's notification-controller posts with a `github` provider or Argo CD notifications post, or the Flux configurations " +
			"Azure Resource Graph holds for Arc-enabled and AKS clusters), and, with `promotion`, " +
			"which control-plane commit the next environment may move to: the newest one this environment rolled out on every expected cluster, " +
			"never skipping an environment and never moving backwards unless asked. See the [promotion guide](../guides/promotion.md).",
		Attributes: map[string]schema.Attribute{
			"environment": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Name of the environment in messages. Defaults to `branch`.",
			},
			"repository_url": schema.StringAttribute{
				Required: true, MarkdownDescription: "GitOps repository URL (read with the provider's Git credentials and `git_url_rewrites`).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"branch": schema.StringAttribute{
				Required: true, MarkdownDescription: "The environment's GitOps branch, for example `dev`.",
				Validators: []validator.String{validators.BranchName()},
			},
			"history": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("How many commits of the branch (first parents, newest first) to examine; one status request each. Defaults to %d.", rollout.DefaultHistory),
				Validators: []validator.Int64{int64validator.Between(1, 1000)},
			},
			"expected": schema.SingleNestedAttribute{
				Required: true,
				MarkdownDescription: "Which clusters must report before the environment counts as rolled out. Set at least one; zero reporting clusters never count. " +
					"A cluster that reports nothing is `unknown`.",
				Attributes: map[string]schema.Attribute{
					"clusters": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Every cluster that must report, by the name the source gives it (the `cluster` group of a context pattern, an Azure cluster's name) " +
							"or by its full identity (`clusters[*].id`: an Azure cluster's resource ID; `<cluster>@<account>` for commit statuses). " +
							"Other clusters are listed but do not count. A name that two clusters share (`aks-dev` in two resource groups) is an error: list their identities.",
						Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
					},
					"min_clusters": schema.Int64Attribute{
						Optional: true, MarkdownDescription: "How many distinct clusters must report, whatever their names.",
						Validators: []validator.Int64{int64validator.AtLeast(1)},
					},
					"cluster_types": schema.MapAttribute{
						Optional: true, ElementType: types.Int64Type,
						MarkdownDescription: "How many clusters of each cluster type must report (the `cluster_type` group of a context pattern). Clusters of other types do not count.",
					},
				},
				Validators: []validator.Object{objectvalidator.AtLeastOneOf(
					path.MatchRoot("expected").AtName("clusters"), path.MatchRoot("expected").AtName("min_clusters"), path.MatchRoot("expected").AtName("cluster_types"))},
			},
			"soak_time": schema.StringAttribute{
				Optional: true, MarkdownDescription: "How long a cluster must have reported success before it counts (a Go duration such as `\"15m\"`). Defaults to none.",
				Validators: []validator.String{validators.Duration()},
			},
			"max_clusters": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("More clusters (or status contexts on one commit) than this is an error. Defaults to %d.", rollout.DefaultMaxClusters),
				Validators: []validator.Int64{int64validator.Between(1, 100000)},
			},
			"fail_on_failure": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Fail the read (and the plan) when an expected cluster reports a failure, instead of a warning. Defaults to `false`.",
			},
			"promotion": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Decide the control-plane commit of the next environment: `promotion_commit` is the newest commit this environment rolled out " +
					"on every expected cluster when that is ahead of the next environment's current commit, and the current commit otherwise, with a warning saying why.",
				Attributes: map[string]schema.Attribute{
					"to": schema.StringAttribute{Required: true, MarkdownDescription: "The next environment, for example `stage`.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"to_branch": schema.StringAttribute{
						Optional: true, MarkdownDescription: "Its GitOps branch in the same repository, whose `Promoted_Commit_Id` is its current commit. Defaults to `to`.",
						Validators: []validator.String{validators.BranchName()},
					},
					"current_commit": schema.StringAttribute{
						Optional: true, MarkdownDescription: "The next environment's current control-plane commit, instead of reading `to_branch`, for a branch elsewhere. " +
							"Not needed for a first promotion: a `to_branch` that does not exist yet has no current commit. Once set, the gate compares with it instead of the branch's `Promoted_Commit_Id`, so remove it after a promotion it was set for.",
						Validators: []validator.String{validators.CommitSHA()},
					},
					"control_plane": schema.SingleNestedAttribute{
						Required: true, MarkdownDescription: "The control-plane branch the promoted commits belong to, to check that a promotion moves forward.",
						Attributes: map[string]schema.Attribute{
							"repo":   schema.StringAttribute{Required: true, MarkdownDescription: "Control-plane repository URL.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
							"branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Its branch. Defaults to `main`.", Validators: []validator.String{validators.BranchName()}},
						},
					},
					"allow_backwards": schema.BoolAttribute{Optional: true, MarkdownDescription: "Let the next environment move to an older commit (a rollback). Defaults to `false`."},
				},
			},
			"head_commit":               computed("Head of `branch`."),
			"head_promoted_commit":      computed("`.github/tracking/Promoted_Commit_Id` at the head; null when absent."),
			"state":                     computed("`succeeded` (every expected cluster succeeded with the head), `failed` (one reports a failure), `progressing`, or `unknown` (none reported)."),
			"summary":                   computed("One line, for example `9/12 clusters succeeded, 1 failed (drone-7: ...)`."),
			"succeeded_commit":          computed("The newest commit of `branch` that every expected cluster succeeded with (or with a newer one); null when none."),
			"succeeded_promoted_commit": computed("`Promoted_Commit_Id` at `succeeded_commit`: the newest control-plane commit this environment rolled out."),
			"promotion_commit": computed("With `promotion`: the control-plane commit the next environment renders. Pin `kalypso_control_plane.git.commit` and " +
				"`kalypso_gitops_commit.promoted_commit_id` to it. Null when the next environment has none yet and nothing can be promoted."),
			"promotion_moves":  schema.BoolAttribute{Computed: true, MarkdownDescription: "With `promotion`: whether `promotion_commit` differs from the next environment's current commit."},
			"promotion_reason": computed("With `promotion`: why, for example `dev is at main@abc1234: 9/12 clusters succeeded, 1 failed (drone-7: ...); stage stays at main@9f0e2d1`."),
			"counts": schema.SingleNestedAttribute{
				Computed: true, MarkdownDescription: "Expected clusters by state.",
				Attributes: map[string]schema.Attribute{
					"expected":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Clusters that count."},
					"succeeded":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Succeeded with the head."},
					"progressing": schema.Int64Attribute{Computed: true, MarkdownDescription: "Pending, soaking, or done with an older commit only."},
					"failed":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Latest report is a failure."},
					"unknown":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Expected but silent."},
				},
			},
			"clusters": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Every cluster that reported, and every expected one, by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":         computed("Cluster name."),
					"id":           computed("Its full identity: an Azure cluster's resource ID (lower case), or `<cluster>@<account that posted the statuses>`. Two clusters may share a name, never an identity."),
					"cluster_type": computed("Cluster type, when the source knows it."),
					"commit":       computed("The newest GitOps commit it reported about; empty when silent."),
					"state":        computed("`succeeded`, `progressing`, `failed` or `unknown`."),
					"message":      computed("What it reported (per reconciler)."),
					"reported_at":  computed("When it last reported about `commit` (RFC 3339)."),
					"expected":     schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it counts towards `state`."},
				}},
			},
		},
	}
	maps.Copy(resp.Schema.Attributes, rolloutSourceDataSourceAttributes(false))
}

func (d *RolloutDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	sources := make([]path.Expression, len(rolloutSources))
	for i, src := range rolloutSources {
		sources[i] = path.MatchRoot(src.attr)
	}
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(sources...)}
}

func (d *RolloutDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		d.provider = data
	}
}

func (d *RolloutDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data RolloutModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	git := d.provider.GitClient()
	rreq, diags := d.request(ctx, &data)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := data.Environment.ValueString()
	if env == "" {
		env = data.Branch.ValueString()
	}
	source, _ := data.source()
	res, err := rollout.Read(ctx, git, rreq)
	if err != nil {
		resp.Diagnostics.Append(rolloutError(err, env, source)...)
		return
	}
	data.fill(res)
	switch {
	case res.State == rollout.Failed && data.FailOnFailure.ValueBool():
		resp.Diagnostics.AddAttributeError(path.Root("fail_on_failure"), "Rollout failed", fmt.Sprintf("%s: %s. Fix the failing clusters (or unset fail_on_failure).", env, res.Summary()))
		return
	case res.State == rollout.Unknown:
		// What to check depends on where the reports come from.
		hint := source.noReportHint(rreq.Source)
		resp.Diagnostics.AddAttributeWarning(path.Root("expected"), "No cluster reported",
			fmt.Sprintf("%s: no expected cluster reported about the last %d commits of %q: %s. %s", env, rreq.History, rreq.Branch, res.Summary(), hint))
	}
	if !data.Promotion.IsNull() {
		resp.Diagnostics.Append(d.promote(ctx, git, &data, env, res)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// request converts the configuration into the engine's request.
func (d *RolloutDataSource) request(ctx context.Context, data *RolloutModel) (rollout.Request, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := rollout.Request{Repo: data.RepositoryURL.ValueString(), Branch: data.Branch.ValueString(), History: int(data.History.ValueInt64())}
	if req.History == 0 {
		req.History = rollout.DefaultHistory
	}
	var exp rolloutExpectedModel
	diags.Append(data.Expected.As(ctx, &exp, objectAsOptions)...)
	if diags.HasError() {
		return req, diags
	}
	opts := rollout.Options{Now: time.Now(), MaxClusters: int(data.MaxClusters.ValueInt64())}
	for _, c := range exp.Clusters {
		opts.Expect.Clusters = append(opts.Expect.Clusters, c.ValueString())
	}
	opts.Expect.MinClusters = int(exp.MinClusters.ValueInt64())
	for k, v := range exp.ClusterTypes {
		if opts.Expect.ClusterTypes == nil {
			opts.Expect.ClusterTypes = map[string]int{}
		}
		opts.Expect.ClusterTypes[k] = int(v.ValueInt64())
	}
	if s := data.SoakTime.ValueString(); s != "" {
		opts.Soak, _ = time.ParseDuration(s) // validated at plan time
	}
	if opts.MaxClusters == 0 {
		opts.MaxClusters = rollout.DefaultMaxClusters
	}
	req.Options = opts

	src, block := data.source()
	req.Source, diags = src.build(ctx, d.provider, block, path.Root(src.attr), data.RepositoryURL.ValueString(), data.Branch.ValueString(), opts.MaxClusters, diags)
	return req, diags
}

// azureOverride replaces, in tests only, the two things kalypso_rollout's azure_resource_graph cannot
// reach from a test machine: Entra ID (the credential that gets the token) and the trust of a local
// Resource Graph server's certificate (the client's transport). The provider test's factories set it
// on KalypsoProvider; configuration cannot, so production always authenticates as configured.
type azureOverride struct {
	credential    azcore.TokenCredential
	clientOptions *arm.ClientOptions
}

// rolloutCommonError adds the diagnostic of an error of a read that is no source's own (the GitOps
// branch, the expectations, an outbound bound at the source's block at) and reports true, or reports
// false for an error the source explains (rolloutError).
func rolloutCommonError(err error, env string, at path.Path, diags *diag.Diagnostics) bool {
	var gerr *gitrepo.Error
	switch {
	case errors.As(err, &gerr):
		hint, attr := gitrepo.Hint(err, gitrepo.Fields{Repo: "repository_url", Branch: "branch"})
		at := path.Root("repository_url")
		if attr == "branch" {
			at = path.Root("branch")
		}
		diags.AddAttributeError(at, "Cannot read the GitOps branch", err.Error()+". "+hint)
	case errors.Is(err, rollout.ErrMalformedPromoted):
		diags.AddAttributeError(path.Root("branch"), "Cannot read the GitOps branch", err.Error()+".")
	case errors.Is(err, outbound.ErrThrottled), errors.Is(err, outbound.ErrTimeout), errors.Is(err, outbound.ErrTooLarge),
		errors.Is(err, outbound.ErrRedirect), errors.Is(err, githubpr.ErrEndlessPages):
		// The error names the bound and the attribute that raises it, when one exists.
		diags.AddAttributeError(at, "Cannot read the rollout of "+env, err.Error()+"; nothing was written.")
	case errors.Is(err, rollout.ErrAmbiguousCluster):
		diags.AddAttributeError(path.Root("expected").AtName("clusters"), "Ambiguous expected cluster", err.Error()+
			" (clusters[*].id shows them); nothing was written.")
	default:
		return false
	}
	return true
}

func (m *RolloutModel) fill(res *rollout.Result) {
	m.HeadCommit = types.StringValue(res.Head.SHA)
	m.HeadPromotedCommit = nullIfEmpty(res.Head.Promoted)
	m.State = types.StringValue(string(res.State))
	m.Summary = types.StringValue(res.Summary())
	m.SucceededCommit = nullIfEmpty(res.Succeeded.SHA)
	m.SucceededPromotedCommit = nullIfEmpty(res.Succeeded.Promoted)
	m.Counts = types.ObjectValueMust(rolloutCountsTypes, map[string]attr.Value{
		"expected": types.Int64Value(int64(res.Counts.Expected)), "succeeded": types.Int64Value(int64(res.Counts.Succeeded)),
		"progressing": types.Int64Value(int64(res.Counts.Progressing)), "failed": types.Int64Value(int64(res.Counts.Failed)),
		"unknown": types.Int64Value(int64(res.Counts.Unknown)),
	})
	clusters := make([]attr.Value, 0, len(res.Clusters))
	for _, c := range res.Clusters {
		at := ""
		if !c.Time.IsZero() {
			at = c.Time.UTC().Format(time.RFC3339)
		}
		clusters = append(clusters, types.ObjectValueMust(rolloutClusterTypes, map[string]attr.Value{
			"name": types.StringValue(c.Name), "id": types.StringValue(c.ID), "cluster_type": types.StringValue(c.ClusterType), "commit": types.StringValue(c.Commit),
			"state": types.StringValue(string(c.State)), "message": types.StringValue(c.Message), "reported_at": types.StringValue(at),
			"expected": types.BoolValue(c.Expected),
		}))
	}
	m.Clusters = types.ListValueMust(types.ObjectType{AttrTypes: rolloutClusterTypes}, clusters)
	m.PromotionCommit, m.PromotionMoves, m.PromotionReason = types.StringNull(), types.BoolNull(), types.StringNull()
}

// promote decides the next environment's commit.
func (d *RolloutDataSource) promote(ctx context.Context, git *gitrepo.Client, data *RolloutModel, env string, res *rollout.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	var p rolloutPromotionModel
	diags.Append(data.Promotion.As(ctx, &p, objectAsOptions)...)
	var cp rolloutControlPlaneModel
	diags.Append(p.ControlPlane.As(ctx, &cp, objectAsOptions)...)
	if diags.HasError() {
		return diags
	}
	at := path.Root("promotion")
	cpBranch := cp.Branch.ValueString()
	if cpBranch == "" {
		cpBranch = "main"
	}
	current := p.CurrentCommit.ValueString()
	// firstBranch names the next environment's GitOps branch when it does not exist yet.
	firstBranch := ""
	if p.CurrentCommit.IsNull() {
		toBranch := p.ToBranch.ValueString()
		if toBranch == "" {
			toBranch = p.To.ValueString()
		}
		var err error
		current, err = rollout.Promoted(ctx, git, data.RepositoryURL.ValueString(), toBranch)
		switch {
		case errors.Is(err, gitrepo.ErrBranchNotFound):
			// A branch that does not exist yet holds no promoted commit: this is its first promotion, and the
			// kalypso_gitops_commit that renders it creates the branch (create_branch = true).
			current, firstBranch = "", toBranch
		case err != nil:
			hint, _ := gitrepo.Hint(err, gitrepo.Fields{Repo: "repository_url", Branch: "promotion.to_branch"})
			diags.AddAttributeError(at, "Cannot read the next environment's GitOps branch", err.Error()+". "+hint)
			return diags
		}
	}
	gate := rollout.Gate{From: env, To: p.To.ValueString(), Current: current, AllowBackwards: p.AllowBackwards.ValueBool(),
		Ancestor: func(ctx context.Context, a, b string) (bool, error) {
			return git.IsAncestor(ctx, cp.Repo.ValueString(), cpBranch, a, b)
		}}
	dec, err := gate.Decide(ctx, res)
	if errors.Is(err, rollout.ErrNotPromotable) {
		diags.AddAttributeError(at.AtName("control_plane"), "Cannot promote to "+gate.To, err.Error()+
			". Check that promotion.control_plane names the repository and branch "+env+" was rendered from; nothing was written.")
		return diags
	}
	if err != nil {
		hint := ""
		if gitrepo.Class(err) != nil {
			hint, _ = gitrepo.Hint(err, gitrepo.Fields{Repo: "promotion.control_plane.repo", Branch: "promotion.control_plane.branch", Commit: "promotion.current_commit (or the Promoted_Commit_Id on promotion.to_branch)"})
			hint = " " + hint
		}
		diags.AddAttributeError(at, "Cannot decide the promotion to "+gate.To, err.Error()+"."+hint)
		return diags
	}
	if firstBranch != "" {
		dec.Reason += fmt.Sprintf(" (GitOps branch %q does not exist yet: the kalypso_gitops_commit that renders %s creates it with create_branch = true)", firstBranch, gate.To)
	}
	data.PromotionCommit = nullIfEmpty(dec.Commit)
	data.PromotionMoves = types.BoolValue(dec.Moves)
	data.PromotionReason = types.StringValue(dec.Reason)
	if dec.Hold {
		diags.AddAttributeWarning(at, fmt.Sprintf("Promotion to %s held", gate.To), dec.Reason)
	}
	return diags
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
