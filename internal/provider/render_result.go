// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// Conversions shared by the environment_render data source and function, which return the same object.

var assignmentAttrTypes = map[string]attr.Type{
	"cluster_type":        types.StringType,
	"deployment_target":   types.StringType,
	"workload":            types.StringType,
	"workspace":           types.StringType,
	"scheduling_policies": types.ListType{ElemType: types.StringType},
	"namespace":           types.StringType,
	"path":                types.StringType,
}

var assignmentObjectType = types.ObjectType{AttrTypes: assignmentAttrTypes}

// renderOutputAttrTypes are the computed outputs of a render.
var renderOutputAttrTypes = map[string]attr.Type{
	"assignments":                    types.ListType{ElemType: assignmentObjectType},
	"files":                          types.MapType{ElemType: types.StringType},
	"unscheduled_deployment_targets": types.ListType{ElemType: types.StringType},
	"cluster_types":                  types.ListType{ElemType: types.StringType},
	"promoted_commit_id":             types.StringType,
	"content_hash":                   types.StringType,
	"warnings":                       types.ListType{ElemType: types.StringType},
}

// renderOutputs holds the render outputs as framework values.
type renderOutputs struct {
	Assignments  types.List
	Files        types.Map
	Unscheduled  types.List
	ClusterTypes types.List
	Promoted     types.String
	ContentHash  types.String
	Warnings     types.List
}

func (o renderOutputs) attributes() map[string]attr.Value {
	return map[string]attr.Value{
		"assignments":                    o.Assignments,
		"files":                          o.Files,
		"unscheduled_deployment_targets": o.Unscheduled,
		"cluster_types":                  o.ClusterTypes,
		"promoted_commit_id":             o.Promoted,
		"content_hash":                   o.ContentHash,
		"warnings":                       o.Warnings,
	}
}

func unknownRenderOutputs() renderOutputs {
	return renderOutputs{
		Assignments:  types.ListUnknown(assignmentObjectType),
		Files:        types.MapUnknown(types.StringType),
		Unscheduled:  types.ListUnknown(types.StringType),
		ClusterTypes: types.ListUnknown(types.StringType),
		Promoted:     types.StringUnknown(),
		ContentHash:  types.StringUnknown(),
		Warnings:     types.ListUnknown(types.StringType),
	}
}

func stringList(values []string) types.List {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, elems)
}

// toRenderOutputs converts a render; diags are the render's diagnostics, whose warnings become `warnings`.
func toRenderOutputs(res *render.Result, diags model.Diagnostics) renderOutputs {
	assignments := make([]attr.Value, len(res.Assignments))
	for i, a := range res.Assignments {
		assignments[i] = types.ObjectValueMust(assignmentAttrTypes, map[string]attr.Value{
			"cluster_type":        types.StringValue(a.ClusterType),
			"deployment_target":   types.StringValue(a.DeploymentTarget),
			"workload":            types.StringValue(a.Workload),
			"workspace":           types.StringValue(a.Workspace),
			"scheduling_policies": stringList(a.SchedulingPolicies),
			"namespace":           types.StringValue(a.Namespace),
			"path":                types.StringValue(a.Path),
		})
	}
	files := make(map[string]attr.Value, len(res.Files))
	for p, c := range res.Files {
		files[p] = types.StringValue(c)
	}
	return renderOutputs{
		Assignments:  types.ListValueMust(assignmentObjectType, assignments),
		Files:        types.MapValueMust(types.StringType, files),
		Unscheduled:  stringList(res.Unscheduled),
		ClusterTypes: stringList(res.ClusterTypes),
		Promoted:     types.StringValue(res.PromotedCommit),
		ContentHash:  types.StringValue(res.ContentHash),
		Warnings:     stringList(diags.WarningMessages()),
	}
}

// manifestStrings reads a list of manifest strings; known is false when any element is not yet known.
func manifestStrings(list []types.String) (manifests []string, known bool) {
	manifests = make([]string, len(list))
	for i, m := range list {
		if m.IsUnknown() {
			return nil, false
		}
		// A null element keeps its index so that diagnostics point at the right list entry.
		manifests[i] = m.ValueString()
	}
	return manifests, true
}

// engineDiagnostics turns engine diagnostics into framework diagnostics, pointing at manifests[i] where known.
// options maps the render options the caller has (model.Diagnostic.Option) to their attribute names: an
// error that one of them would turn into a warning suggests it; a caller without it suggests nothing. A
// render limit is suggested in the provider block, where the data source and kalypso_gitops_commit read it.
func engineDiagnostics(ds model.Diagnostics, manifestsPath path.Path, options map[string]string) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range ds {
		detail, summary := describeDiagnostic(d), diagnosticSummary(d)
		if attr, ok := options[d.Option]; ok && d.Option == render.OptionConfigValidation && d.Severity == model.SeverityError {
			detail += fmt.Sprintf(". Or set %s = %q to skip the assignments it rejects and render the others", attr, render.ConfigValidationWarn)
		}
		if where, ok := limitSuggestion(d.Option, false); ok {
			detail += where
		}
		switch {
		case d.Source.Input >= 0 && d.Severity == model.SeverityWarning:
			out.AddAttributeWarning(manifestsPath.AtListIndex(d.Source.Input), summary, detail)
		case d.Source.Input >= 0:
			out.AddAttributeError(manifestsPath.AtListIndex(d.Source.Input), summary, detail)
		case d.Severity == model.SeverityWarning:
			out.AddWarning(summary, detail)
		default:
			out.AddError(summary, detail)
		}
	}
	return out
}

// diagnosticSummary names the object in the first line Terraform prints: `manifests = concat(...)` is all
// the source location Terraform can show, and the object's kind and name are what a user searches for.
func diagnosticSummary(d model.Diagnostic) string {
	if d.Kind == "" || d.Name == "" {
		return d.Summary
	}
	return fmt.Sprintf("%s (%s %q)", d.Summary, d.Kind, d.Name)
}

func describeDiagnostic(d model.Diagnostic) string {
	var parts []string
	if s := d.Source.String(); s != "" {
		parts = append(parts, "Location: "+s)
	}
	if d.Kind != "" || d.Name != "" {
		parts = append(parts, fmt.Sprintf("Object: %s %q", d.Kind, d.Name))
	}
	if d.Field != "" {
		parts = append(parts, "Field: "+d.Field)
	}
	if d.Detail != "" {
		parts = append(parts, d.Detail)
	}
	return strings.Join(parts, "\n")
}
