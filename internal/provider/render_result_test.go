// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// violationManifests is a fleet of two cluster types whose shared platform ConfigMap holds a value a
// ConfigSchema rejects: manifests[1] is that ConfigMap.
func violationManifests() []string {
	return []string{
		badInputBase + "---\n" + allPolicy + `---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: ClusterType
metadata:
  name: small
spec:
  reconciler: arc-flux
  namespaceService: default
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: ConfigSchema
metadata:
  name: limits
spec:
  schema: '{"type":"object","properties":{"REPLICAS":{"type":"integer","maximum":5}}}'
`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-defaults\n  labels:\n    platform-config: \"true\"\ndata:\n  REPLICAS: \"10\"\n",
	}
}

const violationDetail = `2 assignments ("large/app-web", "small/app-web"): ConfigSchema limits rejects field /REPLICAS: ` +
	`at '/REPLICAS': maximum: got 10, want 5. Fix REPLICAS in ConfigMap "platform-defaults"`

// A platform config that violates a schema is one error, at the manifests element of the ConfigMap that
// holds the bad value and naming it; the data source and kalypso_gitops_commit, which have
// config_validation, suggest it under its own name there.
func TestEngineDiagnostics_SchemaViolationNamesTheConfigMapOnce(t *testing.T) {
	t.Parallel()
	_, ds := render.NewEngine().Render("dev", violationManifests(), render.Options{})
	for _, tc := range []struct {
		at      path.Path
		options map[string]string
		suggest string
	}{
		{path.Root("manifests"), map[string]string{render.OptionConfigValidation: "config_validation"}, `. Or set config_validation = "warn" to skip the assignments it rejects and render the others`},
		{path.Root("render").AtName("manifests"), map[string]string{render.OptionConfigValidation: "render.config_validation"}, `. Or set render.config_validation = "warn" to skip the assignments it rejects and render the others`},
	} {
		got := engineDiagnostics(ds, tc.at, tc.options)
		want := diag.Diagnostics{diag.NewAttributeErrorDiagnostic(tc.at.AtListIndex(1), `Platform config violates schema (ConfigMap "platform-defaults")`,
			"Location: manifests[1], document 0 (line 1)\nObject: ConfigMap \"platform-defaults\"\nField: data.REPLICAS\n"+violationDetail+tc.suggest)}
		if !got.Equal(want) {
			t.Errorf("diagnostics at %s:\n%v\nwant:\n%v", tc.at, got, want)
		}
	}
}

// The provider function has no config_validation: its one error names the ConfigMap and suggests no
// attribute it does not accept.
func TestRenderFuncError_SchemaViolationSuggestsNoMissingAttribute(t *testing.T) {
	t.Parallel()
	_, ds := render.NewEngine().Render("dev", violationManifests(), render.Options{})
	got := renderFuncError(ds.Errors())
	want := `Platform config violates schema: ConfigMap "platform-defaults" (manifests[1], document 0 (line 1)), data.REPLICAS: ` + violationDetail
	if got.Text != want || got.FunctionArgument == nil || *got.FunctionArgument != 1 || strings.Contains(got.Text, "config_validation") {
		t.Errorf("function error (argument %v):\n%s\nwant:\n%s", got.FunctionArgument, got.Text, want)
	}
}

// A render past a limit suggests raising it where the entry point reads it, and names nothing the entry
// point lacks: the provider block for the data source and kalypso_gitops_commit, the options argument for
// the function (which cannot read the provider's configuration).
func TestLimitSuggestion_NamesWhereTheEntryPointReadsTheLimit(t *testing.T) {
	t.Parallel()
	_, ds := render.NewEngine().Render("dev", []string{badInputBase + "---\n" + allPolicy}, render.Options{MaxOutput: 10})
	errs := ds.Errors()
	if len(errs) != 1 || errs[0].Option != render.AttrMaxOutput {
		t.Fatalf("want one error about %s, got %v", render.AttrMaxOutput, errs)
	}
	resource := engineDiagnostics(errs, path.Root("manifests"), map[string]string{render.OptionConfigValidation: "config_validation"})
	if len(resource) != 1 || !strings.HasSuffix(resource[0].Detail(),
		"raise the `render_max_output_bytes` limit if the fleet really is that large. Raise it with `render_max_output_bytes` in the provider block, or with KALYPSO_RENDER_MAX_OUTPUT_BYTES") ||
		strings.Contains(resource[0].Detail(), "environment_render") {
		t.Errorf("data source and resource: %v", resource)
	}
	function := renderFuncError(errs)
	if !strings.HasSuffix(function.Text, "raise the `render_max_output_bytes` limit if the fleet really is that large. Raise it in the function's options argument, "+
		"environment_render(environment, manifests, { render_max_output_bytes = ... }), or with KALYPSO_RENDER_MAX_OUTPUT_BYTES") ||
		strings.Contains(function.Text, "provider") {
		t.Errorf("function: %s", function.Text)
	}
}
