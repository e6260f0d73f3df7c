// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ resource.Resource                = &ClusterTypeResource{}
	_ resource.ResourceWithModifyPlan  = &ClusterTypeResource{}
	_ resource.ResourceWithImportState = &ClusterTypeResource{}
)

// ClusterTypeResource is kalypso_cluster_type, a logical resource that lives only in state.
type ClusterTypeResource struct{}

// NewClusterTypeResource returns the resource.
func NewClusterTypeResource() resource.Resource { return &ClusterTypeResource{} }

type clusterTypeModel struct {
	ID               types.String      `tfsdk:"id"`
	Name             string            `tfsdk:"name"`
	Labels           map[string]string `tfsdk:"labels"`
	Reconciler       string            `tfsdk:"reconciler"`
	NamespaceService string            `tfsdk:"namespace_service"`
	ConfigType       string            `tfsdk:"config_type"`
	Manifest         types.String      `tfsdk:"manifest"`
}

func (r *ClusterTypeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_type"
}

func (r *ClusterTypeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso cluster type: a group of clusters that share labels, a reconciler and platform config. " +
			"Logical resource: it lives only in Terraform state, and `manifest` is its upstream `ClusterType` YAML, known at plan time, " +
			"for `provider::kalypso::environment_render` or a control-plane repository.",
		Attributes: map[string]schema.Attribute{
			"id":     modelIDAttribute(),
			"name":   modelNameAttribute("Name of the cluster type; it names the cluster type's folder in the GitOps repository."),
			"labels": modelLabelsAttribute("Labels of the cluster type, matched by scheduling policies' `cluster_type_selector` and by platform config labels."),
			"reconciler": schema.StringAttribute{
				MarkdownDescription: "Name of the `reconciler` template that renders `reconciler.yaml`. Defaults to `" + resources.DefaultReconciler + "`.",
				Optional:            true, Computed: true,
				Default:    stringdefault.StaticString(resources.DefaultReconciler),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"namespace_service": schema.StringAttribute{
				MarkdownDescription: "Name of the `namespace` template that renders `namespace.yaml`. Defaults to `" + resources.DefaultNamespaceService + "`.",
				Optional:            true, Computed: true,
				Default:    stringdefault.StaticString(resources.DefaultNamespaceService),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"config_type": schema.StringAttribute{
				MarkdownDescription: "Name of the `config` template that renders the platform config. Defaults to `" + resources.DefaultConfigType + "`.",
				Optional:            true, Computed: true,
				Default:    stringdefault.StaticString(resources.DefaultConfigType),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"manifest": modelManifestAttribute("ClusterType"),
		},
	}
}

func (r *ClusterTypeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !modelPlanIsComputable(req) {
		return
	}
	var m clusterTypeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj := resources.ClusterType(m.Name, m.Labels, m.Reconciler, m.NamespaceService, m.ConfigType)
	m.ID, m.Manifest = types.StringValue(m.Name), modelManifestValue(obj, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *ClusterTypeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *ClusterTypeResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
	// Logical resource: state is the source of truth.
}

func (r *ClusterTypeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *ClusterTypeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

func (r *ClusterTypeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	modelImportByName(ctx, req, resp)
}

// The helpers below are shared by the logical model resources (cluster type, scheduling policy,
// workload registration, template, platform config, config schema).

func modelIDAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The object's name.",
		Computed:            true,
	}
}

func modelNameAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description + " A DNS-1123 subdomain: lower-case letters, digits, `-` and `.`.",
		Required:            true,
		Validators:          []validator.String{validators.DNSSubdomainName()},
	}
}

func modelLabelsAttribute(description string) schema.MapAttribute {
	return schema.MapAttribute{
		MarkdownDescription: description + " Keys and values follow Kubernetes label rules.",
		Optional:            true,
		ElementType:         types.StringType,
		Validators:          []validator.Map{validators.NoNullElements(), validators.LabelMap()},
	}
}

func modelManifestAttribute(kind string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Canonical upstream Kalypso YAML of the `" + kind + "`, known at plan time. Pass it in the `manifests` of " +
			"`provider::kalypso::environment_render` or the `kalypso_environment_render` data source, or write it to a control-plane repository.",
		Computed: true,
	}
}

// planIsComputable reports whether ModifyPlan can compute the registrationDerived attributes: not on destroy, and
// only when every configured value is known (otherwise they stay unknown until apply).
func modelPlanIsComputable(req resource.ModifyPlanRequest) bool {
	return !req.Plan.Raw.IsNull() && req.Config.Raw.IsFullyKnown()
}

// manifestValue marshals one object as canonical YAML.
func modelManifestValue(obj model.Object, diags *diag.Diagnostics) types.String {
	text, err := resources.Manifest(obj)
	if err != nil {
		diags.AddError("Cannot build the manifest", fmt.Sprintf("%s %q: %v. This is a provider bug; please report it.", obj.GetKind(), obj.GetName(), err))
		return types.StringUnknown()
	}
	return types.StringValue(text)
}

// importByName imports a logical resource by its name. Only `id` and `name` come from the import: the
// other attributes come from configuration, and the next plan computes them (no real-world change).
func modelImportByName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if msgs := modelNameProblems(req.ID); msgs != "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("import a Kalypso object by its name; %q is not a valid name: %s", req.ID, msgs))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
}

func modelNameProblems(name string) string {
	var d validator.StringResponse
	validators.DNSSubdomainName().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("name"), ConfigValue: types.StringValue(name)}, &d)
	if d.Diagnostics.HasError() {
		return d.Diagnostics.Errors()[0].Detail()
	}
	return ""
}
