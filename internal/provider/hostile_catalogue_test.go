// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// TestHostileInputCatalogue_Resources is the resource layer of the bad-input catalogue: hostile values in
// resource, data source and provider configuration, planned by the real terraform binary. Each case must
// fail the plan with an `Error:` whose summary, attribute (the configuration line Terraform quotes, or
// the manifests[i] location) and detail are matched; a panic would fail every pattern.
func TestHostileInputCatalogue_Resources(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 254)
	ct := func(name string) string {
		return fmt.Sprintf("resource \"kalypso_cluster_type\" \"x\" {\n  name = %q\n}\n", name)
	}
	ctHCL := func(escaped string) string { // the name written with HCL escapes, as Terraform quotes it back
		return "resource \"kalypso_cluster_type\" \"x\" {\n  name = \"" + escaped + "\"\n}\n"
	}
	target := func(workload, target string) string {
		return fmt.Sprintf(`
resource "kalypso_workload_registration" "r" {
  name      = %q
  workspace = "team-a"
  workload  = { deployment_targets = [{ name = %q, environment = "dev", manifests = { repo = "r", branch = "b", path = "p" } }] }
}
`, workload, target)
	}
	render2 := func(extra string) string {
		return fmt.Sprintf(`
data "kalypso_environment_render" "this" {
  environment = "dev"
  manifests   = [%s, %s]
}
`, hclString(badInputBase+"---\n"+allPolicy), hclString(extra))
	}
	const av = "apiVersion: scheduler.kalypso.io/v1alpha1\n"
	bomb := "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
	for i := 'b'; i <= 'j'; i++ {
		bomb += fmt.Sprintf("%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	provider := func(attr string) string {
		return "provider \"kalypso\" {\n  " + attr + "\n}\n" + ct("ok")
	}

	cases := []struct {
		name     string
		config   string
		patterns []string
	}{
		{"cluster type name ..", ct(".."), []string{"Error: Invalid Kubernetes name", `name = ".."`, `".." is not a valid name`}},
		{"cluster type name that is an absolute path", ct("/etc/passwd"), []string{"Error: Invalid Kubernetes name", `name = "/etc/passwd"`}},
		{"cluster type name escaping through a sub-directory", ct("a/../../b"), []string{"Error: Invalid Kubernetes name", `name = "a/../../b"`}},
		{"cluster type name with NUL", ctHCL(`a\u0000b`), []string{"Error: Invalid Kubernetes name", `name = "a\u0000b"`}},
		{"cluster type name over 253 characters", ct(long), []string{"Error: Invalid Kubernetes name", `must be no more than 253 characters`}},
		{"reconciler template name with a path", "resource \"kalypso_cluster_type\" \"x\" {\n  name = \"ok\"\n  reconciler = \"../arc-flux\"\n}\n", []string{"Error: Invalid Kubernetes name", `reconciler = "../arc-flux"`}},
		{"deployment target name ..", target("app", ".."), []string{"Error: Invalid Kubernetes name", `with kalypso_workload_registration.r`, `".." is not a valid name`}},
		{"deployment target name that is an absolute path", target("app", "/etc"), []string{"Error: Invalid Kubernetes name", `"/etc" is not a valid name`}},
		{"deployment target name with NUL", strings.Replace(target("app", "NUL"), `"NUL"`, `"t\u0000x"`, 1), []string{"Error: Invalid Kubernetes name", `is not a valid name`}},
		{"deployment target full name over 253 characters", target(strings.Repeat("w", 200), strings.Repeat("t", 60)), []string{"Error: Invalid deployment target", `workload.deployment_targets[0]`, `Rename the targets`}},
		{"workload registration name ..", target("..", "t"), []string{"Error: Invalid Kubernetes name", `name      = ".."`}},
		{"render: two cluster types with the same name", render2(strings.SplitN(badInputBase, "---", 2)[0]), []string{"Error: Duplicate object", `manifests[1], document 0`, `ClusterType "large"`}},
		{"render: template calls fail", render2(av + "kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ fail \"refused\" }}'\n"),
			[]string{`Error: Template failed (ClusterType "large")`, `Field: spec.reconciler`, `refused`}},
		{"render: infinite re-render", render2("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loop\n  labels:\n    platform-config: \"true\"\ndata:\n  SELF: '{{ .ConfigData.SELF }}'\n---\n" +
			av + "kind: Template\nmetadata:\n  name: configmap\nspec:\n  type: config\n  manifests:\n    - 'x: {{ .ConfigData.SELF }}'\n"),
			[]string{"Error: Template failed", `Field: spec.configType`, `after 10 renders`}},
		{"render: template reads an environment variable", render2(av + "kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ env \"GIT_TOKEN\" }}'\n"),
			[]string{"Error: Template failed", `Field: spec.reconciler`, `env is disabled in Kalypso templates`}},
		{"render: YAML bomb", render2(bomb), []string{"Error: Malformed YAML document", `manifests[1], document 0`}},
		{"render: tab indentation", render2(av + "kind: ClusterType\nmetadata:\n\tname: x\n"), []string{"Error: Malformed YAML document", `manifests[1], document 0`}},
		{"render: duplicate key", render2(av + "kind: ClusterType\nkind: ClusterType\nmetadata:\n  name: x\n"), []string{"Error: Malformed YAML document", `manifests[1], document 0`}},
		{"render: selector with an invalid operator", render2(av + "kind: SchedulingPolicy\nmetadata:\n  name: bad\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions: [{key: a, operator: Near, values: [b]}]\n"),
			[]string{"Error: Invalid label selector", `manifests[1], document 0`, `spec.clusterTypeSelector.labelSelector`}},
		{"render: deployment target that escapes the tree", render2(av + "kind: Workload\nmetadata:\n  name: evil\nspec:\n  deploymentTargets:\n    - name: ../../etc\n      environment: dev\n      manifests: {repo: r, branch: b, path: p}\n"),
			[]string{"Error: Invalid deployment target name", `manifests[1], document 0`, `spec.deploymentTargets[0].name`}},
		{"provider git_timeout that is not a duration", provider(`git_timeout = "soon"`), []string{"Error: Invalid git_timeout", `"soon" is not a positive Go duration`}},
		{"provider git_timeout that is negative", provider(`git_timeout = "-5s"`), []string{"Error: Invalid git_timeout", `"-5s" is not a positive Go duration`}},
		// Issue 14: templates bounded, no document dropped, no file read.
		{"render: range 9e9 stops at template_timeout", "provider \"kalypso\" {\n  template_timeout = \"300ms\"\n}\n" +
			render2(av+"kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ range 9000000000 }}{{ end }}'\n"),
			[]string{"Error: Render limit exceeded", `Field: spec.reconciler`, `Template "arc-flux"`, `ran longer than 300ms`, "raise the `template_timeout` limit",
				"Raise it with `template_timeout` in the provider block, or with KALYPSO_TEMPLATE_TIMEOUT"}},
		{"render: until 3e9 refused before it allocates", render2(av + "kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ range until 3000000000 }}{{ end }}'\n"),
			[]string{"Error: Render limit exceeded", `until would build a value`, "raise the `template_max_output_bytes` limit"}},
		{"render: repeat 1e8 refused", "provider \"kalypso\" {\n  template_max_output_bytes = 1000000\n}\n" +
			render2(av+"kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ repeat 100000000 \"x\" }}'\n"),
			[]string{"Error: Render limit exceeded", `repeat would build`, `(now 1000000 bytes)`}},
		{"function: range 9e9 stops at the template_timeout option", fmt.Sprintf("output \"x\" {\n  value = provider::kalypso::environment_render(\"dev\", [%s, %s], { template_timeout = \"300ms\" }).content_hash\n}\n",
			hclString(badInputBase+"---\n"+allPolicy), hclString(av+"kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - '{{ range 9000000000 }}{{ end }}'\n")),
			[]string{"Render limit exceeded", `ran longer than 300ms`,
				"Raise it in the function's options argument, environment_render(environment, manifests, { template_timeout = ... }), or with KALYPSO_TEMPLATE_TIMEOUT"}},
		{"function: invalid limit option", fmt.Sprintf("output \"x\" {\n  value = provider::kalypso::environment_render(\"dev\", [%s], { template_timeout = \"soon\" }).content_hash\n}\n", hclString(badInputBase)),
			[]string{`"soon" is not a positive Go duration`}},
		// Issue 24: a config schema nested thousands deep is refused before it is compiled.
		{"render: ConfigSchema nested 5000 deep", render2(av + "kind: ConfigSchema\nmetadata:\n  name: deep\nspec:\n  schema: '" +
			strings.Repeat(`{"properties":{"a":`, 2500) + "{}" + strings.Repeat("}}", 2500) + "'\n"),
			[]string{"Error: Render limit exceeded", `ConfigSchema "deep" (a platform schema): the schema nests objects and arrays more than 128 levels deep`, "raise the `config_schema_max_depth` limit"}},
		{"function: ConfigSchema over the config_schema_max_bytes option", fmt.Sprintf("output \"x\" {\n  value = provider::kalypso::environment_render(\"dev\", [%s, %s], { config_schema_max_bytes = 100 }).content_hash\n}\n",
			hclString(badInputBase+"---\n"+allPolicy), hclString(av+"kind: ConfigSchema\nmetadata:\n  name: wide\nspec:\n  schema: '{\"type\":\"object\",\"description\":\""+strings.Repeat("x", 200)+"\"}'\n")),
			[]string{"Render limit exceeded", `ConfigSchema "wide" (a platform schema): the schema is 234 bytes, more than the limit of 100`}},
		{"provider config_schema_max_depth of 0", provider(`config_schema_max_depth = 0`), []string{"Error: Invalid config_schema_max_depth", `"0" is not a whole number`}},
		{"provider template_timeout that is not a duration", provider(`template_timeout = "soon"`), []string{"Error: Invalid template_timeout", `"soon" is not a positive Go duration`}},
		{"provider template_max_output_bytes of 0", provider(`template_max_output_bytes = 0`), []string{"Error: Invalid template_max_output_bytes", `"0" is not a whole number of bytes`}},
		{"render: separator Flux refuses", render2(av + "kind: ClusterType\nmetadata:\n  name: a\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n--- !!map\nkind: x\n"),
			[]string{"Error: Invalid document separator", `manifests[1], document 1 (line 8)`, `"--- !!map"`}},
		{"null label value", "resource \"kalypso_cluster_type\" \"x\" {\n  name = \"a\"\n  labels = { a = null }\n}\n",
			[]string{"Error: Null element", `labels = { a = null }`, `labels["a"] is null`}},
		{"null selector value", "resource \"kalypso_scheduling_policy\" \"p\" {\n  name = \"p\"\n  cluster_type_selector = { match_expressions = [{ key = \"a\", operator = \"In\", values = [\"b\", null] }] }\n}\n",
			[]string{"Error: Null element", `cluster_type_selector.match_expressions[0].values[1] is null`}},
		{"null match expression", "resource \"kalypso_scheduling_policy\" \"p\" {\n  name = \"p\"\n  cluster_type_selector = { match_expressions = [null] }\n}\n",
			[]string{"Error: Null element", `cluster_type_selector.match_expressions[0] is null`}},
		{"null template manifest", "resource \"kalypso_template\" \"t\" {\n  name = \"t\"\n  type = \"reconciler\"\n  manifests = [null]\n}\n",
			[]string{"Error: Null element", `manifests[0] is null`}},
		{"null platform config value", "resource \"kalypso_platform_config\" \"c\" {\n  name = \"c\"\n  data = { A = null }\n}\n",
			[]string{"Error: Null element", `data["A"] is null`}},
		{"null deployment target", strings.Replace(target("app", "t"), `deployment_targets = [{`, `deployment_targets = [null, {`, 1),
			[]string{"Error: Null element", `workload.deployment_targets[0] is null`}},
		{"empty deployment target name", target("app", ""), []string{"Error: Invalid Kubernetes name", `workload.deployment_targets[0].name: "" is not a valid name`}},
		{"platform config key with a space", "resource \"kalypso_platform_config\" \"c\" {\n  name = \"c\"\n  data = { \"a b\" = \"x\" }\n}\n",
			[]string{"Error: Invalid ConfigMap key", `"a b" cannot be a ConfigMap data key`}},
		{"platform config key ../x", "resource \"kalypso_platform_config\" \"c\" {\n  name = \"c\"\n  data = { \"../x\" = \"x\" }\n}\n",
			[]string{"Error: Invalid ConfigMap key", `"../x" cannot be a ConfigMap data key`}},
		{"platform config empty key", "resource \"kalypso_platform_config\" \"c\" {\n  name = \"c\"\n  data = { \"\" = \"x\" }\n}\n",
			[]string{"Error: Invalid ConfigMap key", `"" cannot be a ConfigMap data key`}},
		{"provider ca_certificates that is not PEM", provider(`ca_certificates = "not a certificate"`), []string{"Error: Invalid PEM certificates", `no PEM certificate found`}},
		{"provider ca_certificates holding a private key", provider(`ca_certificates = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"`), []string{"Error: Invalid PEM certificates", `not a CERTIFICATE`}},
		{"provider git_url_rewrites with a null", provider(`git_url_rewrites = { "https://github.com/" = null }`), []string{"Error: Null element", `git_url_rewrites["https://github.com/"] is null`}},
		{"render: null manifest", "data \"kalypso_environment_render\" \"this\" {\n  environment = \"dev\"\n  manifests = [null]\n}\n", []string{"Error: Null element", `manifests[0] is null`}},
		{"render: environment that cannot prefix a namespace", fmt.Sprintf("data \"kalypso_environment_render\" \"this\" {\n  environment = \"../x\"\n  manifests = [%s]\n}\n",
			hclString(strings.ReplaceAll(badInputBase+"---\n"+allPolicy, "environment: dev", `environment: "../x"`))), []string{"Error: Invalid environment", `"../x" starts every namespace`}},
		{"render: config schema $ref to /etc/passwd", render2(av + "kind: ConfigSchema\nmetadata:\n  name: s\nspec:\n  schema: '{\"$ref\": \"file:///etc/passwd\"}'\n"),
			[]string{"Error: Invalid config schema", `ConfigSchema s`, `is refused`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{expectPlanError(c.config, c.patterns...)},
			})
		})
	}
}

// gitopsValidate runs kalypso_gitops_commit's ValidateConfig on a configuration of the given attributes.
func gitopsValidate(t *testing.T, attrs map[string]tftypes.Value) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	r := &GitopsCommitResource{}
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	var resp fwresource.ValidateConfigResponse
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("panic: %v", p)
			}
		}()
		r.ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}}, &resp)
	}()
	return resp.Diagnostics
}

// TestHostileInputCatalogue_CommitResource: kalypso_gitops_commit's validation of hostile paths, file
// names and URLs, with the exact attribute path and severity of each diagnostic; credentials in a URL
// are rejected and never echoed in the diagnostic.
func TestHostileInputCatalogue_CommitResource(t *testing.T) {
	t.Parallel()
	const secret = "ghp_RESOURCEsecret0123456789"
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	files := func(names ...string) tftypes.Value {
		m := map[string]tftypes.Value{}
		for _, n := range names {
			m[n] = str("x")
		}
		return tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, m)
	}
	base := func(over map[string]tftypes.Value) map[string]tftypes.Value {
		a := map[string]tftypes.Value{"repository_url": str("https://example.com/org/fleet.git"), "branch": str("main"), "path": str("clusters"), "files": files("a/b.yaml")}
		for k, v := range over {
			a[k] = v
		}
		return a
	}
	long := strings.Repeat("z", 300)
	cases := []struct {
		name    string
		attrs   map[string]tftypes.Value
		summary string
		at      path.Path
		detail  string
	}{
		{"https URL with user and token", base(map[string]tftypes.Value{"repository_url": str("https://bot:" + secret + "@example.com/org/fleet.git")}), "Invalid repository_url", path.Root("repository_url"), "credentials"},
		{"https URL with a token as user name", base(map[string]tftypes.Value{"repository_url": str("https://" + secret + "@example.com/org/fleet.git")}), "Invalid repository_url", path.Root("repository_url"), "credentials"},
		{"ssh URL with a password", base(map[string]tftypes.Value{"repository_url": str("ssh://git:" + secret + "@example.com/org/fleet.git")}), "Invalid repository_url", path.Root("repository_url"), "password"},
		{"blank branch", base(map[string]tftypes.Value{"branch": str("  ")}), "Invalid branch", path.Root("branch"), "must not be empty"},
		{"path ..", base(map[string]tftypes.Value{"path": str("..")}), "Invalid path", path.Root("path"), `".."`},
		{"absolute path", base(map[string]tftypes.Value{"path": str("/etc")}), "Invalid path", path.Root("path"), `"/etc"`},
		{"path escaping through a sub-directory", base(map[string]tftypes.Value{"path": str("clusters/../../etc")}), "Invalid path", path.Root("path"), `".."`},
		{"path with NUL", base(map[string]tftypes.Value{"path": str("clusters\x00")}), "Invalid path", path.Root("path"), "NUL"},
		{"path segment over 255 bytes", base(map[string]tftypes.Value{"path": str(long)}), "Invalid path", path.Root("path"), "300 bytes"},
		{"file name ..", base(map[string]tftypes.Value{"files": files("../README.md")}), "Invalid file name", path.Root("files").AtMapKey("../README.md"), `".."`},
		{"absolute file name", base(map[string]tftypes.Value{"files": files("/etc/passwd")}), "Invalid file name", path.Root("files").AtMapKey("/etc/passwd"), "relative"},
		{"file name with NUL", base(map[string]tftypes.Value{"files": files("a\x00b")}), "Invalid file name", path.Root("files").AtMapKey("a\x00b"), "NUL"},
		{"file name over 255 bytes", base(map[string]tftypes.Value{"files": files("a/" + long)}), "Invalid file name", path.Root("files").AtMapKey("a/" + long), "300 bytes"},
		{"file name inside .git", base(map[string]tftypes.Value{"files": files("a/.git/hooks/post-checkout")}), "Invalid file name", path.Root("files").AtMapKey("a/.git/hooks/post-checkout"), ".git"},
		{"dot-entry at the root of path", base(map[string]tftypes.Value{"files": files(".github/workflows/x.yaml")}), "Dot-entry at the root of path", path.Root("files").AtMapKey(".github/workflows/x.yaml"), "never managed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			diags := gitopsValidate(t, c.attrs)
			if len(diags) != 1 {
				t.Fatalf("want exactly one diagnostic, got %v", diags)
			}
			d := diags[0]
			wp, ok := d.(diag.DiagnosticWithPath)
			if d.Severity() != diag.SeverityError || d.Summary() != c.summary || !ok || !wp.Path().Equal(c.at) || !strings.Contains(d.Detail(), c.detail) {
				t.Errorf("diagnostic %s %q at %v: %s\nwant error %q at %v containing %q", d.Severity(), d.Summary(), pathOf(d), d.Detail(), c.summary, c.at, c.detail)
			}
			if strings.Contains(d.Summary()+d.Detail(), secret) {
				t.Errorf("the diagnostic echoes the credential: %s", d.Detail())
			}
		})
	}
	// A valid configuration has no diagnostic (the table's cases fail for their own reason only).
	if diags := gitopsValidate(t, base(nil)); len(diags) != 0 {
		t.Errorf("valid configuration: %v", diags)
	}
}

func pathOf(d diag.Diagnostic) any {
	if wp, ok := d.(diag.DiagnosticWithPath); ok {
		return wp.Path()
	}
	return "(none)"
}

// TestHostileInputCatalogue_RenderWarningAtManifestIndex: a template that renders invalid YAML is a
// warning (not an error) on manifests[i] of kalypso_environment_render, read through the protocol
// so that severity and attribute path are exact; the file is still rendered.
func TestHostileInputCatalogue_RenderWarningAtManifestIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("test", testCaches)())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	provType := schemas.Provider.ValueType().(tftypes.Object)
	provVals := map[string]tftypes.Value{}
	for n, at := range provType.AttributeTypes {
		provVals[n] = tftypes.NewValue(at, nil)
	}
	provCfg, err := tfprotov6.NewDynamicValue(provType, tftypes.NewValue(provType, provVals))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &provCfg}); err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, resp)
	}
	dsType := schemas.DataSourceSchemas["kalypso_environment_render"].ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for n, at := range dsType.AttributeTypes {
		vals[n] = tftypes.NewValue(at, nil)
	}
	const av = "apiVersion: scheduler.kalypso.io/v1alpha1\n"
	broken := av + "kind: Template\nmetadata:\n  name: arc-flux\nspec:\n  type: reconciler\n  manifests:\n    - 'kind: [unclosed'\n"
	vals["environment"] = tftypes.NewValue(tftypes.String, "dev")
	vals["manifests"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{
		tftypes.NewValue(tftypes.String, badInputBase+"---\n"+allPolicy),
		tftypes.NewValue(tftypes.String, broken),
	})
	cfg, err := tfprotov6.NewDynamicValue(dsType, tftypes.NewValue(dsType, vals))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "kalypso_environment_render", Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
		if d.Summary == render.SummaryInvalidYAML+` (ClusterType "large")` {
			found = true
			want := tftypes.NewAttributePath().WithAttributeName("manifests").WithElementKeyInt(0)
			if d.Severity != tfprotov6.DiagnosticSeverityWarning || d.Attribute == nil || !d.Attribute.Equal(want) ||
				!strings.Contains(d.Detail, "large/app-web/reconciler.yaml") || !strings.Contains(d.Detail, `Template "arc-flux"`) {
				t.Errorf("warning %v at %v: %s", d.Severity, d.Attribute, d.Detail)
			}
		}
	}
	if !found {
		t.Fatalf("no %q warning: %+v", render.SummaryInvalidYAML, resp.Diagnostics)
	}
	state, err := resp.State.Unmarshal(dsType)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]tftypes.Value
	if err := state.As(&obj); err != nil {
		t.Fatal(err)
	}
	var rendered map[string]tftypes.Value
	if err := obj["files"].As(&rendered); err != nil {
		t.Fatal(err)
	}
	var content string
	if v, ok := rendered["large/app-web/reconciler.yaml"]; !ok || v.As(&content) != nil || content != "kind: [unclosed" {
		t.Errorf("the invalid file is not rendered as written: %q", content)
	}
}
