// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// RenderLimits bound every render of the provider: templates come from application teams and platform
// config values, so none may hang a plan or exhaust memory. Zero fields mean the engine's defaults.
type RenderLimits struct {
	Timeout           time.Duration
	TemplateTimeout   time.Duration
	MaxTemplateOutput int
	MaxOutput         int64
	SchemaMaxDepth    int
	SchemaMaxBytes    int
}

// Options returns the render options for one render under Terraform's context ctx, which Terraform
// cancels on Ctrl-C.
func (l RenderLimits) Options(ctx context.Context, configValidation string) render.Options {
	return render.Options{
		ConfigValidation: configValidation, Context: ctx,
		Timeout: l.Timeout, TemplateTimeout: l.TemplateTimeout, MaxTemplateOutput: l.MaxTemplateOutput, MaxOutput: l.MaxOutput,
		SchemaMaxDepth: l.SchemaMaxDepth, SchemaMaxBytes: l.SchemaMaxBytes,
	}
}

// RenderOptions is RenderLimits.Options for a provider instance; a nil ProviderData (provider not
// configured) uses the limits from the environment, else the defaults.
func (d *ProviderData) RenderOptions(ctx context.Context, configValidation string) render.Options {
	if d == nil {
		l, _ := renderLimitsFromEnv(nil)
		return l.Options(ctx, configValidation)
	}
	return d.RenderLimits.Options(ctx, configValidation)
}

// renderLimitSetting is one limit: its attribute (also the function's option name), its environment
// variable and how to read it.
type renderLimitSetting struct {
	attr, env, def, help string
	set                  func(l *RenderLimits, s string) error
}

var renderLimitSettings = []renderLimitSetting{
	{render.AttrRenderTimeout, "KALYPSO_RENDER_TIMEOUT", "10m",
		"Upper bound for one whole render (every assignment of an environment), as a Go duration such as `10m`.",
		func(l *RenderLimits, s string) (err error) { l.Timeout, err = positiveDuration(s); return }},
	{render.AttrTemplateTimeout, "KALYPSO_TEMPLATE_TIMEOUT", "10s",
		"Upper bound for one template execution (one manifest for one deployment target, re-renders of inserted `{{` text included), as a Go duration such as `30s`.",
		func(l *RenderLimits, s string) (err error) { l.TemplateTimeout, err = positiveDuration(s); return }},
	{render.AttrMaxTemplateOutput, "KALYPSO_TEMPLATE_MAX_OUTPUT_BYTES", strconv.Itoa(templating.DefaultMaxOutput),
		fmt.Sprintf("Upper bound, in bytes, for one manifest's output and for any value a template function builds; all values one execution builds together may take %d times as much.", templating.ValueBudgetFactor),
		func(l *RenderLimits, s string) error {
			n, err := positiveInt(s, math.MaxInt32/templating.ValueBudgetFactor)
			l.MaxTemplateOutput = int(n)
			return err
		}},
	{render.AttrMaxOutput, "KALYPSO_RENDER_MAX_OUTPUT_BYTES", strconv.FormatInt(render.DefaultMaxOutput, 10),
		"Upper bound, in bytes, for the content of one rendered GitOps tree.",
		func(l *RenderLimits, s string) (err error) { l.MaxOutput, err = positiveInt(s, math.MaxInt64); return }},
	{render.AttrSchemaMaxDepth, "KALYPSO_CONFIG_SCHEMA_MAX_DEPTH", strconv.Itoa(platformconfig.DefaultMaxDepth),
		"Upper bound for the nesting of objects and arrays in one config schema (a `kalypso_config_schema` or a Workload's `configSchemas`); a deeper schema is not compiled.",
		func(l *RenderLimits, s string) error {
			n, err := positiveInt(s, math.MaxInt32)
			l.SchemaMaxDepth = int(n)
			return err
		}},
	{render.AttrSchemaMaxBytes, "KALYPSO_CONFIG_SCHEMA_MAX_BYTES", strconv.Itoa(platformconfig.DefaultMaxBytes),
		"Upper bound, in bytes, for the text of one config schema; a larger schema is not compiled.",
		func(l *RenderLimits, s string) error {
			n, err := positiveInt(s, math.MaxInt32)
			l.SchemaMaxBytes = int(n)
			return err
		}},
}

func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive Go duration; use a value such as \"30s\" or \"10m\"", s)
	}
	return d, nil
}

func positiveInt(s string, upper int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > upper {
		return 0, fmt.Errorf("%q is not a whole number of bytes between 1 and %d", s, upper)
	}
	return n, nil
}

// renderLimitsFromEnv reads each limit from configured (by attribute name), else from its environment
// variable; it returns the first invalid setting's attribute with the error.
func renderLimitsFromEnv(configured map[string]string) (RenderLimits, error) {
	var l RenderLimits
	for _, s := range renderLimitSettings {
		v := firstNonEmpty(configured[s.attr], os.Getenv(s.env))
		if v == "" {
			continue
		}
		if err := s.set(&l, v); err != nil {
			return l, &limitSettingError{attr: s.attr, env: s.env, err: err}
		}
	}
	return l, nil
}

type limitSettingError struct {
	attr, env string
	err       error
}

func (e *limitSettingError) Error() string {
	return fmt.Sprintf("%s (from %s or %s)", e.err, e.attr, e.env)
}

// configuredLimits returns the limit attributes of the provider configuration that are set.
func configuredLimits(cfg KalypsoProviderModel) map[string]string {
	out := map[string]string{}
	str := func(attr string, v types.String) {
		if !v.IsNull() && !v.IsUnknown() {
			out[attr] = v.ValueString()
		}
	}
	num := func(attr string, v types.Int64) {
		if !v.IsNull() && !v.IsUnknown() {
			out[attr] = strconv.FormatInt(v.ValueInt64(), 10)
		}
	}
	str(render.AttrRenderTimeout, cfg.RenderTimeout)
	str(render.AttrTemplateTimeout, cfg.TemplateTimeout)
	num(render.AttrMaxTemplateOutput, cfg.TemplateMaxOutputBytes)
	num(render.AttrMaxOutput, cfg.RenderMaxOutputBytes)
	num(render.AttrSchemaMaxDepth, cfg.ConfigSchemaMaxDepth)
	num(render.AttrSchemaMaxBytes, cfg.ConfigSchemaMaxBytes)
	return out
}

// limitSuggestion says where to raise the limit a diagnostic names (model.Diagnostic.Option) at the
// entry point that reports it: the provider block for the data source and kalypso_gitops_commit, the
// options argument for the function, which cannot read the provider's configuration. ok is false when
// option is no limit.
func limitSuggestion(option string, inFunction bool) (text string, ok bool) {
	for _, l := range renderLimitSettings {
		if l.attr != option {
			continue
		}
		if inFunction {
			return fmt.Sprintf(". Raise it in the function's options argument, environment_render(environment, manifests, { %s = ... }), or with %s", l.attr, l.env), true
		}
		return fmt.Sprintf(". Raise it with `%s` in the provider block, or with %s", l.attr, l.env), true
	}
	return "", false
}
