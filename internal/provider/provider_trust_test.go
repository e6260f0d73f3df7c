// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
)

// configureWith runs Configure with the given attributes set (the rest null).
func configureWith(t *testing.T, set map[string]tftypes.Value) (*ProviderData, diag.Diagnostics) {
	t.Helper()
	ctx := context.Background()
	p := New("test", testCaches)()
	var sr fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object) //nolint:forcetypeassert // a provider schema is an object
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for k, v := range set {
		vals[k] = v
	}
	var resp fwprovider.ConfigureResponse
	p.Configure(ctx, fwprovider.ConfigureRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}}, &resp)
	data, _ := resp.ResourceData.(*ProviderData)
	return data, resp.Diagnostics
}

// TestProviderConfigure_Trust: the credential scope and the bounds of outside answers reach the Git and
// API clients from their attributes, else their environment variables, else the safe defaults; a
// credential host with a scheme or path and a duration that is not positive are attribute errors.
func TestProviderConfigure_Trust(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	hosts := func(h ...string) tftypes.Value {
		var vs []tftypes.Value
		for _, x := range h {
			vs = append(vs, str(x))
		}
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	t.Setenv(envAllowLoopbackHTTP, "")
	t.Setenv(envAPIMaxRetryAfter, "")

	data, diags := configureWith(t, nil)
	if diags.HasError() {
		t.Fatal(diags)
	}
	c := data.GitClient()
	if c.Auth.LoopbackHTTP || c.AllowLocalContent || len(c.CredentialHosts) != 0 || data.APILimits != (outbound.Limits{}).WithDefaults() {
		t.Errorf("defaults: loopback %v, local content %v, hosts %v, limits %+v", c.Auth.LoopbackHTTP, c.AllowLocalContent, c.CredentialHosts, data.APILimits)
	}

	data, diags = configureWith(t, map[string]tftypes.Value{
		attrGitCredentialHosts: hosts("github.com", "git.example.com:8443"), attrAllowLoopbackHTTP: tftypes.NewValue(tftypes.Bool, true),
		attrAllowLocalContentRepos: tftypes.NewValue(tftypes.Bool, true), outbound.AttrRequestTimeout: str("5s"), outbound.AttrReadTimeout: str("1m"),
		outbound.AttrMaxRetryAfter: str("2m"),
	})
	if diags.HasError() {
		t.Fatal(diags)
	}
	c = data.GitClient(WithSSHHostKeyFingerprint("")) // a per-resource copy keeps the scope
	if !c.Auth.LoopbackHTTP || !c.AllowLocalContent || strings.Join(c.CredentialHosts, ",") != "github.com,git.example.com:8443" {
		t.Errorf("attributes: loopback %v, local content %v, hosts %v", c.Auth.LoopbackHTTP, c.AllowLocalContent, c.CredentialHosts)
	}
	if l := data.APILimits; l.RequestTimeout != 5*time.Second || l.ReadTimeout != time.Minute || l.MaxRetryAfter != 2*time.Minute {
		t.Errorf("limits %+v", l)
	}

	t.Setenv(envAllowLoopbackHTTP, "1")
	t.Setenv(envAPIMaxRetryAfter, "45s")
	data, diags = configureWith(t, nil)
	if diags.HasError() || !data.LoopbackHTTP || data.APILimits.MaxRetryAfter != 45*time.Second {
		t.Errorf("environment: %v, loopback %v, limits %+v", diags, data.LoopbackHTTP, data.APILimits)
	}
	if data, _ = configureWith(t, map[string]tftypes.Value{attrAllowLoopbackHTTP: tftypes.NewValue(tftypes.Bool, false)}); data.LoopbackHTTP {
		t.Error("allow_loopback_http = false does not win over the environment")
	}

	for name, set := range map[string]map[string]tftypes.Value{
		"git_credential_hosts[1]": {attrGitCredentialHosts: hosts("github.com", "https://evil.example/")},
		"api_request_timeout":     {outbound.AttrRequestTimeout: str("0s")},
		"api_max_retry_after":     {outbound.AttrMaxRetryAfter: str("soon")},
	} {
		_, diags := configureWith(t, set)
		if !diags.HasError() || !strings.Contains(diags.Errors()[0].Summary(), "Invalid") {
			t.Errorf("%s: want an Invalid error, got %v", name, diags)
			continue
		}
		if d, ok := diags.Errors()[0].(diag.DiagnosticWithPath); !ok || d.Path().String() != name {
			t.Errorf("%s: error at %v", name, diags.Errors()[0])
		}
	}
}
