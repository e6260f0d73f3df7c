// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ resource.Resource                = &TemplateResource{}
	_ resource.ResourceWithModifyPlan  = &TemplateResource{}
	_ resource.ResourceWithImportState = &TemplateResource{}
)

// TemplateResource is kalypso_template, a logical resource that lives only in state.
type TemplateResource struct{ logicalResource }

// NewTemplateResource returns the resource.
func NewTemplateResource() resource.Resource { return &TemplateResource{} }

type templateModel struct {
	ID          types.String `tfsdk:"id"`
	Name        string       `tfsdk:"name"`
	Type        string       `tfsdk:"type"`
	ContentType *string      `tfsdk:"content_type"`
	Manifests   []string     `tfsdk:"manifests"`
	Manifest    types.String `tfsdk:"manifest"`
}

func (r *TemplateResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_template"
}

func (r *TemplateResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso template: Go templates (with sprig and `toYaml`, `stringify`, `hash`, `unquote`) that render one file of every " +
			"assignment folder. Cluster types name their templates in `reconciler`, `namespace_service` and `config_type`. " +
			"Logical resource: it lives only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id":   modelIDAttribute(),
			"name": modelNameAttribute("Name of the template, as cluster types refer to it."),
			"type": schema.StringAttribute{
				MarkdownDescription: "What the template renders: `reconciler` (`reconciler.yaml`), `namespace` (`namespace.yaml`) or `config` (the platform config).",
				Required:            true,
				Validators:          []validator.String{stringvalidator.OneOf(model.TemplateTypeReconciler, model.TemplateTypeNamespace, model.TemplateTypeConfig)},
			},
			"content_type": schema.StringAttribute{
				MarkdownDescription: "`yaml` or `sh`. A `config` template with `sh` writes `platform-config.sh` instead of `platform-config.yaml`. Absent means `yaml`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(model.ContentTypeYAML, model.ContentTypeSh)},
			},
			"manifests": schema.ListAttribute{
				MarkdownDescription: "Go-template strings, one per manifest; the non-empty results are joined with `---\\n`.",
				Required:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), validators.NoNullElements()},
			},
			"manifest": modelManifestAttribute("Template"),
		},
	}
}

func (r *TemplateResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyLogicalPlan[templateModel](ctx, req, resp)
}

func (m *templateModel) object() model.Object {
	contentType := ""
	if m.ContentType != nil {
		contentType = *m.ContentType
	}
	return resources.Template(m.Name, m.Type, contentType, m.Manifests)
}

func (m *templateModel) computed() (id, manifest *types.String) { return &m.ID, &m.Manifest }
