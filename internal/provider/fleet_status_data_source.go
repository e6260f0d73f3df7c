// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ datasource.DataSource              = &FleetStatusDataSource{}
	_ datasource.DataSourceWithConfigure = &FleetStatusDataSource{}
)

// FleetStatusDataSource is kalypso_fleet_status: what runs where across environments, from the GitOps
// branches and the clusters' reports (engine: internal/fleetstatus).
type FleetStatusDataSource struct {
	provider *ProviderData
}

// NewFleetStatusDataSource returns the data source.
func NewFleetStatusDataSource() datasource.DataSource { return &FleetStatusDataSource{} }

// FleetStatusModel is the data source's configuration and state.
type FleetStatusModel struct {
	RepositoryURL types.String `tfsdk:"repository_url"`
	Path          types.String `tfsdk:"path"`
	Environments  types.List   `tfsdk:"environments"`
	ControlPlane  types.Object `tfsdk:"control_plane"`
	Compare       types.List   `tfsdk:"compare"`
	History       types.Int64  `tfsdk:"history"`
	MaxClusters   types.Int64  `tfsdk:"max_clusters"`
	MetricsWindow types.String `tfsdk:"metrics_window"`
	AsOf          types.String `tfsdk:"as_of"`
	RenderHTML    types.Bool   `tfsdk:"render_html"`
	MaxItems      types.Int64  `tfsdk:"max_items"`

	EnvironmentStatus types.List   `tfsdk:"environment_status"`
	Rows              types.List   `tfsdk:"rows"`
	Clusters          types.List   `tfsdk:"clusters"`
	Comparisons       types.List   `tfsdk:"comparisons"`
	DriftCount        types.Int64  `tfsdk:"drift_count"`
	Metrics           types.List   `tfsdk:"metrics"`
	Markdown          types.String `tfsdk:"markdown"`
	HTML              types.String `tfsdk:"html"`
	Truncated         types.String `tfsdk:"truncated"`
}

type fleetEnvironmentModel struct {
	Name     types.String              `tfsdk:"name"`
	Branch   types.String              `tfsdk:"branch"`
	SoakTime types.String              `tfsdk:"soak_time"`
	Clusters map[string][]types.String `tfsdk:"clusters"`
	rolloutSourceBlocks
}

type fleetComparisonModel struct {
	From types.String `tfsdk:"from"`
	To   types.String `tfsdk:"to"`
}

var (
	fleetEnvStatusTypes = map[string]attr.Type{
		"name": types.StringType, "branch": types.StringType, "head_commit": types.StringType, "promoted_commit": types.StringType,
		"head_time": types.StringType, "state": types.StringType, "summary": types.StringType,
		"rows": types.Int64Type, "clusters": types.Int64Type, "drift": types.Int64Type,
	}
	fleetRowTypes = map[string]attr.Type{
		"environment": types.StringType, "cluster_type": types.StringType, "deployment_target": types.StringType,
		"desired_commit": types.StringType, "promoted_commit": types.StringType, "version": types.StringType, "version_from": types.StringType,
		"changed_at": types.StringType, "age_seconds": types.Int64Type, "state": types.StringType,
		"clusters": types.Int64Type, "succeeded": types.Int64Type, "failed": types.Int64Type, "pending": types.Int64Type, "reporting": types.Int64Type,
	}
	fleetClusterTypes = map[string]attr.Type{
		"environment": types.StringType, "cluster_type": types.StringType, "name": types.StringType, "id": types.StringType,
		"commit": types.StringType, "state": types.StringType, "message": types.StringType, "reported_at": types.StringType,
		"folder_commit": types.StringType, "drift": types.BoolType,
	}
	fleetFileDiffTypes   = map[string]attr.Type{"path": types.StringType, "change": types.StringType}
	fleetFolderDiffTypes = map[string]attr.Type{
		"cluster_type": types.StringType, "deployment_target": types.StringType, "only": types.StringType,
		"from_version": types.StringType, "to_version": types.StringType,
		"files": types.ListType{ElemType: types.ObjectType{AttrTypes: fleetFileDiffTypes}},
	}
	fleetComparisonTypes = map[string]attr.Type{
		"from": types.StringType, "to": types.StringType, "same": types.Int64Type,
		"differing": types.ListType{ElemType: types.ObjectType{AttrTypes: fleetFolderDiffTypes}},
	}
	fleetMetricsTypes = map[string]attr.Type{
		"environment": types.StringType, "window_start": types.StringType, "window_end": types.StringType,
		"deployments": types.Int64Type, "deployments_per_day": types.Float64Type,
		"lead_times": types.Int64Type, "lead_time_median": types.StringType,
		"failed": types.Int64Type, "change_failure_rate": types.Float64Type,
		"restores": types.Int64Type, "time_to_restore_median": types.StringType,
		"dora_keys": types.ListType{ElemType: types.StringType}, "notes": types.ListType{ElemType: types.StringType},
	}
)

// maxFleetEnvironments bounds the environments of one read: each costs a history walk and its reports.
const maxFleetEnvironments = 20

func (d *FleetStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fleet_status"
}

func (d *FleetStatusDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What runs where across environments, from Git and the clusters' reports, as Kalypso's Deployment Observability Hub " +
			"shows it, with no database: one row per environment, cluster type and deployment target (the GitOps commit that last changed the folder, " +
			"the control-plane commit it came from, the workload's version, how the cluster type's clusters stand with it, and since when), " +
			"environments compared, clusters that drift, delivery metrics from the branches' history, and a Markdown summary. " +
			"Any failure (an unknown branch, a head without `Promoted_Commit_Id`, a report source that fails) fails the read: no partial status. " +
			"See the [fleet status guide](../guides/fleet-status.md).",
		Attributes: map[string]schema.Attribute{
			"repository_url": schema.StringAttribute{
				Required: true, MarkdownDescription: "GitOps repository URL (read with the provider's Git credentials and `git_url_rewrites`).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"path": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Folder of the GitOps tree in the repository (`kalypso_gitops_commit.path`). Defaults to the root.",
			},
			"environments": schema.ListNestedAttribute{
				Required: true, MarkdownDescription: fmt.Sprintf("The environments, in promotion order (at most %d).", maxFleetEnvironments),
				Validators: []validator.List{listvalidator.SizeBetween(1, maxFleetEnvironments)},
				NestedObject: schema.NestedAttributeObject{
					Attributes: fleetEnvironmentAttributes(),
				},
			},
			"control_plane": schema.SingleNestedAttribute{
				Optional: true, MarkdownDescription: "The control-plane repository the environments were promoted from: its commits' times start the lead time. Without it there is no lead time.",
				Attributes: map[string]schema.Attribute{
					"repo":   schema.StringAttribute{Required: true, MarkdownDescription: "Control-plane repository URL.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Its branch. Defaults to `main`.", Validators: []validator.String{validators.BranchName()}},
				},
			},
			"compare": schema.ListNestedAttribute{
				Optional: true, MarkdownDescription: "Pairs of environments to compare. Defaults to each environment with the next.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"from": schema.StringAttribute{Required: true, MarkdownDescription: "An environment's name."},
					"to":   schema.StringAttribute{Required: true, MarkdownDescription: "Another environment's name."},
				}},
			},
			"history": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("How many commits of each branch to read; one status request each with `github_statuses`. Defaults to %d.", fleetstatus.DefaultHistory),
				Validators: []validator.Int64{int64validator.Between(1, 1000)},
			},
			"max_clusters": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("More clusters in one environment (or status contexts on one commit) than this is an error. Defaults to %d.", rollout.DefaultMaxClusters),
				Validators: []validator.Int64{int64validator.Between(1, 100000)},
			},
			"metrics_window": schema.StringAttribute{
				Optional: true, MarkdownDescription: "The delivery metrics' window, ending at `as_of` (a Go duration). Defaults to `720h` (30 days).",
				Validators: []validator.String{validators.Duration()},
			},
			"as_of": schema.StringAttribute{
				Optional: true, MarkdownDescription: "The time ages are measured at and the metrics window ends (RFC 3339), for a report about a past period. Defaults to now.",
				Validators: []validator.String{validators.Timestamp()},
			},

			"max_items": schema.Int64Attribute{
				Optional: true, MarkdownDescription: fmt.Sprintf("At most this many elements in `rows`, in `clusters` and in each comparison's `differing` (the first ones, in "+
					"their order); `truncated` says what was left out. The counts (`environment_status`, `drift_count`, `same`), `markdown` and `html` cover the whole fleet. "+
					"Every element is an object in Terraform's state that each plan sends, decodes and stores: about 0.1 ms of CPU each in Terraform and as much in the provider "+
					"(see the [fleet status guide](../guides/fleet-status.md#large-fleets)). Defaults to %d.", fleetstatus.DefaultMaxItems),
				Validators: []validator.Int64{int64validator.Between(0, 1000000)},
			},
			"truncated": str("What `max_items` left out, as one line (`Cut to 1000 items per list: rows: 1000 of 259200; …`); empty when nothing was."),
			"render_html": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Fill `html` with the status as one self-contained page. Defaults to `false`.",
			},

			"environment_status": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Each environment at a glance.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": str("Environment."), "branch": str("Its branch."), "head_commit": str("The branch head."),
					"promoted_commit": str("The head's `Promoted_Commit_Id`."), "head_time": str("The head's committer time (RFC 3339)."),
					"state":   str("`succeeded`, `progressing`, `failed` or `unknown`, as `kalypso_rollout.state` over every reporting cluster (or the listed ones)."),
					"summary": str("One line, for example `2/3 clusters succeeded, 1 progressing`."),
					"rows":    num("Its deployment targets."), "clusters": num("Its clusters."), "drift": num("Its drifting clusters."),
				}},
			},
			"rows": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "One row per environment, cluster type and deployment target, in environment order, then by cluster type and deployment target.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"environment": str("Environment."), "cluster_type": str("Cluster type."), "deployment_target": str("Deployment target (its folder's name)."),
					"desired_commit":  str("The GitOps commit that last changed the folder; empty when that is older than the history read."),
					"promoted_commit": str("The control-plane commit `desired_commit` came from (its `Promoted_Commit_Id`)."),
					"version":         str("The workload's version where the reconciler manifests name one: a Flux `GitRepository`'s `spec.ref`, an Argo CD `Application`'s `targetRevision`."),
					"version_from":    str("Where `version` comes from: `flux:tag`, `flux:branch`, `flux:semver`, `flux:commit`, `flux:name` or `argocd`."),
					"changed_at":      str("When `desired_commit` was made (RFC 3339); empty when unknown."),
					"age_seconds":     num("Seconds from `changed_at` to `as_of`."),
					"state": str("`succeeded` when every cluster of the cluster type succeeded with `desired_commit` or newer, `failed` when one failed with it, " +
						"`unknown` when none reports, `progressing` otherwise (a missing or older report is pending)."),
					"clusters": num("Clusters of the cluster type."), "succeeded": num("Of them, succeeded with the folder's content."),
					"failed": num("Failed with it."), "pending": num("Not yet (progressing, soaking, an older report, or silent)."), "reporting": num("Reporting at all."),
				}},
			},
			"clusters": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Every cluster of every environment: those that reported, and those `environments[*].clusters` lists.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"environment": str("Environment."), "cluster_type": str("Cluster type; empty when neither the source nor `clusters` says."),
					"name": str("Cluster name."), "id": str("Its full identity (see `kalypso_rollout`'s `clusters[*].id`)."),
					"commit": str("The newest GitOps commit it reported about; empty when silent."), "state": str("Its state there."),
					"message": str("What it reported."), "reported_at": str("When (RFC 3339)."),
					"folder_commit": str("The newest change of its cluster type's folder."),
					"drift":         schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether `commit` is older than `folder_commit`: the cluster has not reported its folder's content."},
				}},
			},
			"comparisons": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "The deployment targets whose content differs between two environments.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"from": str("Environment."), "to": str("Environment."), "same": num("Deployment targets both hold alike."),
					"differing": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The others, by cluster type and deployment target.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"cluster_type": str("Cluster type."), "deployment_target": str("Deployment target."),
							"only":         str("`from` or `to` when only that environment holds the folder; empty otherwise."),
							"from_version": str("The workload's version in `from`."), "to_version": str("In `to`."),
							"files": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The files that differ.",
								NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
									"path": str("File, relative to the folder."), "change": str("`changed`, `added` (only in `to`) or `removed` (only in `from`)."),
								}}},
						}}},
				}},
			},
			"drift_count": num("Clusters that report a commit older than their cluster type folder's newest change."),
			"metrics": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Delivery metrics per environment over `metrics_window`. A deployment is a commit of the environment's branch.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"environment": str("Environment."), "window_start": str("RFC 3339."), "window_end": str("RFC 3339."),
					"deployments":         num("Commits of the branch in the window."),
					"deployments_per_day": schema.Float64Attribute{Computed: true, MarkdownDescription: "Deployment frequency."},
					"lead_times":          num("Deployments whose lead time was measured."),
					"lead_time_median": str("Median lead time for changes (a Go duration): from the control-plane commit a deployment brought " +
						"to the time every cluster of the environment reported it, or newer content, healthy. Null when none was measured."),
					"failed":                 num("Failed deployments: a cluster reported a failure with them, or a later commit went back to an earlier control-plane commit."),
					"change_failure_rate":    schema.Float64Attribute{Computed: true, MarkdownDescription: "`failed` / `deployments`."},
					"restores":               num("Failed deployments after which the environment was healthy again."),
					"time_to_restore_median": str("Median time from a failure to the environment's next healthy state (a Go duration). Null when none."),
					"dora_keys": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "The DORA keys the data allowed: `deployment_frequency`, `lead_time_for_changes`, `change_failure_rate`, `time_to_restore`."},
					"notes": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Why a key is missing, and what limits the figures."},
				}},
			},
			"html": str("With `render_html`: the status as one self-contained HTML page (no script, nothing loaded from elsewhere): a matrix of cluster types " +
				"by environments, each cell the worst state of its deployment targets, and a drill-down per workload. Write it with `local_file`. Null otherwise."),
			"markdown": str(fmt.Sprintf("The status as Markdown, for a pull-request comment or a job summary: at most %d characters, with a last line saying what was cut.", fleetstatus.MarkdownLimit)),
		},
	}
}

func (d *FleetStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		d.provider = data
	}
}

func (d *FleetStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data FleetStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	freq, sources, diags := d.request(ctx, &data)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	st, err := fleetstatus.Read(ctx, d.provider.GitClient(), freq)
	if err != nil {
		resp.Diagnostics.Append(fleetStatusError(err, sources)...)
		return
	}
	maxItems := fleetstatus.DefaultMaxItems
	if !data.MaxItems.IsNull() {
		maxItems = int(data.MaxItems.ValueInt64())
	}
	full := st
	st, cut := st.Bounded(maxItems)
	data.Truncated = types.StringValue(cut)
	if cut != "" && data.MaxItems.IsNull() {
		resp.Diagnostics.AddAttributeWarning(path.Root("max_items"), "The fleet status lists were cut",
			fmt.Sprintf("%s The counts, markdown and html cover the whole fleet. Set max_items: to %d to keep these lists as they are without this warning, "+
				"or higher to keep more (every element costs each plan time and state size).", cut, maxItems))
	}
	data.fill(st)
	data.Markdown = types.StringValue(full.Markdown(0))
	data.HTML = types.StringNull()
	if data.RenderHTML.ValueBool() {
		page, err := full.HTML()
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("render_html"), "Cannot render the fleet status page", err.Error()+". This is a bug in the provider; please report it.")
			return
		}
		data.HTML = types.StringValue(page)
	}
	resp.Diagnostics.Append(setFleetState(ctx, &resp.State, &data, st)...)
}

// setFleetState sets the state to data with the status's rows, clusters and comparisons, which are built as Terraform
// values directly: no reflection, each attribute type computed once, repeated strings and numbers made
// once. A fleet's rows are hundreds of thousands of objects.
func setFleetState(ctx context.Context, state *tfsdk.State, data *FleetStatusModel, st *fleetstatus.Status) diag.Diagnostics {
	diags := state.Set(ctx, data)
	if diags.HasError() {
		return diags
	}
	var attrs map[string]tftypes.Value
	if err := state.Raw.As(&attrs); err != nil {
		diags.AddError("Cannot set the fleet status", err.Error()+". This is a bug in the provider; please report it.")
		return diags
	}
	v := newTFValues()
	attrs["rows"] = v.rows(ctx, st.Rows)
	attrs["clusters"] = v.clusters(ctx, st.Clusters)
	attrs["comparisons"] = v.comparisons(ctx, st.Comparisons)
	state.Raw = tftypes.NewValue(state.Raw.Type(), attrs)
	return diags
}

// tfValues makes Terraform primitive values, each distinct one once (they are immutable).
type tfValues struct {
	strings map[string]tftypes.Value
	numbers map[int64]tftypes.Value
}

func newTFValues() *tfValues {
	return &tfValues{strings: map[string]tftypes.Value{}, numbers: map[int64]tftypes.Value{}}
}

func (v *tfValues) str(s string) tftypes.Value {
	if x, ok := v.strings[s]; ok {
		return x
	}
	x := tftypes.NewValue(tftypes.String, s)
	v.strings[s] = x
	return x
}

func (v *tfValues) num(n int64) tftypes.Value {
	if x, ok := v.numbers[n]; ok {
		return x
	}
	x := tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(n))
	v.numbers[n] = x
	return x
}

func (v *tfValues) rows(ctx context.Context, rows []fleetstatus.Row) tftypes.Value {
	typ := types.ObjectType{AttrTypes: fleetRowTypes}.TerraformType(ctx)
	out := make([]tftypes.Value, len(rows))
	for i, r := range rows {
		age := int64(0)
		if !r.ChangedAt.IsZero() {
			age = int64(r.Age / time.Second)
		}
		out[i] = tftypes.NewValue(typ, map[string]tftypes.Value{
			"environment": v.str(r.Environment), "cluster_type": v.str(r.ClusterType), "deployment_target": v.str(r.DeploymentTarget),
			"desired_commit": v.str(r.DesiredCommit), "promoted_commit": v.str(r.Promoted),
			"version": v.str(r.Version), "version_from": v.str(r.VersionFrom),
			"changed_at": v.str(rfc3339(r.ChangedAt)), "age_seconds": v.num(age), "state": v.str(string(r.State)),
			"clusters": v.num(int64(r.Clusters)), "succeeded": v.num(int64(r.Succeeded)), "failed": v.num(int64(r.Failed)),
			"pending": v.num(int64(r.Pending)), "reporting": v.num(int64(r.Reporting)),
		})
	}
	return tftypes.NewValue(tftypes.List{ElementType: typ}, out)
}

func (v *tfValues) comparisons(ctx context.Context, cmps []fleetstatus.EnvironmentDiff) tftypes.Value {
	typ := types.ObjectType{AttrTypes: fleetComparisonTypes}.TerraformType(ctx)
	folderType := types.ObjectType{AttrTypes: fleetFolderDiffTypes}.TerraformType(ctx)
	folderList := tftypes.List{ElementType: folderType}
	fileList := tftypes.List{ElementType: types.ObjectType{AttrTypes: fleetFileDiffTypes}.TerraformType(ctx)}
	out := make([]tftypes.Value, len(cmps))
	for i, c := range cmps {
		folders := make([]tftypes.Value, len(c.Differing))
		for j, f := range c.Differing {
			files := make([]tftypes.Value, len(f.Files))
			for k, fd := range f.Files {
				files[k] = tftypes.NewValue(fileList.ElementType, map[string]tftypes.Value{"path": v.str(fd.Path), "change": v.str(fd.Change)})
			}
			folders[j] = tftypes.NewValue(folderType, map[string]tftypes.Value{
				"cluster_type": v.str(f.ClusterType), "deployment_target": v.str(f.DeploymentTarget), "only": v.str(f.Only),
				"from_version": v.str(f.FromVersion), "to_version": v.str(f.ToVersion), "files": tftypes.NewValue(fileList, files),
			})
		}
		out[i] = tftypes.NewValue(typ, map[string]tftypes.Value{
			"from": v.str(c.From), "to": v.str(c.To), "same": v.num(int64(c.Same)), "differing": tftypes.NewValue(folderList, folders),
		})
	}
	return tftypes.NewValue(tftypes.List{ElementType: typ}, out)
}

func (v *tfValues) clusters(ctx context.Context, clusters []fleetstatus.Cluster) tftypes.Value {
	typ := types.ObjectType{AttrTypes: fleetClusterTypes}.TerraformType(ctx)
	out := make([]tftypes.Value, len(clusters))
	for i, c := range clusters {
		out[i] = tftypes.NewValue(typ, map[string]tftypes.Value{
			"environment": v.str(c.Environment), "cluster_type": v.str(c.ClusterType), "name": v.str(c.Name),
			"id": v.str(c.ID), "commit": v.str(c.Commit), "state": v.str(string(c.State)),
			"message": v.str(c.Message), "reported_at": v.str(rfc3339(c.ReportedAt)),
			"folder_commit": v.str(c.FolderCommit), "drift": tftypes.NewValue(tftypes.Bool, c.Drift),
		})
	}
	return tftypes.NewValue(tftypes.List{ElementType: typ}, out)
}

// request converts the configuration; sources are the rollout source of each environment (rolloutSources).
func (d *FleetStatusDataSource) request(ctx context.Context, data *FleetStatusModel) (fleetstatus.Request, []*rolloutSourceKind, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := fleetstatus.Request{Repo: data.RepositoryURL.ValueString(), Path: data.Path.ValueString(),
		History: int(data.History.ValueInt64()), MaxClusters: int(data.MaxClusters.ValueInt64()), Now: d.provider.Now()}
	if req.MaxClusters == 0 {
		req.MaxClusters = rollout.DefaultMaxClusters
	}
	if s := data.MetricsWindow.ValueString(); s != "" {
		req.Window, _ = time.ParseDuration(s) // validated at plan time
	}
	if s := data.AsOf.ValueString(); s != "" {
		req.Now, _ = time.Parse(time.RFC3339, s) // validated at plan time
	}
	var envs []fleetEnvironmentModel
	diags.Append(data.Environments.ElementsAs(ctx, &envs, false)...)
	if diags.HasError() {
		return req, nil, diags
	}
	sources := make([]*rolloutSourceKind, len(envs))
	for i, e := range envs {
		at := path.Root("environments").AtListIndex(i)
		env := fleetstatus.Environment{Name: e.Name.ValueString(), Branch: e.Branch.ValueString()}
		if env.Branch == "" {
			env.Branch = env.Name
		}
		if s := e.SoakTime.ValueString(); s != "" {
			env.Soak, _ = time.ParseDuration(s)
		}
		for ct, names := range e.Clusters {
			if env.Clusters == nil {
				env.Clusters = map[string][]string{}
			}
			for _, n := range names {
				env.Clusters[ct] = append(env.Clusters[ct], n.ValueString())
			}
		}
		src, block := e.source()
		sources[i] = src
		env.Source, diags = src.build(ctx, d.provider, block, at.AtName(src.attr), req.Repo, env.Branch, req.MaxClusters, diags)
		req.Environments = append(req.Environments, env)
	}
	if !data.ControlPlane.IsNull() {
		var cp rolloutControlPlaneModel
		diags.Append(data.ControlPlane.As(ctx, &cp, objectAsOptions)...)
		req.ControlPlane = &fleetstatus.ControlPlane{Repo: cp.Repo.ValueString(), Branch: cp.Branch.ValueString()}
	}
	if !data.Compare.IsNull() {
		var cmp []fleetComparisonModel
		diags.Append(data.Compare.ElementsAs(ctx, &cmp, false)...)
		req.Compare = []fleetstatus.Comparison{}
		for _, c := range cmp {
			req.Compare = append(req.Compare, fleetstatus.Comparison{From: c.From.ValueString(), To: c.To.ValueString()})
		}
	}
	return req, sources, diags
}

// fleetStatusError words an error of the read at the attribute to fix; nothing of the status is kept.
func fleetStatusError(err error, sources []*rolloutSourceKind) diag.Diagnostics {
	var diags diag.Diagnostics
	var ee *fleetstatus.EnvError
	if !errors.As(err, &ee) {
		at := path.Root("environments")
		if strings.Contains(err.Error(), "comparison") {
			at = path.Root("compare")
		}
		diags.AddAttributeError(at, "Cannot read the fleet status", err.Error()+"; no status was read.")
		return diags
	}
	if ee.Index < 0 {
		hint, _ := gitrepo.Hint(err, gitrepo.Fields{Repo: "control_plane.repo", Branch: "control_plane.branch"})
		diags.AddAttributeError(path.Root("control_plane").AtName("repo"), "Cannot read the control-plane history", err.Error()+". "+hint)
		return diags
	}
	env := path.Root("environments").AtListIndex(ee.Index)
	title := "Cannot read the fleet status of " + ee.Env
	var gerr *gitrepo.Error
	switch {
	case errors.Is(err, fleetstatus.ErrNoPromoted), errors.Is(err, rollout.ErrMalformedPromoted):
		diags.AddAttributeError(env.AtName("branch"), title, err.Error()+"; no status was read.")
	case errors.Is(err, fleetstatus.ErrInput):
		diags.AddAttributeError(env, title, err.Error()+"; no status was read.")
	case errors.As(err, &gerr) && !errors.Is(err, fleetstatus.ErrSource):
		hint, attribute := gitrepo.Hint(err, gitrepo.Fields{Repo: "repository_url", Branch: fmt.Sprintf("environments[%d].branch", ee.Index)})
		at := path.Root("repository_url")
		if attribute != "repository_url" {
			at = env.AtName("branch")
		}
		diags.AddAttributeError(at, title, err.Error()+". "+hint)
	default:
		// The source's failures and the rollout rules' refusals, worded as kalypso_rollout words them, at
		// this environment's attributes.
		src := rolloutSources[0]
		if ee.Index < len(sources) && sources[ee.Index] != nil {
			src = sources[ee.Index]
		}
		for _, d := range rolloutError(ee.Err, ee.Env, src) {
			at := env
			if wp, ok := d.(diag.DiagnosticWithPath); ok {
				at = fleetReroot(wp.Path(), env)
			}
			diags.AddAttributeError(at, d.Summary(), d.Detail())
		}
	}
	return diags
}

// fleetEnvironmentAttributes is the schema of one environment: its branch and clusters, and the blocks
// of its rollout source, as kalypso_rollout has them.
func fleetEnvironmentAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"name": schema.StringAttribute{Required: true, MarkdownDescription: "Environment name, for example `dev`.",
			Validators: []validator.String{stringvalidator.LengthBetween(1, 63)}},
		"branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Its GitOps branch. Defaults to `name`.",
			Validators: []validator.String{validators.BranchName()}},
		"soak_time": schema.StringAttribute{Optional: true, MarkdownDescription: "How long a success must hold before it counts (a Go duration). Defaults to none.",
			Validators: []validator.String{validators.Duration()}},
		"clusters": schema.MapAttribute{Optional: true, ElementType: types.ListType{ElemType: types.StringType},
			MarkdownDescription: "Per cluster type, the clusters that read its folder, by name or full identity (`clusters[*].id`). They count even when silent. " +
				"Needed where the source does not say the cluster type (Azure Resource Graph, a context pattern without a `cluster_type` group)."},
	}
	maps.Copy(attrs, rolloutSourceDataSourceAttributes(true))
	return attrs
}

// fleetReroot moves a kalypso_rollout attribute path to the environment's: its source blocks and expected
// clusters live in environments[i], max_clusters stays at the root.
func fleetReroot(p path.Path, env path.Path) path.Path {
	steps := p.Steps()
	if len(steps) == 0 {
		return env
	}
	first, ok := steps[0].(path.PathStepAttributeName)
	if !ok {
		return env
	}
	switch string(first) {
	case "max_clusters", "repository_url":
		return p
	case "expected":
		return env.AtName("clusters")
	}
	if isRolloutSource(string(first)) {
		out := env
		for _, s := range steps {
			if n, ok := s.(path.PathStepAttributeName); ok {
				out = out.AtName(string(n))
			}
		}
		return out
	}
	return env
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func durationOrNull(d time.Duration, measured int) types.String {
	if measured == 0 {
		return types.StringNull()
	}
	return types.StringValue(d.String())
}

func (m *FleetStatusModel) fill(st *fleetstatus.Status) {
	i64 := func(n int) types.Int64 { return types.Int64Value(int64(n)) }
	envs := make([]attr.Value, 0, len(st.Environments))
	for _, e := range st.Environments {
		envs = append(envs, types.ObjectValueMust(fleetEnvStatusTypes, map[string]attr.Value{
			"name": types.StringValue(e.Name), "branch": types.StringValue(e.Branch), "head_commit": types.StringValue(e.Head),
			"promoted_commit": types.StringValue(e.Promoted), "head_time": types.StringValue(rfc3339(e.HeadTime)), "state": types.StringValue(string(e.State)),
			"summary": types.StringValue(e.Summary), "rows": i64(e.Rows), "clusters": i64(e.Clusters), "drift": i64(e.Drift),
		}))
	}
	m.EnvironmentStatus = types.ListValueMust(types.ObjectType{AttrTypes: fleetEnvStatusTypes}, envs)
	// rows, clusters and comparisons are built as Terraform values directly (tfValues) and put into the
	// state by setFleetState: at the scale of a fleet, the framework's conversion of 259,200 rows was most
	// of a plan's time.
	m.Rows = types.ListNull(types.ObjectType{AttrTypes: fleetRowTypes})
	m.Clusters = types.ListNull(types.ObjectType{AttrTypes: fleetClusterTypes})
	m.Comparisons = types.ListNull(types.ObjectType{AttrTypes: fleetComparisonTypes})
	m.DriftCount = i64(st.Drift)
	metrics := make([]attr.Value, 0, len(st.Metrics))
	for _, x := range st.Metrics {
		metrics = append(metrics, types.ObjectValueMust(fleetMetricsTypes, map[string]attr.Value{
			"environment": types.StringValue(x.Environment), "window_start": types.StringValue(rfc3339(x.WindowStart)), "window_end": types.StringValue(rfc3339(x.WindowEnd)),
			"deployments": i64(x.Deployments), "deployments_per_day": types.Float64Value(x.DeploymentsPerDay),
			"lead_times": i64(x.LeadTimes), "lead_time_median": durationOrNull(x.LeadTimeMedian, x.LeadTimes),
			"failed": i64(x.Failed), "change_failure_rate": types.Float64Value(x.ChangeFailureRate),
			"restores": i64(x.Restores), "time_to_restore_median": durationOrNull(x.TimeToRestoreMedian, x.Restores),
			"dora_keys": stringList(x.Keys), "notes": stringList(x.Notes),
		}))
	}
	m.Metrics = types.ListValueMust(types.ObjectType{AttrTypes: fleetMetricsTypes}, metrics)
}
