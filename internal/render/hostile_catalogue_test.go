// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"path"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// TestHostileInputCatalogue_Render is the render layer of the bad-input catalogue (the codec layer is
// TestDecodeErrors and TestDecodeHostileInput in internal/model; the resource layer is
// TestHostileInputCatalogue_Resources in internal/provider; the commit layer is
// TestHostileInputCatalogue_Commit in internal/git). Every case asserts the summary, the severity, the
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

// TestInvalidYAMLWarningIsOnePerTemplateManifest: a broken template applied to many targets yields one
// warning that names the first file and counts the others, in a deterministic order.
func TestInvalidYAMLWarningIsOnePerTemplateManifest(t *testing.T) {
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
