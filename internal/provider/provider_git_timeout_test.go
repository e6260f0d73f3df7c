// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configureProvider runs Configure with git_timeout set to value (nil: unset).
func configureProvider(t *testing.T, value *string) (*ProviderData, diag.Diagnostics) {
	t.Helper()
	ctx := context.Background()
	p := New("test", testCaches)()
	var sr fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	if value != nil {
		vals["git_timeout"] = tftypes.NewValue(tftypes.String, *value)
	}
	var resp fwprovider.ConfigureResponse
	p.Configure(ctx, fwprovider.ConfigureRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}}, &resp)
	data, _ := resp.ResourceData.(*ProviderData)
	return data, resp.Diagnostics
}

// TestProviderConfigure_GitTimeout: git_timeout (else KALYPSO_GIT_TIMEOUT, else 2m) becomes the Git
// client's per-operation timeout; values that are not positive durations are attribute errors.
func TestProviderConfigure_GitTimeout(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		name  string
		attr  *string
		env   string
		want  time.Duration
		error bool
	}{
		{"default", nil, "", DefaultGitTimeout, false},
		{"attribute", str("45s"), "", 45 * time.Second, false},
		{"environment", nil, "90s", 90 * time.Second, false},
		{"attribute wins over environment", str("5m"), "90s", 5 * time.Minute, false},
		{"not a duration", str("soon"), "", 0, true},
		{"zero", str("0s"), "", 0, true},
		{"negative", str("-1m"), "", 0, true},
		{"bad environment", nil, "forever", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("KALYPSO_GIT_TIMEOUT", c.env)
			data, diags := configureProvider(t, c.attr)
			if c.error {
				if len(diags) != 1 || diags[0].Severity() != diag.SeverityError || diags[0].Summary() != "Invalid git_timeout" {
					t.Fatalf("diagnostics %v", diags)
				}
				if wp, ok := diags[0].(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(path.Root("git_timeout")) {
					t.Errorf("diagnostic not at git_timeout: %v", diags[0])
				}
				return
			}
			if diags.HasError() || data == nil {
				t.Fatalf("diagnostics %v", diags)
			}
			if data.GitTimeout != c.want {
				t.Errorf("GitTimeout %v, want %v", data.GitTimeout, c.want)
			}
			if got := data.GitClient().Timeout; got != c.want {
				t.Errorf("Git client Timeout %v, want %v", got, c.want)
			}
			if got := data.GitClient(WithSSHHostKeyFingerprint("SHA256:x")).Timeout; got != c.want {
				t.Errorf("per-resource Git client Timeout %v, want %v", got, c.want)
			}
		})
	}
}
