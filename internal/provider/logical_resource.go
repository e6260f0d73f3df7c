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
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

// logicalResource is the lifecycle every logical model resource (cluster type, scheduling policy,
// workload registration, template, platform config, config schema) shares: the object lives only in
// state, ModifyPlan computes everything at plan time, so apply stores the plan and destroy forgets it.
// Embed it; a resource that does more (the workload registration's refresh) defines its own method.
type logicalResource struct{}

func (logicalResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Read keeps state as it is: state is the source of truth.
func (logicalResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (logicalResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (logicalResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func (logicalResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	modelImportByName(ctx, req, resp)
}

// logicalModel is the Terraform model of a logical resource whose computed attributes are `id` and
// `manifest` only.
type logicalModel interface {
	// object builds the upstream object from the planned attributes.
	object() model.Object
	// computed points at the `id` and `manifest` attributes.
	computed() (id, manifest *types.String)
}

// modifyLogicalPlan fills in `id` and `manifest` of a logical resource at plan time, so neither is
// ever "known after apply".
func modifyLogicalPlan[M any, P interface {
	*M
	logicalModel
}](ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !modelPlanIsComputable(req) {
		return
	}
	m := P(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj := m.object()
	id, manifest := m.computed()
	*id, *manifest = types.StringValue(obj.GetName()), modelManifestValue(obj, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, m)...)
}

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

// modelPlanIsComputable reports whether ModifyPlan can compute the computed attributes: not on destroy, and
// only when every configured value is known (otherwise they stay unknown until apply).
func modelPlanIsComputable(req resource.ModifyPlanRequest) bool {
	return !req.Plan.Raw.IsNull() && req.Config.Raw.IsFullyKnown()
}

// modelManifestValue marshals one object as canonical YAML.
func modelManifestValue(obj model.Object, diags *diag.Diagnostics) types.String {
	text, err := resources.Manifest(obj)
	if err != nil {
		diags.AddError("Cannot build the manifest", fmt.Sprintf("%s %q: %v. This is a provider bug; please report it.", obj.GetKind(), obj.GetName(), err))
		return types.StringUnknown()
	}
	return types.StringValue(text)
}

// modelImportByName imports a logical resource by its name. Only `id` and `name` come from the import: the
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
