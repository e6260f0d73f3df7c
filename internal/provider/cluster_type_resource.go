// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ resource.Resource                = &ClusterTypeResource{}
	_ resource.ResourceWithModifyPlan  = &ClusterTypeResource{}
	_ resource.ResourceWithImportState = &ClusterTypeResource{}
)

// ClusterTypeResource is kalypso_cluster_type, a logical resource that lives only in state.
type ClusterTypeResource struct{ logicalResource }

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
				// No list of accepted names here: any kalypso_template of type reconciler is one, and only the
				// render sees the templates; it reports a name that is none once, naming this cluster type.
				MarkdownDescription: "Name of the `reconciler` template that renders `reconciler.yaml`: a built-in one (" + builtinReconcilersMarkdown() + ") or " +
					"a `kalypso_template` of type `reconciler` rendered with this cluster type. Defaults to `" + model.DefaultReconciler + "`. " +
					"A name that is neither is an error of the render that uses the cluster type, naming it and the reconciler templates there are.",
				Optional: true, Computed: true,
				Default:    stringdefault.StaticString(model.DefaultReconciler),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"namespace_service": schema.StringAttribute{
				MarkdownDescription: "Name of the `namespace` template that renders `namespace.yaml`. Defaults to `" + model.DefaultNamespaceService + "`.",
				Optional:            true, Computed: true,
				Default:    stringdefault.StaticString(model.DefaultNamespaceService),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"config_type": schema.StringAttribute{
				MarkdownDescription: "Name of the `config` template that renders the platform config. Defaults to `" + model.DefaultConfigType + "`.",
				Optional:            true, Computed: true,
				Default:    stringdefault.StaticString(model.DefaultConfigType),
				Validators: []validator.String{validators.DNSSubdomainName()},
			},
			"manifest": modelManifestAttribute("ClusterType"),
		},
	}
}

func (r *ClusterTypeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyLogicalPlan[clusterTypeModel](ctx, req, resp)
}

func (m *clusterTypeModel) object() model.Object {
	return resources.ClusterType(m.Name, m.Labels, m.Reconciler, m.NamespaceService, m.ConfigType)
}

func (m *clusterTypeModel) computed() (id, manifest *types.String) { return &m.ID, &m.Manifest }

// builtinReconcilersMarkdown names the built-in reconciler templates with their projects, in the
// registry's order: "`arc-flux` for Flux, `argocd` for Argo CD, ...".
func builtinReconcilersMarkdown() string {
	var out []string
	for _, b := range render.BuiltinReconcilers() {
		out = append(out, "`"+b.Name+"` for "+b.Project)
	}
	return strings.Join(out, ", ")
}
