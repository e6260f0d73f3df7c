// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// TestHostileInputCatalogue_Render is the render layer of the bad-input catalogue (the codec layer is
// TestDecodeErrors and TestDecodeHostileInput in internal/model; the resource layer is
// TestHostileInputCatalogue_Resources in internal/provider; the commit layer is
// TestHostileInputCatalogue_Commit in internal/gitrepo). Every case asserts the summary, the severity, the
// object and field, the input index (which the provider turns into the attribute path manifests[i]),
// that nothing panics, and that no rendered path can leave the tree.
func TestHostileInputCatalogue_Render(t *testing.T) {
	base := func(extra ...string) []string {
		return append([]string{
			clusterTypeDoc("large", nil, "rec", "ns", "cfg"),               // input 0
			registrationDoc("app", "ws"),                                   // input 1
			workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), // input 2
			policyDoc("p", "", "", ""),                                     // input 3
			simpleTemplates[0], simpleTemplates[1], simpleTemplates[2],     // inputs 4-6
		}, extra...)
	}
	// withTemplate replaces template index i (0 rec, 1 ns, 2 cfg) of base.
	withTemplate := func(i int, doc string, extra ...string) []string {
		docs := base(extra...)
		docs[4+i] = doc
		return docs
	}
	withWorkload := func(doc string) []string {
		docs := base()
		docs[2] = doc
		return docs
	}
	withPolicy := func(doc string) []string {
		docs := base()
		docs[3] = doc
		return docs
	}
	selfRef := configMapDoc("c", map[string]string{"platform-config": "true"}, map[string]string{"SELF": "{{ .ConfigData.SELF }}"})
	long := strings.Repeat("a", 250)

	cases := []struct {
		name     string
		docs     []string
		summary  string
		severity model.Severity
		kind     string
		object   string
		field    string
		input    int    // Source.Input, -1 for none
		detail   string // substring of Detail
		// files: the render still produces a tree (warnings only); each listed path must be in it.
		files []string
	}{
		{"template calls fail", withTemplate(1, templateDoc("ns", "namespace", "", "ok", `{{ fail "refused by the platform team" }}`)),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.namespaceService", 0, "refused by the platform team", nil},
		{"infinite re-render of a self-referencing config value", withTemplate(2, templateDoc("cfg", "config", "yaml", "x: {{ .ConfigData.SELF }}\n"), selfRef),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.configType", 0, "after 10 renders", nil},
		{"template parse error", withTemplate(0, templateDoc("rec", "reconciler", "", "{{ .Workload ")),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, `Template "rec"`, nil},
		{"template reads the environment (env)", withTemplate(0, templateDoc("rec", "reconciler", "", `{{ env "GIT_TOKEN" }}`)),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, "env is disabled in Kalypso templates", nil},
		{"template expands the environment (expandenv)", withTemplate(0, templateDoc("rec", "reconciler", "", `{{ expandenv "$HOME" }}`)),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, "expandenv is disabled", nil},
		{"template resolves host names (getHostByName)", withTemplate(0, templateDoc("rec", "reconciler", "", `{{ getHostByName "localhost" }}`)),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, "getHostByName is disabled", nil},
		{"config value re-rendered into env", withTemplate(2, templateDoc("cfg", "config", "yaml", "x: {{ .ConfigData.X }}\n"),
			configMapDoc("c", map[string]string{"platform-config": "true"}, map[string]string{"X": `{{ env "GIT_TOKEN" }}`})),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.configType", 0, "env is disabled in Kalypso templates", nil},
		{"app team's Workload text re-rendered into env", withTemplate(0, templateDoc("rec", "reconciler", "", "path: {{ .Manifests.path }}\n")),
			"Template failed", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, "env is disabled in Kalypso templates", nil},
		{"template produces invalid YAML: warning, file written as rendered", withTemplate(0, templateDoc("rec", "reconciler", "", "ok: 1\n", "kind: [unclosed\n")),
			SummaryInvalidYAML, model.SeverityWarning, model.KindClusterType, "large", "spec.reconciler", 0, `large/app-t/reconciler.yaml (deployment target "app-t" on cluster type "large"): manifests[1] of Template "rec"`,
			[]string{"large/app-t/reconciler.yaml"}},
		{"missing template", withTemplate(0, templateDoc("other", "reconciler", "", "x\n")),
			"Missing template", model.SeverityError, model.KindClusterType, "large", "spec.reconciler", 0, `"rec"`, nil},
		{"selector with an invalid operator", withPolicy(apiV + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      matchExpressions:\n        - {key: a, operator: Near, values: [b]}\n  clusterTypeSelector: {}\n"),
			"Invalid label selector", model.SeverityError, model.KindSchedulingPolicy, "p", "spec.deploymentTargetSelector.labelSelector", 3, "Near", nil},
		{"selector NotIn without values", withPolicy(apiV + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions:\n        - {key: a, operator: NotIn, values: []}\n"),
			"Invalid label selector", model.SeverityError, model.KindSchedulingPolicy, "p", "spec.clusterTypeSelector.labelSelector", 3, "", nil},
		{"selector value that is not a label value", withPolicy(apiV + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchLabels: {size: \"../x\"}\n"),
			"Invalid label selector", model.SeverityError, model.KindSchedulingPolicy, "p", "spec.clusterTypeSelector.labelSelector", 3, "", nil},
		{"two cluster types with the same name", base(clusterTypeDoc("large", map[string]string{"b": "c"}, "rec", "ns", "cfg")),
			"Duplicate object", model.SeverityError, model.KindClusterType, "large", "", 7, "manifests[0]", nil},
		{"two templates with the same name", base(templateDoc("rec", "reconciler", "", "y\n")),
			"Duplicate object", model.SeverityError, model.KindTemplate, "rec", "", 7, "manifests[4]", nil},
		{"deployment target name ..", withWorkload(workloadDoc("app", "", nil, targetSpec{name: "..", env: "dev"})),
			"Invalid deployment target name", model.SeverityError, model.KindWorkload, "app", "spec.deploymentTargets[0].name", 2, `"app-.."`, nil},
		{"deployment target name with /", withWorkload(workloadDoc("app", "", nil, targetSpec{name: "x/../../etc", env: "dev"})),
			"Invalid deployment target name", model.SeverityError, model.KindWorkload, "app", "spec.deploymentTargets[0].name", 2, "DNS-1123", nil},
		{"deployment target name that is an absolute path", withWorkload(workloadDoc("app", "", nil, targetSpec{name: "/etc/passwd", env: "dev"})),
			"Invalid deployment target name", model.SeverityError, model.KindWorkload, "app", "spec.deploymentTargets[0].name", 2, "DNS-1123", nil},
		{"deployment target name with NUL", withWorkload(strings.Replace(workloadDoc("app", "", nil, targetSpec{name: "NULHERE", env: "dev"}), "name: NULHERE", `name: "t\0x"`, 1)),
			"Invalid deployment target name", model.SeverityError, model.KindWorkload, "app", "spec.deploymentTargets[0].name", 2, "DNS-1123", nil},
		{"deployment target name over 253 characters", withWorkload(workloadDoc("app", "", nil, targetSpec{name: long, env: "dev"})),
			"Invalid deployment target name", model.SeverityError, model.KindWorkload, "app", "spec.deploymentTargets[0].name", 2, "253", nil},
		{"workload name that escapes the tree", withWorkload(workloadDoc("../app", "app", nil, targetSpec{name: "t", env: "dev"})),
			"Invalid object name", model.SeverityError, model.KindWorkload, "../app", "metadata.name", 2, "", nil},
		{"invalid config schema", base(configSchemaDoc("s", nil, "{not json")),
			"Invalid config schema", model.SeverityError, model.KindClusterType, "large", "", 0, "ConfigSchema s", nil},
		// Issue 14: no document dropped, no file read.
		{"separator Flux refuses (--- !!map)", base(clusterTypeDoc("a", nil, "rec", "ns", "cfg") + "--- !!map\n" + clusterTypeDoc("b", nil, "rec", "ns", "cfg")),
			model.SummaryInvalidSeparator, model.SeverityError, "", "", "", 7, `line 11 is "--- !!map"`, nil},
		{"object glued to the separator", base(clusterTypeDoc("a", nil, "rec", "ns", "cfg") + "---" + clusterTypeDoc("b", nil, "rec", "ns", "cfg")),
			model.SummaryInvalidSeparator, model.SeverityError, "", "", "", 7, `move "apiVersion: scheduler.kalypso.io/v1alpha1" to the next line`, nil},
		{"text after a document end marker", base(clusterTypeDoc("a", nil, "rec", "ns", "cfg") + "...\n" + clusterTypeDoc("b", nil, "rec", "ns", "cfg")),
			model.SummaryHiddenDocuments, model.SeverityError, "", "", "", 7, "which a YAML decoder would drop", nil},
		{"config schema $ref to a local file", base(configSchemaDoc("s", nil, `{"type": "object", "properties": {"A": {"$ref": "file:///etc/passwd"}}}`)),
			"Invalid config schema", model.SeverityError, model.KindClusterType, "large", "", 0, `ConfigSchema s: schema does not compile`, nil},
		{"deployment target configSchemas $ref to a URL", withWorkload(workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", schemas: []string{`{"$ref": "https://example.invalid/s.json"}`}})),
			"Invalid config schema", model.SeverityError, model.KindClusterType, "large", "", 0, `deployment target configSchemas[0]`, nil},
		{"config schema $ref to a relative file", base(configSchemaDoc("s", nil, `{"$ref": "other.json#/definitions/x"}`)),
			"Invalid config schema", model.SeverityError, model.KindClusterType, "large", "", 0, `is refused: a schema may only reference its own definitions`, nil},
	}
	// The app team controls its Workload file: its manifests.path asks for the provider's environment.
	for i := range cases {
		if strings.HasPrefix(cases[i].name, "app team's") {
			cases[i].docs[2] = strings.Replace(cases[i].docs[2], "path: ./t", `path: '{{ env "KALYPSO_CATALOGUE_SECRET" }}'`, 1)
		}
	}
	t.Setenv("KALYPSO_CATALOGUE_SECRET", "s3cr3t-value")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res *Result
			var diags model.Diagnostics
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				res, diags = NewEngine().Render("dev", c.docs, Options{})
			}()
			d := findDiag(diags, c.summary)
			if d == nil {
				t.Fatalf("no %q diagnostic; got %v", c.summary, diags)
			}
			if d.Severity != c.severity || d.Kind != c.kind || d.Name != c.object || d.Field != c.field || d.Source.Input != c.input || !strings.Contains(d.Detail, c.detail) {
				t.Errorf("diagnostic %+v\nwant severity %v, %s %q, field %q, input %d, detail containing %q", *d, c.severity, c.kind, c.object, c.field, c.input, c.detail)
			}
			if c.severity == model.SeverityError && (res != nil || !diags.HasError()) {
				t.Errorf("an error case produced a tree: %v", res)
			}
			if c.files != nil {
				if res == nil || diags.HasError() {
					t.Fatalf("a warning case produced no tree: %v", diags)
				}
				for _, f := range c.files {
					if _, ok := res.Files[f]; !ok {
						t.Errorf("file %s not rendered", f)
					}
				}
			}
			if res != nil {
				assertTreeSafe(t, res.Files)
				for p, content := range res.Files {
					if strings.Contains(content, "s3cr3t-value") {
						t.Errorf("%s holds the environment variable", p)
					}
				}
			}
			if strings.Contains(d.Detail, "s3cr3t-value") {
				t.Errorf("the diagnostic holds the environment variable: %s", d.Detail)
			}
		})
	}
}

// TestHostileInputCatalogue_RenderLimits is the template-limit part of the catalogue (issue 14): each
// input would run for minutes or take gigabytes without the limits; here each stops at a limit of a
// fraction of a second, with a diagnostic that names the template, the deployment target, the Workload,
// the cluster type and the attribute to raise, and no tree.
func TestHostileInputCatalogue_RenderLimits(t *testing.T) {
	t.Parallel()
	docs := func(rec string, workload string) []string {
		if workload == "" {
			workload = workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"})
		}
		return []string{clusterTypeDoc("large", nil, "rec", "ns", "cfg"), registrationDoc("app", "ws"), workload, policyDoc("p", "", "", ""),
			templateDoc("rec", "reconciler", "", rec), simpleTemplates[1], simpleTemplates[2]}
	}
	hostilePath := strings.Replace(workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), "path: ./t", `path: "{{ range 9000000000 }}{{ end }}"`, 1)
	builtin := func(d []string) []string {
		d[0] = clusterTypeDoc("large", nil, "arc-flux", "default", "configmap")
		return d
	}
	lim := Options{TemplateTimeout: 300 * time.Millisecond, MaxTemplateOutput: 1 << 20}
	cases := []struct {
		name    string
		docs    []string
		opts    Options
		summary string
		field   string
		detail  []string
	}{
		{"range over 9e9 with an empty body", docs("{{ range 9000000000 }}{{ end }}", ""), lim, SummaryRenderLimit, "spec.reconciler",
			[]string{`Template "rec" (deployment target "app-t" of Workload "app" on cluster type "large") ran longer than 300ms`, "raise the `template_timeout` limit"}},
		{"range until 3e9", docs("{{ range until 3000000000 }}{{ end }}", ""), lim, SummaryRenderLimit, "spec.reconciler",
			[]string{"until would build a value of about 48000000000 bytes", "raise the `template_max_output_bytes` limit (now 1048576 bytes)", "manifests[0]"}},
		{"repeat 1e8", docs(`{{ repeat 100000000 "x" }}`, ""), lim, SummaryRenderLimit, "spec.reconciler",
			[]string{"repeat would build", `Template "rec"`}},
		{"the Workload's manifests.path, with the built-in templates", builtin(docs("x", hostilePath)), lim, SummaryRenderLimit, "spec.reconciler",
			[]string{`Template "arc-flux" (deployment target "app-t" of Workload "app" on cluster type "large"), in text it inserted and re-rendered (render 2`, "raise the `template_timeout` limit"}},
		{"a tree larger than the render budget", docs(`{{ repeat 1000 "x" }}`, ""), Options{MaxOutput: 500}, SummaryRenderLimit, "",
			[]string{`grew past 500 bytes`, "raise the `render_max_output_bytes` limit"}},
		{"the whole render's deadline", docs("{{ range 9000000000 }}{{ end }}", ""), Options{Timeout: 300 * time.Millisecond}, SummaryRenderLimit, "",
			[]string{`took longer than 300ms`, "raise the `render_timeout` limit"}},
		// A schema nested 5,000 deep took minutes and 600 MB to compile, outside every limit.
		{"a Workload's config schema nested 5000 deep", docs("x", workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", schemas: []string{deepSchema(2500)}})), Options{}, SummaryRenderLimit, "",
			[]string{`deployment target "app-t" on cluster type "large": configSchemas[0] of deployment target "app-t", from Workload "app" (an application team's schema): ` +
				"the schema nests objects and arrays more than 128 levels deep (the limit), so it was not compiled. Simplify the schema; if it really needs more, " +
				"raise the `config_schema_max_depth` limit (now 128 levels)"}},
		{"a platform ConfigSchema over the size limit", append(docs("x", ""), configSchemaDoc("big", nil, `{"type":"object","description":"`+strings.Repeat("x", 2000)+`"}`)),
			Options{SchemaMaxBytes: 1000}, SummaryRenderLimit, "",
			[]string{`ConfigSchema "big" (a platform schema): the schema is 2034 bytes, more than the limit of 1000, so it was not compiled`,
				"raise the `config_schema_max_bytes` limit", "(now 1000 bytes)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, diags := NewEngine().Render("dev", c.docs, c.opts)
			if res != nil || len(diags) != 1 {
				t.Fatalf("result %v, diagnostics %v", res, diags)
			}
			d := diags[0]
			if d.Summary != c.summary || d.Field != c.field || d.Severity != model.SeverityError {
				t.Errorf("diagnostic %+v", d)
			}
			for _, want := range c.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail %q lacks %q", d.Detail, want)
				}
			}
		})
	}
	t.Run("Terraform's context canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		res, diags := NewEngine().Render("dev", docs("{{ range 9000000000 }}{{ end }}", ""), Options{Context: ctx})
		if res != nil || len(diags) != 1 || diags[0].Summary != SummaryRenderCanceled {
			t.Fatalf("result %v, diagnostics %v", res, diags)
		}
	})
	t.Run("many targets stop at the first limit", func(t *testing.T) {
		var targets []targetSpec
		for i := 0; i < 200; i++ {
			targets = append(targets, targetSpec{name: fmt.Sprintf("t%d", i), env: "dev"})
		}
		res, diags := NewEngine().Render("dev", docs("{{ range 9000000000 }}{{ end }}", workloadDoc("app", "", nil, targets...)), lim)
		if res != nil || len(diags) != 1 || diags[0].Summary != SummaryRenderLimit {
			t.Fatalf("result %v, diagnostics %v", res, diags)
		}
	})
}

// TestCRLFInputKeepsEveryDocument: a manifests string from a Windows editor keeps every document.
func TestCRLFInputKeepsEveryDocument(t *testing.T) {
	t.Parallel()
	all := strings.Join([]string{clusterTypeDoc("large", nil, "rec", "ns", "cfg"), clusterTypeDoc("small", nil, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"), workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), policyDoc("p", "", "", "")}, "--- # next\n")
	docs := append([]string{strings.ReplaceAll(all, "\n", "\r\n")}, simpleTemplates...)
	res, diags := NewEngine().Render("dev", docs, Options{})
	if diags.HasError() || res == nil || len(res.Assignments) != 2 || res.Files["small/app-t/namespace.yaml"] != "namespace dev-small-app-t\n" {
		t.Fatalf("diagnostics %v, result %+v", diags, res)
	}
}

// TestInvalidYAMLWarningIsOnePerTemplateManifest: a broken template applied to many targets yields one
// warning that names the first file and counts the others, in a deterministic order.
func TestInvalidYAMLWarningIsOnePerTemplateManifest(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", nil, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "a", env: "dev"}, targetSpec{name: "b", env: "dev"}, targetSpec{name: "c", env: "dev"}),
		policyDoc("p", "", "", ""),
		templateDoc("rec", "reconciler", "", "key: {{ .DeploymentTargetName }}: broken\n"),
		simpleTemplates[1], simpleTemplates[2],
	}
	for i := 0; i < 5; i++ {
		res, diags := NewEngine().Render("dev", docs, Options{Parallelism: 3})
		if res == nil || len(diags) != 1 || diags[0].Summary != SummaryInvalidYAML ||
			!strings.HasPrefix(diags[0].Detail, "large/app-a/reconciler.yaml") || !strings.Contains(diags[0].Detail, "in 2 more file(s)") {
			t.Fatalf("diagnostics %v", diags)
		}
		if res.Files["large/app-b/reconciler.yaml"] != "key: app-b: broken\n" {
			t.Errorf("the file is not written as rendered: %q", res.Files["large/app-b/reconciler.yaml"])
		}
	}
}

// assertTreeSafe fails when a rendered path could be written outside the GitOps root.
func assertTreeSafe(t *testing.T, files map[string]string) {
	t.Helper()
	for p := range files {
		if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
			t.Errorf("unsafe rendered path %q", p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." || seg == "." || seg == "" || len(seg) > 253 {
				t.Errorf("unsafe segment %q in rendered path %q", seg, p)
			}
		}
	}
}

// TestHostileInputCatalogue_Deployability: values that upstream writes but a cluster refuses (issue 14).
// Written by a built-in template into a validated field, they are errors naming the deployment target,
// the cluster type and the value; handed to an input template, which may not use them, they are warnings.
func TestHostileInputCatalogue_Deployability(t *testing.T) {
	t.Parallel()
	docs := func(ct, workload, registration string, extra ...string) []string {
		if ct == "" {
			ct = clusterTypeDoc("large", nil, "arc-flux", "default", "configmap")
		}
		if workload == "" {
			workload = workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"})
		}
		if registration == "" {
			registration = registrationDoc("app", "ws")
		}
		return append([]string{ct, registration, workload, policyDoc("p", "", "", "")}, extra...)
	}
	withRepo := func(repo string) string {
		return strings.Replace(workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), "repo: https://example.com/app", "repo: "+repo, 1)
	}
	long := strings.Repeat("w", 40)
	cases := []struct {
		name, env string
		docs      []string
		summary   string
		severity  model.Severity
		object    string
		field     string
		detail    []string
	}{
		{"cluster type name with dots", "dev", docs(clusterTypeDoc("east.us.large", nil, "arc-flux", "default", "configmap"), "", ""),
			SummaryInvalidNamespace, model.SeverityError, "east.us.large", "spec.namespaceService",
			[]string{`deployment target "app-t" on cluster type "east.us.large": the namespace "dev-east.us.large-app-t"`, `built-in "default" template`}},
		{"namespace over 63 characters", "dev", docs("", workloadDoc(long, "", nil, targetSpec{name: "target-with-a-long-name", env: "dev"}), registrationDoc(long, "ws")),
			SummaryInvalidNamespace, model.SeverityError, "large", "spec.namespaceService", []string{"must be no more than 63 characters"}},
		{"deployment target label value over 63 characters", "dev", docs("", workloadDoc(strings.Repeat("a", 50), "", nil, targetSpec{name: strings.Repeat("b", 20), env: "dev"}), registrationDoc(strings.Repeat("a", 50), "ws")),
			SummaryInvalidLabelValue, model.SeverityError, "large", "spec.namespaceService", []string{"label deploymentTarget: ", "must be no more than 63 bytes"}},
		{"workspace that is not a label value", "dev", docs("", "", registrationDoc("app", "a b")),
			SummaryInvalidLabelValue, model.SeverityError, "large", "spec.namespaceService", []string{`label workspace: "a b"`}},
		{"scp-style repo in a Flux GitRepository", "dev", docs("", withRepo("git@github.com:org/app.git"), ""),
			SummaryInvalidRepoURL, model.SeverityError, "large", "spec.reconciler", []string{`manifests.repo "git@github.com:org/app.git"`, "http://, https:// or ssh://"}},
		{"file:// repo in a Flux GitRepository", "dev", docs("", withRepo("file:///srv/app.git"), ""),
			SummaryInvalidRepoURL, model.SeverityError, "large", "spec.reconciler", []string{`"file:///srv/app.git"`}},
		{"empty repo in a Flux GitRepository", "dev", docs("", withRepo(`""`), ""),
			SummaryInvalidRepoURL, model.SeverityError, "large", "spec.reconciler", []string{`manifests.repo ""`}},
		{"platform config key the built-in ConfigMap cannot hold", "dev", docs("", "", "", configMapDoc("c", map[string]string{"platform-config": "true"}, map[string]string{"a b": "x"})),
			SummaryInvalidConfigKey, model.SeverityError, "large", "spec.configType", []string{`platform config key "a b"`}},
		{"environment ../x", "../x", docs("", strings.Replace(workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), "environment: dev", `environment: "../x"`, 1), ""),
			SummaryInvalidEnvironment, model.SeverityError, "", "", []string{`environment "../x" starts every namespace`}},
		{"environment with a space", "a b", docs("", strings.Replace(workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}), "environment: dev", `environment: "a b"`, 1), ""),
			SummaryInvalidEnvironment, model.SeverityError, "", "", []string{`"a b"`}},
		{"environment in upper case", "Dev", docs("", workloadDoc("app", "", nil, targetSpec{name: "t", env: "Dev"}), ""), SummaryInvalidEnvironment, model.SeverityError, "", "", []string{`"Dev"`}},
		{"invalid namespace handed to input templates: warning", "dev",
			docs(clusterTypeDoc("east.us.large", nil, "rec", "ns", "cfg"), "", "", simpleTemplates...),
			SummaryInvalidNamespace, model.SeverityWarning, "east.us.large", "spec.namespaceService", []string{"templates get it as .Namespace"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, diags := NewEngine().Render(c.env, c.docs, Options{})
			d := findDiag(diags, c.summary)
			if d == nil {
				t.Fatalf("no %q diagnostic; got %v", c.summary, diags)
			}
			if d.Severity != c.severity || d.Name != c.object || d.Field != c.field {
				t.Errorf("diagnostic %+v", *d)
			}
			for _, w := range c.detail {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("detail %q lacks %q", d.Detail, w)
				}
			}
			if c.severity == model.SeverityError && res != nil {
				t.Errorf("an error case produced a tree")
			}
			if c.severity == model.SeverityWarning && (res == nil || diags.HasError()) {
				t.Errorf("a warning case produced no tree: %v", diags)
			}
		})
	}
	// The same inputs with valid values render without a deployability diagnostic; argocd accepts scp-style URLs.
	ok := docs(clusterTypeDoc("large", nil, "argocd", "default", "configmap"), withRepo("git@github.com:org/app.git"), "")
	if res, diags := NewEngine().Render("dev", ok, Options{}); res == nil || len(diags) != 0 {
		t.Errorf("valid input: %v", diags)
	}
}

// deepSchema is a JSON Schema whose properties nest n objects deep (2n+1 levels of JSON).
func deepSchema(n int) string {
	return strings.Repeat(`{"properties":{"a":`, n) + "{}" + strings.Repeat("}}", n)
}
