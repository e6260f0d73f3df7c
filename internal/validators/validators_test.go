// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package validators

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// expectOne asserts exactly one error at want path whose summary contains summary, or none when summary is "".
func expectOne(t *testing.T, diags diag.Diagnostics, want path.Path, summary string) {
	t.Helper()
	if summary == "" {
		if diags.HasError() {
			t.Fatalf("unexpected diagnostics: %v", diags)
		}
		return
	}
	if diags.ErrorsCount() != 1 {
		t.Fatalf("want one error, got %d: %v", diags.ErrorsCount(), diags)
	}
	d := diags.Errors()[0]
	withPath, ok := d.(diag.DiagnosticWithPath)
	if !ok {
		t.Fatalf("diagnostic %q has no attribute path", d.Summary())
	}
	if !withPath.Path().Equal(want) {
		t.Errorf("path = %s, want %s", withPath.Path(), want)
	}
	if !strings.Contains(d.Summary(), summary) {
		t.Errorf("summary = %q, want it to contain %q", d.Summary(), summary)
	}
}

func TestDNSSubdomainName(t *testing.T) {
	t.Parallel()
	p := path.Root("name")
	for value, summary := range map[string]string{
		"drone":                  "",
		"east-us.large":          "",
		"Drone":                  "Invalid Kubernetes name",
		"-drone":                 "Invalid Kubernetes name",
		"drone_1":                "Invalid Kubernetes name",
		strings.Repeat("a", 254): "Invalid Kubernetes name",
	} {
		resp := &validator.StringResponse{}
		DNSSubdomainName().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue(value)}, resp)
		expectOne(t, resp.Diagnostics, p, summary)
	}
}

func TestLabelMap(t *testing.T) {
	t.Parallel()
	p := path.Root("labels")
	cases := []struct {
		labels  map[string]string
		badKey  string
		summary string
	}{
		{map[string]string{"region": "east-us", "example.com/edge": "true", "empty": ""}, "", ""},
		{map[string]string{"region": "east-us", "bad key": "x"}, "bad key", "Invalid label key"},
		{map[string]string{"edge": "not a value"}, "edge", "Invalid label value"},
		{map[string]string{"size": strings.Repeat("x", 64)}, "size", "Invalid label value"},
	}
	for _, c := range cases {
		elems := map[string]attr.Value{}
		for k, v := range c.labels {
			elems[k] = types.StringValue(v)
		}
		resp := &validator.MapResponse{}
		LabelMap().ValidateMap(context.Background(), validator.MapRequest{Path: p, ConfigValue: types.MapValueMust(types.StringType, elems)}, resp)
		expectOne(t, resp.Diagnostics, p.AtMapKey(c.badKey), c.summary)
	}
}

func TestLabelKeyAndValue(t *testing.T) {
	t.Parallel()
	p := path.Root("key")
	resp := &validator.StringResponse{}
	LabelKey().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue("not/a/key")}, resp)
	expectOne(t, resp.Diagnostics, p, "Invalid label key")

	resp = &validator.StringResponse{}
	LabelValue().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue("bad value")}, resp)
	expectOne(t, resp.Diagnostics, p, "Invalid label value")

	resp = &validator.StringResponse{}
	LabelValue().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue("good.value-1")}, resp)
	expectOne(t, resp.Diagnostics, p, "")
}

func TestSelectorRequirement(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{"key": types.StringType, "operator": types.StringType, "values": types.ListType{ElemType: types.StringType}}
	obj := func(op string, values ...string) types.Object {
		var list types.List
		if values == nil {
			list = types.ListNull(types.StringType)
		} else {
			elems := []attr.Value{}
			for _, v := range values {
				elems = append(elems, types.StringValue(v))
			}
			list = types.ListValueMust(types.StringType, elems)
		}
		return types.ObjectValueMust(attrTypes, map[string]attr.Value{"key": types.StringValue("size"), "operator": types.StringValue(op), "values": list})
	}
	p := path.Root("cluster_type_selector").AtName("match_expressions").AtListIndex(0)
	for _, c := range []struct {
		value   types.Object
		summary string
	}{
		{obj("In", "large"), ""},
		{obj("NotIn", "small", "medium"), ""},
		{obj("Exists"), ""},
		{obj("DoesNotExist", []string{}...), ""},
		{obj("In"), "Selector operator needs values"},
		{obj("NotIn", []string{}...), "Selector operator needs values"},
		{obj("Exists", "large"), "Selector operator takes no values"},
		{obj("DoesNotExist", "large"), "Selector operator takes no values"},
	} {
		resp := &validator.ObjectResponse{}
		SelectorRequirement().ValidateObject(context.Background(), validator.ObjectRequest{Path: p, ConfigValue: c.value}, resp)
		// Reported on the top-level argument, which Terraform can show; the detail names the nested path.
		expectOne(t, resp.Diagnostics, path.Root("cluster_type_selector"), c.summary)
		if c.summary != "" && !strings.HasPrefix(resp.Diagnostics[0].Detail(), "cluster_type_selector.match_expressions[0].values: ") {
			t.Errorf("detail = %q", resp.Diagnostics[0].Detail())
		}
	}
}

// TestAddErrorLocatesNestedPaths: Terraform looks the last attribute name of a path up among the
// top-level arguments, so nested paths are reported on their top-level argument.
func TestAddErrorLocatesNestedPaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want path.Path }{
		{path.Root("name"), path.Root("name")},
		{path.Root("labels").AtMapKey("a"), path.Root("labels").AtMapKey("a")},
		{path.Root("workload").AtName("deployment_targets").AtListIndex(1).AtName("name"), path.Root("workload")},
		{path.Root("source").AtName("repo"), path.Root("source")},
	} {
		var diags diag.Diagnostics
		AddError(&diags, c.in, "S", "D")
		got := diags[0].(diag.DiagnosticWithPath)
		if !got.Path().Equal(c.want) {
			t.Errorf("%s reported at %s, want %s", c.in, got.Path(), c.want)
		}
		wantDetail := "D"
		if !c.in.Equal(c.want) {
			wantDetail = c.in.String() + ": D"
		}
		if got.Detail() != wantDetail {
			t.Errorf("%s: detail %q, want %q", c.in, got.Detail(), wantDetail)
		}
	}
}

func TestJSONSchema(t *testing.T) {
	t.Parallel()
	p := path.Root("schema")
	for value, summary := range map[string]string{
		`{"type":"object","required":["REGION"]}`:                  "",
		"type: object\nproperties:\n  REGION:\n    type: string\n": "",
		`{"type": 12}`:      "Invalid JSON Schema",
		`{"type": "object"`: "Invalid JSON Schema",
		// Upstream reads schema text as JSON, so JSON after a newline and tab-indented is valid.
		"\n\t{\n\t\t\"type\": \"object\",\n\t\t\"required\": [\"REGION\"]\n\t}\n": "",
	} {
		resp := &validator.StringResponse{}
		JSONSchema().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue(value)}, resp)
		expectOne(t, resp.Diagnostics, p, summary)
	}
}

func TestNoNullElements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := path.Root("labels")
	m := types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringNull(), "b": types.StringValue("x")})
	var mr validator.MapResponse
	NoNullElements().ValidateMap(ctx, validator.MapRequest{Path: p, ConfigValue: m}, &mr)
	expectOne(t, mr.Diagnostics, p.AtMapKey("a"), "Null element")

	l := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x"), types.StringNull()})
	var lr validator.ListResponse
	NoNullElements().ValidateList(ctx, validator.ListRequest{Path: path.Root("values"), ConfigValue: l}, &lr)
	expectOne(t, lr.Diagnostics, path.Root("values").AtListIndex(1), "Null element")

	var ok validator.MapResponse
	NoNullElements().ValidateMap(ctx, validator.MapRequest{Path: p, ConfigValue: types.MapUnknown(types.StringType)}, &ok)
	NoNullElements().ValidateMap(ctx, validator.MapRequest{Path: p, ConfigValue: types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("")})}, &ok)
	expectOne(t, ok.Diagnostics, p, "")
}

func TestConfigMapKeys(t *testing.T) {
	t.Parallel()
	p := path.Root("data")
	for key, summary := range map[string]string{"log.level": "", "A_B-c": "", "": "Invalid ConfigMap key", "a b": "Invalid ConfigMap key", "../x": "Invalid ConfigMap key", "..": "Invalid ConfigMap key", strings.Repeat("k", 254): "Invalid ConfigMap key"} {
		var r validator.MapResponse
		ConfigMapKeys().ValidateMap(context.Background(), validator.MapRequest{Path: p, ConfigValue: types.MapValueMust(types.StringType, map[string]attr.Value{key: types.StringValue("v")})}, &r)
		expectOne(t, r.Diagnostics, p.AtMapKey(key), summary)
	}
}

func TestPEMCertificates(t *testing.T) {
	t.Parallel()
	const cert = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR+gAwIBAgIUTH3vWoyXQjgvXp2Ys5WvmQEBaJIwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNTAxMDEwMDAwMDBaFw0zNTAxMDEwMDAw
MDBaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AARfu5Fh3I9S8kkh4Lf5ZbX4TLp5nmbmvIh3tYGiHHbN7tO5o+P0Yv2hQd0wHGJ4
QkFz1E8Q7mWlP4q1i5hT3Q8Co1MwUTAdBgNVHQ4EFgQU2b1uJm0x6y6Vj0j7d2k1
r8xQvE8wHwYDVR0jBBgwFoAU2b1uJm0x6y6Vj0j7d2k1r8xQvE8wDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiB6Yt2p8CqWwU9fFz3h2ZQkqX3Y5m2W
-----END CERTIFICATE-----
`
	for name, c := range map[string]struct{ text, err string }{
		"not PEM":           {"hello", "no PEM certificate found"},
		"private key":       {"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "not a CERTIFICATE"},
		"garbage after PEM": {"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\ntrailing", "does not parse"},
		"broken DER":        {cert, "does not parse"},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckPEMCertificates(c.text)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
		})
	}
}

func TestPEMCertificatesAcceptsRealCertificates(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	one := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	if err := CheckPEMCertificates("\n" + one + "\n" + one); err != nil {
		t.Fatalf("two certificates refused: %v", err)
	}
	var r validator.StringResponse
	PEMCertificates().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("ca_certificates"), ConfigValue: types.StringValue(one + "junk")}, &r)
	expectOne(t, r.Diagnostics, path.Root("ca_certificates"), "Invalid PEM certificates")
}

func TestWholeNumberString(t *testing.T) {
	t.Parallel()
	p := path.Root("max_changes")
	for value, summary := range map[string]string{
		"1": "", "1000": "", "100000": "",
		"0": "Invalid number", "100001": "Invalid number", "1.5": "Invalid number", "1e3": "Invalid number", " 7": "Invalid number", "": "Invalid number", "ten": "Invalid number",
	} {
		resp := &validator.StringResponse{}
		WholeNumberString(1, 100000).ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue(value)}, resp)
		expectOne(t, resp.Diagnostics, p, summary)
	}
}

// TestBranchName: the rule of kalypso_gitops_commit's branch (delivery.ValidateBranchName) on the data
// sources' branch attributes, invisible and non-ASCII characters included.
func TestBranchName(t *testing.T) {
	t.Parallel()
	p := path.Root("branch")
	for value, summary := range map[string]string{
		"dev":            "",
		"envs/dev":       "",
		"dév":            "Invalid branch",
		"dev\u200b":      "Invalid branch",
		"dev.lock":       "Invalid branch",
		"refs/heads/dev": "Invalid branch",
	} {
		resp := &validator.StringResponse{}
		BranchName().ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue(value)}, resp)
		expectOne(t, resp.Diagnostics, p, summary)
		if summary != "" && !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "envs/dev") {
			t.Errorf("%+q: the detail says no way out: %s", value, resp.Diagnostics.Errors()[0].Detail())
		}
	}
}
