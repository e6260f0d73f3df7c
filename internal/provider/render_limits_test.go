// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// TestRenderLimitDefaultsAreTheEngines: the documented defaults are the engine's, and the configured
// value wins over the environment variable, which wins over the default.
func TestRenderLimitDefaultsAreTheEngines(t *testing.T) {
	want := map[string]string{
		render.AttrRenderTimeout: render.DefaultTimeout.String(), render.AttrTemplateTimeout: templating.DefaultTemplateTimeout.String(),
		render.AttrMaxTemplateOutput: strconv.Itoa(templating.DefaultMaxOutput), render.AttrMaxOutput: strconv.FormatInt(render.DefaultMaxOutput, 10),
	}
	for _, s := range renderLimitSettings {
		var l RenderLimits
		if err := s.set(&l, s.def); err != nil {
			t.Fatalf("%s default %q: %v", s.attr, s.def, err)
		}
		got := map[string]string{render.AttrRenderTimeout: l.Timeout.String(), render.AttrTemplateTimeout: l.TemplateTimeout.String(),
			render.AttrMaxTemplateOutput: strconv.Itoa(l.MaxTemplateOutput), render.AttrMaxOutput: strconv.FormatInt(l.MaxOutput, 10)}[s.attr]
		if got != want[s.attr] {
			t.Errorf("%s documents %s, the engine uses %s", s.attr, got, want[s.attr])
		}
	}
	t.Setenv("KALYPSO_TEMPLATE_TIMEOUT", "45s")
	t.Setenv("KALYPSO_RENDER_TIMEOUT", "20m")
	l, err := renderLimitsFromEnv(map[string]string{render.AttrRenderTimeout: "3m"})
	if err != nil || l.TemplateTimeout != 45*time.Second || l.Timeout != 3*time.Minute || l.MaxTemplateOutput != 0 {
		t.Fatalf("limits %+v, %v", l, err)
	}
	o := (*ProviderData)(nil).RenderOptions(context.Background(), "warn")
	if o.TemplateTimeout != 45*time.Second || o.ConfigValidation != "warn" || o.Context == nil {
		t.Fatalf("options %+v", o)
	}
	t.Setenv("KALYPSO_TEMPLATE_MAX_OUTPUT_BYTES", "-1")
	if _, err := renderLimitsFromEnv(nil); err == nil || !strings.Contains(err.Error(), "KALYPSO_TEMPLATE_MAX_OUTPUT_BYTES") {
		t.Fatalf("err %v", err)
	}
}
