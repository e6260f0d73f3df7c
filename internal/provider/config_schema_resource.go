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
	_ resource.Resource                = &ConfigSchemaResource{}
	_ resource.ResourceWithModifyPlan  = &ConfigSchemaResource{}
	_ resource.ResourceWithImportState = &ConfigSchemaResource{}
)

// ConfigSchemaResource is kalypso_config_schema, a logical resource that lives only in state.
type ConfigSchemaResource struct{ logicalResource }

// NewConfigSchemaResource returns the resource.
func NewConfigSchemaResource() resource.Resource { return &ConfigSchemaResource{} }

type configSchemaModel struct {
	ID       types.String      `tfsdk:"id"`
	Name     string            `tfsdk:"name"`
	Labels   map[string]string `tfsdk:"labels"`
	Schema   string            `tfsdk:"schema"`
	Manifest types.String      `tfsdk:"manifest"`
}

func (r *ConfigSchemaResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_config_schema"
}

func (r *ConfigSchemaResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso config schema: a JSON Schema (draft-07) that validates the merged platform config of every assignment its labels match. " +
			"Logical resource: it lives only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id":     modelIDAttribute(),
			"name":   modelNameAttribute("Name of the config schema."),
			"labels": modelLabelsAttribute("Labels that select the assignments this schema validates, matched like platform config labels; no labels means every assignment."),
			"schema": schema.StringAttribute{
				MarkdownDescription: "JSON Schema text (draft-07), for example from `jsonencode({...})`. YAML is accepted too. It must compile.",
				Required:            true,
				Validators:          []validator.String{validators.JSONSchema()},
			},
			"manifest": modelManifestAttribute("ConfigSchema"),
		},
	}
}

func (r *ConfigSchemaResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyLogicalPlan[configSchemaModel](ctx, req, resp)
}

func (m *configSchemaModel) object() model.Object {
	return resources.ConfigSchema(m.Name, m.Labels, m.Schema)
}

func (m *configSchemaModel) computed() (id, manifest *types.String) { return &m.ID, &m.Manifest }
