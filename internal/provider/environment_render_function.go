// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var _ function.Function = &EnvironmentRenderFunction{}

// EnvironmentRenderFunction is provider::kalypso::environment_render. Unlike a data source, a function is
// never deferred to apply when its arguments come from managed resources with pending changes, so the
// scheduling stays visible in the plan while the model resources themselves change.
type EnvironmentRenderFunction struct {
	caches *Caches
}

// NewEnvironmentRenderFunction returns the function, rendering through caches. Terraform never
// configures the provider instance it calls functions on, so the caches come from the provider itself.
func NewEnvironmentRenderFunction(caches *Caches) func() function.Function {
	return func() function.Function { return &EnvironmentRenderFunction{caches: caches} }
}

func (f *EnvironmentRenderFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "environment_render"
}

func (f *EnvironmentRenderFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Schedule an environment and render its GitOps tree",
		MarkdownDescription: "Runs the Kalypso scheduler on `manifests` for one environment and returns the same object as the " +
			"`kalypso_environment_render` data source: `assignments`, `files`, `unscheduled_deployment_targets`, `cluster_types`, " +
			"`promoted_commit_id`, `content_hash` and `warnings`. A function cannot emit warnings, so the render's warnings " +
			"(unscheduled deployment targets, policies that select nothing, an environment without deployment targets, templates " +
			"that render invalid YAML, ...) are returned in `warnings`; assert `length(...warnings) == 0` in a `check` block to see them in the plan. Use the function when the manifests come from `kalypso_*` resources that change " +
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
		VariadicParameter: function.DynamicParameter{
			Name: "options",
			MarkdownDescription: "At most one object of options. `only_cluster_types` (list of cluster type names) narrows " +
				"`assignments`, `files` and `content_hash` to those cluster types' folders; `cluster_types` still lists every " +
				"cluster type of the environment; the provider renders the environment once per plan and each call only filters. " +
				"To deliver an environment of any size, use `kalypso_gitops_commit`'s render mode, which renders it itself and keeps " +
				"no file content in state. `{ only_cluster_types = [] }` returns the summary outputs without files. " +
				"`render_timeout`, `template_timeout` (Go durations) and `template_max_output_bytes`, `render_max_output_bytes`, " +
				"`config_schema_max_depth`, `config_schema_max_bytes` (numbers) " +
				"raise the render limits, as the provider attributes of the same names do for the data source (a function cannot read " +
				"the provider configuration); their defaults come from the `KALYPSO_*` environment variables, else the built-in defaults.",
		},
		Return: function.ObjectReturn{AttributeTypes: renderOutputAttrTypes},
	}
}

func (f *EnvironmentRenderFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var environment string
	var list []types.String
	var options []types.Dynamic
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &environment, &list, &options))
	if resp.Error != nil {
		return
	}
	only, funcErr := renderFunctionOptions(options)
	if funcErr != nil {
		resp.Error = funcErr
		return
	}
	limits, funcErr := renderFunctionLimits(options)
	if funcErr != nil {
		resp.Error = funcErr
		return
	}
	for i, m := range list {
		if m.IsNull() { // as the data source's manifests refuse it; a function has no attribute validators
			resp.Error = function.NewArgumentFuncError(1, validators.NullElementSummary+": "+validators.NullListElement("manifests", i))
			return
		}
	}
	manifests, _ := manifestStrings(list)
	ctx, stop := f.caches.withProcessStop(ctx) // Terraform does not stop a function's provider instance (interrupt.go)
	defer stop()
	res, diags, err := f.caches.renderCached(environment, manifests, limits.Options(ctx, ""), only)
	if errs := diags.Errors(); len(errs) > 0 {
		resp.Error = function.ConcatFuncErrors(resp.Error, renderFuncError(errs))
		return
	}
	if err != nil {
		resp.Error = function.NewArgumentFuncError(2, err.Error())
		return
	}
	out := toRenderOutputs(res, diags)
	obj, d := types.ObjectValue(renderOutputAttrTypes, out.attributes())
	if d.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, d)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}

// renderFuncError reports every engine error in one message; a function cannot return several
// diagnostics. Terraform shows a function's error at the call, not at the object that holds the bad
// value, so each error's text names that object once, where it is in `manifests`, and its field with
// the attribute of the kalypso_* resource that writes it: "Missing template: ClusterType "a"
// (manifests[0], document 0 (line 1)), spec.reconciler (`reconciler` of kalypso_cluster_type): ...".
func renderFuncError(errs model.Diagnostics) *function.FuncError {
	var b strings.Builder
	for i, d := range errs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(d.Summary)
		b.WriteString(": ")
		var where []string
		if d.Kind != "" || d.Name != "" {
			where = append(where, fmt.Sprintf("%s %q", d.Kind, d.Name))
		}
		if s := d.Source.String(); s != "" {
			where = append(where, "("+s+")")
		}
		if len(where) > 0 {
			b.WriteString(strings.Join(where, " "))
			if d.Field != "" {
				b.WriteString(", " + d.Field)
				if a, ok := resourceAttribute(d.Kind, d.Field); ok {
					b.WriteString(" (" + a + ")")
				}
			}
			b.WriteString(": ")
		}
		b.WriteString(d.Detail)
		if where, ok := limitSuggestion(d.Option, true); ok { // config_validation is no option here: not suggested
			b.WriteString(where)
		}
	}
	if errs[0].Source.Input >= 0 || errs[0].Kind != "" {
		return function.NewArgumentFuncError(1, b.String())
	}
	return function.NewArgumentFuncError(0, b.String())
}

// clusterTypeAttributes are the upstream ClusterType fields that kalypso_cluster_type writes from an
// attribute of another name.
var clusterTypeAttributes = map[string]string{
	"spec.reconciler":       "reconciler",
	"spec.namespaceService": "namespace_service",
	"spec.configType":       "config_type",
}

// resourceAttribute names the attribute of the kalypso_* resource that writes field of a kind, for a
// message that Terraform cannot place on that resource.
func resourceAttribute(kind, field string) (string, bool) {
	if kind != model.KindClusterType {
		return "", false
	}
	a, ok := clusterTypeAttributes[field]
	if !ok {
		return "", false
	}
	return fmt.Sprintf("`%s` of kalypso_cluster_type", a), true
}

// renderFunctionOptions reads the optional trailing options object. It returns only_cluster_types, nil
// when the option is absent (render everything).
func renderFunctionOptions(options []types.Dynamic) ([]string, *function.FuncError) {
	if len(options) == 0 {
		return nil, nil
	}
	if len(options) > 1 {
		return nil, function.NewArgumentFuncError(int64(2+len(options)-1), "environment_render takes at most one options object")
	}
	var attrs map[string]attr.Value
	switch v := options[0].UnderlyingValue().(type) {
	case types.Object:
		attrs = v.Attributes()
	case types.Map:
		attrs = v.Elements()
	case nil:
	default:
		if !options[0].IsNull() {
			return nil, function.NewArgumentFuncError(2, "options must be an object, for example { only_cluster_types = [\"small\"] }")
		}
	}
	var only []string
	for name, value := range attrs {
		if isRenderLimitOption(name) {
			continue
		}
		if name != "only_cluster_types" {
			return nil, function.NewArgumentFuncError(2, fmt.Sprintf("unknown option %q; the options are: only_cluster_types, %s", name, renderLimitOptionNames()))
		}
		if value.IsNull() {
			continue
		}
		var elems []attr.Value
		switch l := value.(type) {
		case types.List:
			elems = l.Elements()
		case types.Tuple:
			elems = l.Elements()
		case types.Set:
			elems = l.Elements()
		default:
			return nil, function.NewArgumentFuncError(2, "only_cluster_types must be a list of cluster type names")
		}
		only = make([]string, 0, len(elems))
		for _, e := range elems {
			s, ok := e.(types.String)
			if !ok || s.IsNull() {
				return nil, function.NewArgumentFuncError(2, "only_cluster_types must be a list of cluster type names")
			}
			only = append(only, s.ValueString())
		}
	}
	return only, nil
}

func isRenderLimitOption(name string) bool {
	for _, l := range renderLimitSettings {
		if l.attr == name {
			return true
		}
	}
	return false
}

func renderLimitOptionNames() string {
	names := make([]string, len(renderLimitSettings))
	for i, l := range renderLimitSettings {
		names[i] = l.attr
	}
	return strings.Join(names, ", ")
}

// renderFunctionLimits reads the limit options of the trailing options object over the environment's.
func renderFunctionLimits(options []types.Dynamic) (RenderLimits, *function.FuncError) {
	set := map[string]string{}
	if len(options) == 1 {
		var attrs map[string]attr.Value
		switch v := options[0].UnderlyingValue().(type) {
		case types.Object:
			attrs = v.Attributes()
		case types.Map:
			attrs = v.Elements()
		}
		for name, value := range attrs {
			if !isRenderLimitOption(name) || value.IsNull() {
				continue
			}
			switch v := value.(type) {
			case types.String:
				set[name] = v.ValueString()
			case types.Number:
				set[name] = v.ValueBigFloat().Text('f', -1)
			default:
				return RenderLimits{}, function.NewArgumentFuncError(2, fmt.Sprintf("option %s must be a string or a number", name))
			}
		}
	}
	l, err := renderLimitsFromEnv(set)
	if err != nil {
		return l, function.NewArgumentFuncError(2, err.Error())
	}
	return l, nil
}
