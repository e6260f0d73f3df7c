// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"

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
	_ resource.Resource                = &SchedulingPolicyResource{}
	_ resource.ResourceWithModifyPlan  = &SchedulingPolicyResource{}
	_ resource.ResourceWithImportState = &SchedulingPolicyResource{}
)

// SchedulingPolicyResource is kalypso_scheduling_policy, a logical resource that lives only in state.
type SchedulingPolicyResource struct{ logicalResource }

// NewSchedulingPolicyResource returns the resource.
func NewSchedulingPolicyResource() resource.Resource { return &SchedulingPolicyResource{} }

type schedulingPolicyModel struct {
	ID                       types.String                         `tfsdk:"id"`
	Name                     string                               `tfsdk:"name"`
	DeploymentTargetSelector *policyDeploymentTargetSelectorModel `tfsdk:"deployment_target_selector"`
	ClusterTypeSelector      *policyLabelSelectorModel            `tfsdk:"cluster_type_selector"`
	Manifest                 types.String                         `tfsdk:"manifest"`
}

type policyDeploymentTargetSelectorModel struct {
	Workspace        *string                  `tfsdk:"workspace"`
	MatchLabels      map[string]string        `tfsdk:"match_labels"`
	MatchExpressions []policyRequirementModel `tfsdk:"match_expressions"`
}

type policyLabelSelectorModel struct {
	MatchLabels      map[string]string        `tfsdk:"match_labels"`
	MatchExpressions []policyRequirementModel `tfsdk:"match_expressions"`
}

type policyRequirementModel struct {
	Key      string   `tfsdk:"key"`
	Operator string   `tfsdk:"operator"`
	Values   []string `tfsdk:"values"`
}

func (r *SchedulingPolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scheduling_policy"
}

func policySelectorAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"match_labels": schema.MapAttribute{
			MarkdownDescription: "Labels the " + what + " must all have, with these values.",
			Optional:            true,
			ElementType:         types.StringType,
			Validators:          []validator.Map{validators.NoNullElements(), validators.LabelMap()},
		},
		"match_expressions": schema.ListNestedAttribute{
			MarkdownDescription: "Requirements the " + what + "'s labels must all meet, with Kubernetes semantics: `NotIn` and `DoesNotExist` also match objects without the key.",
			Optional:            true,
			Validators:          []validator.List{validators.NoNullElements()},
			NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{
						MarkdownDescription: "Label key.",
						Required:            true,
						Validators:          []validator.String{validators.LabelKey()},
					},
					"operator": schema.StringAttribute{
						MarkdownDescription: "One of `" + strings.Join(validators.Operators, "`, `") + "`.",
						Required:            true,
						Validators:          []validator.String{validators.Located(stringvalidator.OneOf(validators.Operators...))},
					},
					"values": schema.ListAttribute{
						MarkdownDescription: "Values for `In` and `NotIn` (at least one); must be absent or empty for `Exists` and `DoesNotExist`.",
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.List{validators.NoNullElements(), listvalidator.ValueStringsAre(validators.LabelValue())},
					},
				},
				Validators: []validator.Object{validators.SelectorRequirement()},
			},
		},
	}
}

func (r *SchedulingPolicyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	dtAttrs := policySelectorAttributes("deployment target")
	dtAttrs["workspace"] = schema.StringAttribute{
		MarkdownDescription: "Only deployment targets of this workspace (the registration's `workspace`) are selected. Empty or absent: every workspace.",
		Optional:            true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso scheduling policy: assigns the deployment targets its `deployment_target_selector` selects to the cluster types " +
			"its `cluster_type_selector` selects. An empty or absent selector matches everything. Logical resource: it lives only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id":   modelIDAttribute(),
			"name": modelNameAttribute("Name of the scheduling policy."),
			"deployment_target_selector": schema.SingleNestedAttribute{
				MarkdownDescription: "Which deployment targets the policy schedules. Deployment targets carry their effective labels, including `workload` and `workspace`.",
				Optional:            true,
				Attributes:          dtAttrs,
			},
			"cluster_type_selector": schema.SingleNestedAttribute{
				MarkdownDescription: "Which cluster types receive the selected deployment targets.",
				Optional:            true,
				Attributes:          policySelectorAttributes("cluster type"),
			},
			"manifest": modelManifestAttribute("SchedulingPolicy"),
		},
	}
}

func (m *policyLabelSelectorModel) selector() resources.Selector {
	if m == nil {
		return resources.Selector{}
	}
	return resources.Selector{MatchLabels: m.MatchLabels, MatchExpressions: policyRequirements(m.MatchExpressions)}
}

func policyRequirements(in []policyRequirementModel) []resources.Requirement {
	var out []resources.Requirement
	for _, r := range in {
		out = append(out, resources.Requirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
	}
	return out
}

func (r *SchedulingPolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyLogicalPlan[schedulingPolicyModel](ctx, req, resp)
}

func (m *schedulingPolicyModel) object() model.Object {
	workspace := ""
	var dt resources.Selector
	if s := m.DeploymentTargetSelector; s != nil {
		if s.Workspace != nil {
			workspace = *s.Workspace
		}
		dt = resources.Selector{MatchLabels: s.MatchLabels, MatchExpressions: policyRequirements(s.MatchExpressions)}
	}
	return resources.SchedulingPolicy(m.Name, workspace, dt, m.ClusterTypeSelector.selector())
}

func (m *schedulingPolicyModel) computed() (id, manifest *types.String) { return &m.ID, &m.Manifest }
