// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

var _ function.Function = &EnvironmentRenderFunction{}

// EnvironmentRenderFunction is provider::kalypso::environment_render. Unlike a data source, a function is
// never deferred to apply when its arguments come from managed resources with pending changes, so the
// scheduling stays visible in the plan while the model resources themselves change.
type EnvironmentRenderFunction struct{}

// NewEnvironmentRenderFunction returns the function.
func NewEnvironmentRenderFunction() function.Function {
	return &EnvironmentRenderFunction{}
}

func (f *EnvironmentRenderFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "environment_render"
}

func (f *EnvironmentRenderFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Schedule an environment and render its GitOps tree",
		MarkdownDescription: "Runs the Kalypso scheduler on `manifests` for one environment and returns the same object as the " +
			"`kalypso_environment_render` data source: `assignments`, `files`, `unscheduled_deployment_targets`, `cluster_types`, " +
			"`promoted_commit_id` and `content_hash`. Use the function when the manifests come from `kalypso_*` resources that change " +
			"in the same plan: Terraform defers a data source that depends on pending changes to apply time, but evaluates a function " +
			"during plan. Config-schema violations are always errors here; use the data source for `config_validation = \"warn\"`.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "environment",
				MarkdownDescription: "Name of the environment to render, for example `dev`. Only deployment targets of this environment are scheduled.",
			},
			function.ListParameter{
				Name:                "manifests",
				ElementType:         types.StringType,
				MarkdownDescription: "Kalypso YAML: each string holds one or more `---`-separated documents of any Kalypso kind or v1 ConfigMap.",
			},
		},
		Return: function.ObjectReturn{AttributeTypes: renderOutputAttrTypes},
	}
}

func (f *EnvironmentRenderFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var environment string
	var list []types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &environment, &list))
	if resp.Error != nil {
		return
	}
	manifests, _ := manifestStrings(list)
	res, diags := render.Render(environment, manifests, render.Options{})
	if errs := diags.Errors(); len(errs) > 0 {
		resp.Error = function.ConcatFuncErrors(resp.Error, renderFuncError(errs))
		return
	}
	out := toRenderOutputs(res)
	obj, d := types.ObjectValue(renderOutputAttrTypes, out.attributes())
	if d.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, d)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}

// renderFuncError reports every engine error in one message; a function cannot return several diagnostics.
func renderFuncError(errs model.Diagnostics) *function.FuncError {
	var b strings.Builder
	for i, d := range errs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(d.Summary)
		b.WriteString(": ")
		b.WriteString(describeDiagnostic(d))
	}
	if errs[0].Source.Input >= 0 || errs[0].Kind != "" {
		return function.NewArgumentFuncError(1, b.String())
	}
	return function.NewArgumentFuncError(0, b.String())
}
