// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ datasource.DataSource              = &EnvironmentRenderDataSource{}
	_ datasource.DataSourceWithConfigure = &EnvironmentRenderDataSource{}
)

// EnvironmentRenderDataSource is kalypso_environment_render.
type EnvironmentRenderDataSource struct {
	provider *ProviderData
	caches   *Caches
}

// NewEnvironmentRenderDataSource returns the data source, rendering through caches.
func NewEnvironmentRenderDataSource(caches *Caches) func() datasource.DataSource {
	return func() datasource.DataSource { return &EnvironmentRenderDataSource{caches: caches} }
}

// EnvironmentRenderModel is the data source's configuration and state.
type EnvironmentRenderModel struct {
	Environment      types.String   `tfsdk:"environment"`
	Manifests        []types.String `tfsdk:"manifests"`
	ConfigValidation types.String   `tfsdk:"config_validation"`
	OnlyClusterTypes []types.String `tfsdk:"only_cluster_types"`

	Assignments  types.List   `tfsdk:"assignments"`
	Files        types.Map    `tfsdk:"files"`
	Unscheduled  types.List   `tfsdk:"unscheduled_deployment_targets"`
	ClusterTypes types.List   `tfsdk:"cluster_types"`
	Promoted     types.String `tfsdk:"promoted_commit_id"`
	ContentHash  types.String `tfsdk:"content_hash"`
	Warnings     types.List   `tfsdk:"warnings"`
}

func (d *EnvironmentRenderDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_environment_render"
}

func (d *EnvironmentRenderDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Schedules one environment and renders its GitOps tree, byte for byte as the upstream Kalypso scheduler. " +
			"When `manifests` reference `kalypso_*` resources with pending changes, Terraform defers this data source to apply time; " +
			"use the `provider::kalypso::environment_render` function instead to keep the result in the plan.",
		Attributes: map[string]schema.Attribute{
			"environment": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Environment to render, for example `dev`. Only deployment targets of this environment are scheduled.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"manifests": schema.ListAttribute{
				Required:    true,
				ElementType: types.StringType,
				Validators:  []validator.List{validators.NoNullElements()},
				MarkdownDescription: "Kalypso YAML: each string holds one or more `---`-separated documents of any Kalypso kind " +
					"(ClusterType, SchedulingPolicy, Workload, WorkloadRegistration, Template, ConfigSchema, BaseRepo, GitOpsRepo, Environment) or v1 ConfigMap. " +
					"Resource `manifest`s, `kalypso_control_plane` output and `file()` calls mix freely.",
			},
			"config_validation": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "What a platform config that violates a config schema does: `error` (default) fails the read, " +
					"`warn` reports a warning and leaves that assignment out.",
				Validators: []validator.String{stringvalidator.OneOf(render.ConfigValidationError, render.ConfigValidationWarn)},
			},
			"only_cluster_types": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Validators: []validator.List{validators.NoNullElements()},
				MarkdownDescription: "Narrows `assignments`, `files` and `content_hash` to the folders of these cluster types; " +
					"`cluster_types` still lists every cluster type of the environment. An empty list returns no files. To deliver an " +
					"environment of any size, use `kalypso_gitops_commit`'s render mode, which renders it itself and keeps no file content in state.",
			},
			"assignments": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Every placement of a deployment target on a cluster type, sorted by cluster type then deployment target.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster_type":        schema.StringAttribute{Computed: true, MarkdownDescription: "Cluster type name."},
					"deployment_target":   schema.StringAttribute{Computed: true, MarkdownDescription: "Deployment target name, `<workload>-<target>`."},
					"workload":            schema.StringAttribute{Computed: true, MarkdownDescription: "Workload name."},
					"workspace":           schema.StringAttribute{Computed: true, MarkdownDescription: "Workspace of the workload's registration."},
					"scheduling_policies": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Every policy that selects this pair, by name. Upstream fails when there are two; here they share one assignment."},
					"namespace":           schema.StringAttribute{Computed: true, MarkdownDescription: "Target namespace, `<environment>-<cluster type>-<deployment target>`."},
					"path":                schema.StringAttribute{Computed: true, MarkdownDescription: "Folder of the assignment relative to the GitOps root."},
				}},
			},
			"files": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The rendered GitOps tree: path relative to the GitOps root → content. Feed it to `kalypso_gitops_commit`.",
			},
			"unscheduled_deployment_targets": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Deployment targets of the environment that no policy places.",
			},
			"cluster_types": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every cluster type of the environment, each with a folder in `files`.",
			},
			"promoted_commit_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`spec.commit` of the BaseRepo named `main`, or empty. Pass it to `kalypso_gitops_commit.promoted_commit_id`.",
			},
			"warnings": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every warning of the render, one line each, naming the object: unscheduled deployment targets, " +
					"scheduling policies that select nothing, an environment with no deployment targets while other environments have some " +
					"(a mistyped `environment`), templates that render invalid YAML, and the other warnings the data source also reports " +
					"as plan warnings. Empty when there is nothing to say; `check` blocks can assert `length(...warnings) == 0`.",
			},
			"content_hash": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "SHA-256 over the sorted paths of `files`, each followed by the SHA-256 of its content. Changes exactly when a path or a content changes.",
			},
		},
	}
}

func (d *EnvironmentRenderDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		d.provider = data
	}
}

func (d *EnvironmentRenderDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data EnvironmentRenderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	manifests, known := manifestStrings(data.Manifests)
	var out renderOutputs
	for _, ct := range data.OnlyClusterTypes {
		known = known && !ct.IsUnknown()
	}
	if !known || data.Environment.IsUnknown() {
		out = unknownRenderOutputs()
	} else {
		var only []string
		if data.OnlyClusterTypes != nil {
			only = make([]string, 0, len(data.OnlyClusterTypes))
			for _, ct := range data.OnlyClusterTypes {
				only = append(only, ct.ValueString())
			}
		}
		opts := d.provider.RenderOptions(ctx, data.ConfigValidation.ValueString())
		res, diags, err := d.caches.renderCached(data.Environment.ValueString(), manifests, opts, only)
		resp.Diagnostics.Append(engineDiagnostics(diags, path.Root("manifests"), map[string]string{render.OptionConfigValidation: "config_validation"})...)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("only_cluster_types"), "Unknown cluster type", err.Error())
		}
		if resp.Diagnostics.HasError() {
			return
		}
		out = toRenderOutputs(res, diags)
	}
	data.Assignments, data.Files, data.Unscheduled = out.Assignments, out.Files, out.Unscheduled
	data.ClusterTypes, data.Promoted, data.ContentHash, data.Warnings = out.ClusterTypes, out.Promoted, out.ContentHash, out.Warnings
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
