// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ resource.Resource                = &PlatformConfigResource{}
	_ resource.ResourceWithModifyPlan  = &PlatformConfigResource{}
	_ resource.ResourceWithImportState = &PlatformConfigResource{}
)

// PlatformConfigResource is kalypso_platform_config, a logical resource that lives only in state.
type PlatformConfigResource struct{ logicalResource }

// NewPlatformConfigResource returns the resource.
func NewPlatformConfigResource() resource.Resource { return &PlatformConfigResource{} }

type platformConfigModel struct {
	ID       types.String      `tfsdk:"id"`
	Name     string            `tfsdk:"name"`
	Labels   map[string]string `tfsdk:"labels"`
	Data     map[string]string `tfsdk:"data"`
	Manifest types.String      `tfsdk:"manifest"`
}

func (r *PlatformConfigResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_platform_config"
}

func (r *PlatformConfigResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso platform config: a v1 `ConfigMap` whose `data` is merged into the platform config of every assignment its labels match " +
			"(`cluster-type`, `deployment-target`, `workload`, or any label of the cluster type or deployment target). " +
			"The manifest always carries the label `platform-config: \"true\"`, except for maps named `azure-app-config*`, which the scheduler reads anyway: " +
			"each of their keys carries its own labels (`label.value.KEY`), and the map's `labels` play no part in matching. " +
			"Logical resource: it lives only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id":   modelIDAttribute(),
			"name": modelNameAttribute("Name of the ConfigMap. Maps are merged in name order."),
			"labels": modelLabelsAttribute("Labels that select the assignments this config applies to; no labels means every assignment. " +
				"Maps named `azure-app-config*` are matched key by key, by the labels in each key, not by these."),
			"data": schema.MapAttribute{
				MarkdownDescription: "Config values. A value that parses as a YAML map or list becomes that structure; a single-quoted value stays a string.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Map{validators.NoNullElements(), validators.ConfigMapKeys()},
			},
			"manifest": modelManifestAttribute("ConfigMap"),
		},
	}
}

func (r *PlatformConfigResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyLogicalPlan[platformConfigModel](ctx, req, resp)
}

func (m *platformConfigModel) object() model.Object {
	return resources.PlatformConfig(m.Name, m.Labels, m.Data)
}

func (m *platformConfigModel) computed() (id, manifest *types.String) { return &m.ID, &m.Manifest }
