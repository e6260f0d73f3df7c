// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

func TestRenderTreeLayout(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		clusterTypeDoc("unused", map[string]string{"size": "none"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", labels: map[string]string{"purpose": "p"}}),
		policyDoc("p", "", "", "{matchLabels: {size: large}}"),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REGION": "west", "LIST": "- a"}),
		apiV + "kind: BaseRepo\nmetadata:\n  name: main\nspec:\n  repo: r\n  branch: main\n  path: .\n  commit: c0ffee\n",
	}, simpleTemplates...)
	res, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 0 {
		t.Errorf("unexpected diagnostics: %v", diags)
	}
	want := map[string]string{
		"large/README.md":                  "This folder contains deployment targets scheduled on the cluster type",
		"unused/README.md":                 "This folder contains deployment targets scheduled on the cluster type",
		"large/app-t/reconciler.yaml":      "reconciler app-t on large\n",
		"large/app-t/namespace.yaml":       "namespace dev-large-app-t\n",
		"large/app-t/platform-config.yaml": "LIST=[a]\nREGION=west\n",
	}
	if !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files =\n%#v\nwant\n%#v", res.Files, want)
	}
	if res.PromotedCommit != "c0ffee" || res.Environment != "dev" || !reflect.DeepEqual(res.ClusterTypes, []string{"large", "unused"}) {
		t.Errorf("result = %+v", res)
	}
	if _, ok := res.Files[".github/tracking/Promoted_Commit_Id"]; ok {
		t.Errorf("the render must not write the promoted commit; kalypso_gitops_commit does")
	}
	if res.ContentHash != ContentHash(want) || len(res.ContentHash) != 64 {
		t.Errorf("content hash %q", res.ContentHash)
	}
}

func renderFiles(t *testing.T, templates ...string) map[string]string {
	t.Helper()
	docs := append([]string{
		clusterTypeDoc("ct", nil, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
	}, templates...)
	res, _ := mustRender(t, "dev", Options{}, docs...)
	return res.Files
}

func TestRenderFileRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		templates []string
		want      map[string]string // files under ct/app-t/
	}{
		{"reconciler and namespace are written even when empty; empty config is not",
			[]string{templateDoc("rec", "reconciler", "", "{{ if false }}x{{ end }}"), templateDoc("ns", "namespace", ""), templateDoc("cfg", "config", "yaml", "")},
			map[string]string{"reconciler.yaml": "", "namespace.yaml": ""}},
		{"manifests are joined with a bare ---",
			[]string{templateDoc("rec", "reconciler", "", "a: 1", "b: 2\n", "", "c: 3\n"), templateDoc("ns", "namespace", "", "n\n"), templateDoc("cfg", "config", "", "k: v")},
			map[string]string{"reconciler.yaml": "a: 1---\nb: 2\n---\nc: 3\n", "namespace.yaml": "n\n", "platform-config.yaml": "k: v"}},
		{"whitespace-only results are kept",
			[]string{templateDoc("rec", "reconciler", "", " ", "\n"), templateDoc("ns", "namespace", "", "x"), templateDoc("cfg", "config", "yaml", "\n")},
			map[string]string{"reconciler.yaml": " ---\n\n", "namespace.yaml": "x", "platform-config.yaml": "\n"}},
		{"contentType sh writes platform-config.sh",
			[]string{templateDoc("rec", "reconciler", "", "r"), templateDoc("ns", "namespace", "", "n"), templateDoc("cfg", "config", "sh", "export A=1\n")},
			map[string]string{"reconciler.yaml": "r", "namespace.yaml": "n", "platform-config.sh": "export A=1\n"}},
		{"contentType must be exactly sh",
			[]string{templateDoc("rec", "reconciler", "", "r"), templateDoc("ns", "namespace", "", "n"), templateDoc("cfg", "config", "SH", "export A=1\n")},
			map[string]string{"reconciler.yaml": "r", "namespace.yaml": "n", "platform-config.yaml": "export A=1\n"}},
		{"empty sh config is not written",
			[]string{templateDoc("rec", "reconciler", "", "r"), templateDoc("ns", "namespace", "", "n"), templateDoc("cfg", "config", "sh", "{{ range .ConfigData }}x{{ end }}")},
			map[string]string{"reconciler.yaml": "r", "namespace.yaml": "n"}},
		{"template data",
			[]string{templateDoc("rec", "reconciler", "", "{{ .DeploymentTargetName }}|{{ .Namespace }}|{{ .Environment }}|{{ .Workspace }}|{{ .Workload }}|{{ .ClusterType }}|{{ .Manifests.repo }}|{{ .Manifests.branch }}|{{ .Manifests.path }}|{{ .Labels.workload }}|{{ .Labels.workspace }}|{{ .Labels.nope }}"),
				templateDoc("ns", "namespace", "", "n"), templateDoc("cfg", "config", "", "")},
			map[string]string{"reconciler.yaml": "app-t|dev-ct-app-t|dev|ws|app|ct|https://example.com/app|dev|./t|app|ws|<no value>", "namespace.yaml": "n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := renderFiles(t, c.templates...)
			got := map[string]string{}
			for p, content := range files {
				if strings.HasPrefix(p, "ct/app-t/") {
					got[strings.TrimPrefix(p, "ct/app-t/")] = content
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("files =\n%#v\nwant\n%#v", got, c.want)
			}
			if files["ct/README.md"] != model.ReadmeText {
				t.Errorf("README missing")
			}
		})
	}
}

func TestRenderConfigDataPerAssignment(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large", "region": "west"}, "rec", "ns", "cfg"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", labels: map[string]string{"purpose": "test"}}),
		policyDoc("p", "", "", ""),
		configMapDoc("a-all", map[string]string{"platform-config": "true"}, map[string]string{"SIZE": "default", "GREETING": "hi {{ .ClusterType }}"}),
		configMapDoc("b-large", map[string]string{"platform-config": "true", "size": "large"}, map[string]string{"SIZE": "big"}),
		configMapDoc("c-target", map[string]string{"platform-config": "true", "deployment-target": "app-t", "cluster-type": "small"}, map[string]string{"ONLY": "small-target"}),
		configMapDoc("azure-app-config-x", nil, map[string]string{"region.west.SIZE": "west-size"}),
	}, simpleTemplates...)
	res, _ := mustRender(t, "dev", Options{}, docs...)
	if got, want := res.Files["large/app-t/platform-config.yaml"], "GREETING=hi large\nSIZE=west-size\n"; got != want {
		t.Errorf("large config = %q, want %q", got, want)
	}
	if got, want := res.Files["small/app-t/platform-config.yaml"], "GREETING=hi small\nONLY=small-target\nSIZE=default\n"; got != want {
		t.Errorf("small config = %q, want %q", got, want)
	}
}

func TestRenderMissingTemplate(t *testing.T) {
	t.Parallel()
	for _, field := range []string{"spec.reconciler", "spec.namespaceService", "spec.configType"} {
		t.Run(field, func(t *testing.T) {
			rec, ns, cfg := "rec", "ns", "cfg"
			switch field {
			case "spec.reconciler":
				rec = "ghost"
			case "spec.namespaceService":
				ns = "ghost"
			default:
				cfg = "ghost"
			}
			docs := append([]string{
				clusterTypeDoc("large", nil, rec, ns, cfg),
				registrationDoc("app", "ws"),
				workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
				policyDoc("p", "", "", ""),
			}, simpleTemplates...)
			res, diags := NewEngine().Render("dev", docs, Options{})
			d := findDiag(diags, "Missing template")
			if res != nil || d == nil || d.Severity != model.SeverityError || d.Kind != model.KindClusterType || d.Name != "large" || d.Field != field ||
				!strings.Contains(d.Detail, `"ghost"`) || !strings.Contains(d.Detail, `"app-t"`) || d.Source.Input != 0 {
				t.Errorf("result %v, diagnostic %+v", res, diags)
			}
		})
	}
}

func TestRenderTemplateFailure(t *testing.T) {
	t.Parallel()
	for name, tmpl := range map[string]string{
		"parse":     "{{ .Workload ",
		"execute":   `{{ fail "nope" }}`,
		"re-render": "{{ .ConfigData.SELF }}",
	} {
		t.Run(name, func(t *testing.T) {
			docs := []string{
				clusterTypeDoc("large", nil, "rec", "ns", "cfg"),
				registrationDoc("app", "ws"),
				workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
				policyDoc("p", "", "", ""),
				configMapDoc("c", map[string]string{"platform-config": "true"}, map[string]string{"SELF": "{{ .ConfigData.SELF }}"}),
				simpleTemplates[0], simpleTemplates[2],
				templateDoc("ns", "namespace", "", "ok", tmpl),
			}
			res, diags := NewEngine().Render("dev", docs, Options{})
			d := findDiag(diags, "Template failed")
			if res != nil || d == nil || d.Field != "spec.namespaceService" || d.Name != "large" || !strings.Contains(d.Detail, "manifests[1]") || !strings.Contains(d.Detail, `Template "ns"`) {
				t.Errorf("diagnostics %v", diags)
			}
		})
	}
}

func TestBuiltinTemplates(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("flux", map[string]string{"r": "flux"}, "arc-flux", "default", ""),
		clusterTypeDoc("argo", map[string]string{"r": "argo"}, "argocd", "default", "configmap"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("c", map[string]string{"platform-config": "true"}, map[string]string{
			"STR": "text", "NUM": "3", "BOOL": "true", "Y": "y", "LIST": "- a\n- b", "MAP": "host: port\nflag: off", "QUOTE": `say "hi"`, "EMPTY": "",
		}),
	}
	res, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	type object struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Data map[string]interface{} `json:"data"`
	}
	parse := func(path string) []object {
		content, ok := res.Files[path]
		if !ok {
			t.Fatalf("%s not rendered; files: %v", path, sortedKeys(res.Files))
		}
		var out []object
		for _, doc := range strings.Split(content, "---\n") {
			var o object
			if err := yaml.UnmarshalStrict([]byte(doc), &o, yaml.DisallowUnknownFields); err != nil {
				// Unknown fields are expected in real manifests; only the YAML syntax matters here.
				if err2 := yaml.Unmarshal([]byte(doc), &o); err2 != nil {
					t.Fatalf("%s: invalid YAML: %v\n%s", path, err2, doc)
				}
			}
			out = append(out, o)
		}
		return out
	}
	kinds := func(objs []object) []string {
		var ks []string
		for _, o := range objs {
			ks = append(ks, o.APIVersion+" "+o.Kind)
		}
		return ks
	}
	if got, want := kinds(parse("flux/app-t/reconciler.yaml")), []string{"source.toolkit.fluxcd.io/v1 GitRepository", "kustomize.toolkit.fluxcd.io/v1 Kustomization"}; !reflect.DeepEqual(got, want) {
		t.Errorf("arc-flux kinds %v, want %v", got, want)
	}
	if got, want := kinds(parse("argo/app-t/reconciler.yaml")), []string{"argoproj.io/v1alpha1 Application"}; !reflect.DeepEqual(got, want) {
		t.Errorf("argocd kinds %v, want %v", got, want)
	}
	for _, ct := range []string{"flux", "argo"} {
		ns := parse(ct + "/app-t/namespace.yaml")
		if len(ns) != 1 || ns[0].APIVersion != "v1" || ns[0].Kind != "Namespace" || ns[0].Metadata.Name != "dev-"+ct+"-app-t" {
			t.Errorf("%s namespace = %+v", ct, ns)
		}
		cms := parse(ct + "/app-t/platform-config.yaml")
		if len(cms) != 1 || cms[0].APIVersion != "v1" || cms[0].Kind != "ConfigMap" || cms[0].Metadata.Namespace != "dev-"+ct+"-app-t" {
			t.Fatalf("%s config map = %+v", ct, cms)
		}
		want := map[string]interface{}{"STR": "text", "NUM": "3", "BOOL": "true", "Y": "y", "LIST": "- a\n- b", "MAP": "flag: false\nhost: port", "QUOTE": `say "hi"`, "EMPTY": ""}
		if !reflect.DeepEqual(cms[0].Data, want) {
			t.Errorf("%s config map data =\n%#v\nwant (all strings)\n%#v", ct, cms[0].Data, want)
		}
	}
	// Empty config still gives a valid ConfigMap.
	res2, _ := mustRender(t, "dev", Options{}, docs[:5]...)
	var o object
	if err := yaml.Unmarshal([]byte(res2.Files["flux/app-t/platform-config.yaml"]), &o); err != nil || o.Kind != "ConfigMap" || len(o.Data) != 0 {
		t.Errorf("empty config map: %v %+v\n%s", err, o, res2.Files["flux/app-t/platform-config.yaml"])
	}
}

func TestUserTemplateOverridesBuiltin(t *testing.T) {
	t.Parallel()
	res, _ := mustRender(t, "dev", Options{},
		clusterTypeDoc("ct", nil, "arc-flux", "default", "configmap"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
		templateDoc("arc-flux", "reconciler", "", "mine"),
		templateDoc("configmap", "config", "sh", "export X=1"),
	)
	if res.Files["ct/app-t/reconciler.yaml"] != "mine" || res.Files["ct/app-t/platform-config.sh"] != "export X=1" {
		t.Errorf("user templates not used: %v", res.Files)
	}
	if !strings.Contains(res.Files["ct/app-t/namespace.yaml"], "kind: Namespace") {
		t.Errorf("built-in default namespace template not used")
	}
}

func TestRenderConfigValidation(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"REPLICAS":{"type":"integer","maximum":5}}}`
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REPLICAS": "3"}),
		configMapDoc("large", map[string]string{"platform-config": "true", "size": "large"}, map[string]string{"REPLICAS": "10"}),
		configSchemaDoc("limits", nil, schema),
	}, simpleTemplates...)

	res, diags := NewEngine().Render("dev", docs, Options{})
	d := findDiag(diags, "Platform config violates schema")
	if res != nil || d == nil || d.Severity != model.SeverityError || d.Kind != model.KindConfigMap || d.Name != "large" || d.Field != "data.REPLICAS" ||
		d.Source.Input != 6 || d.Option != OptionConfigValidation ||
		!strings.Contains(d.Detail, `"app-t"`) || !strings.Contains(d.Detail, "ConfigSchema limits") || !strings.Contains(d.Detail, "/REPLICAS") {
		t.Fatalf("error mode: result %v diagnostics %v", res, diags)
	}

	res, diags = NewEngine().Render("dev", docs, Options{ConfigValidation: "warn"})
	if diags.HasError() || res == nil {
		t.Fatalf("warn mode must not fail: %v", diags)
	}
	d = findDiag(diags, "Platform config violates schema")
	if d == nil || d.Severity != model.SeverityWarning || d.Name != "large" {
		t.Errorf("warn mode diagnostic: %v", diags)
	}
	if len(res.Assignments) != 1 || res.Assignments[0].ClusterType != "small" {
		t.Errorf("assignments = %+v, want only small", res.Assignments)
	}
	for p := range res.Files {
		if strings.HasPrefix(p, "large/app-t/") {
			t.Errorf("skipped assignment wrote %s", p)
		}
	}
	if res.Files["large/README.md"] != model.ReadmeText || res.Files["small/app-t/platform-config.yaml"] != "REPLICAS=3\n" {
		t.Errorf("files = %v", res.Files)
	}

	// Schemas from the target's configSchemas apply too, and only matching ConfigSchemas do.
	docs2 := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", schemas: []string{`{"required":["MISSING"]}`}}),
		policyDoc("p", "", "", ""),
		configSchemaDoc("other", map[string]string{"cluster-type": "small"}, `{"required":["NOPE"]}`),
	}, simpleTemplates...)
	_, diags = NewEngine().Render("dev", docs2, Options{})
	d = findDiag(diags, "Platform config violates schema")
	if d == nil || !strings.Contains(d.Detail, "deployment target configSchemas[0]") || strings.Contains(d.Detail, "NOPE") {
		t.Errorf("target schema: %v", diags)
	}

	// An invalid schema is an error even in warn mode.
	docs3 := append(append([]string{}, docs2[:4]...), configSchemaDoc("broken", nil, `{"type": 5}`))
	docs3 = append(docs3, simpleTemplates...)
	_, diags = NewEngine().Render("dev", docs3, Options{ConfigValidation: "warn"})
	if d := findDiag(diags, "Invalid config schema"); d == nil || d.Severity != model.SeverityError || !strings.Contains(d.Detail, "ConfigSchema broken") {
		t.Errorf("broken schema: %v", diags)
	}
}

// A value that violates a schema is reported once, about the ConfigMap that holds it, however many cluster
// types read it; a value no ConfigMap sets is reported once about the ConfigSchema that requires it.
func TestRenderConfigViolation_OnceNamingTheObject(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}, targetSpec{name: "u", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REPLICAS": "10"}),
		configSchemaDoc("limits", nil, `{"type":"object","properties":{"REPLICAS":{"type":"integer","maximum":5}}}`),
		configSchemaDoc("needs-region", map[string]string{"size": "small"}, `{"type":"object","required":["REGION"]}`),
	}, simpleTemplates...)
	_, diags := NewEngine().Render("dev", docs, Options{})
	want := model.Diagnostics{{
		Severity: model.SeverityError, Summary: "Platform config violates schema", Option: OptionConfigValidation,
		Source: model.Source{Input: 5, Document: 0, Line: 1}, Kind: model.KindConfigMap, Name: "base", Field: "data.REPLICAS",
		Detail: `4 assignments ("large/app-t", "large/app-u", "small/app-t", "small/app-u"): ConfigSchema limits rejects field /REPLICAS: ` +
			`at '/REPLICAS': maximum: got 10, want 5. Fix REPLICAS in ConfigMap "base"`,
	}}
	if !reflect.DeepEqual(diags, want) {
		t.Errorf("diagnostics:\n%v\nwant:\n%v", diags, want)
	}

	docs[5] = configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REPLICAS": "3"})
	_, diags = NewEngine().Render("dev", docs, Options{})
	want = model.Diagnostics{{
		Severity: model.SeverityError, Summary: "Platform config violates schema", Option: OptionConfigValidation,
		Source: model.Source{Input: 7, Document: 0, Line: 1}, Kind: model.KindConfigSchema, Name: "needs-region",
		Detail: `2 deployment targets on cluster type "small" ("app-t", "app-u"): ConfigSchema needs-region rejects the platform config: ` +
			`missing property 'REGION'. Add the missing keys to a platform ConfigMap that matches the assignment, or change the schema`,
	}}
	if !reflect.DeepEqual(diags, want) {
		t.Errorf("diagnostics:\n%v\nwant:\n%v", diags, want)
	}
}

// Upstream decodes schema text as JSON, which may start with whitespace (its own test schema starts with a
// newline and indents with tabs). Such a schema applies in the render, from a ConfigSchema or a target.
func TestRenderConfigSchemaJSONAfterWhitespace(t *testing.T) {
	t.Parallel()
	tabbed := func(body string) string { return "\n\t{\n\t\t" + body + "\n\t}\n" }
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", schemas: []string{tabbed(`"required": ["REPLICAS"]`)}}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REPLICAS": "3"}),
		configMapDoc("large", map[string]string{"platform-config": "true", "size": "large"}, map[string]string{"REPLICAS": "10"}),
		configSchemaDoc("limits", nil, tabbed(`"type": "object",`+"\n\t\t"+`"properties": {"REPLICAS": {"type": "integer", "maximum": 5}}`)),
	}, simpleTemplates...)
	res, diags := NewEngine().Render("dev", docs, Options{ConfigValidation: "warn"})
	if diags.HasError() || res == nil {
		t.Fatalf("render: %v", diags)
	}
	if d := findDiag(diags, "Platform config violates schema"); d == nil || d.Name != "large" || !strings.Contains(d.Detail, "/REPLICAS") {
		t.Errorf("the tab-indented ConfigSchema must apply to large: %v", diags)
	}
	if len(res.Assignments) != 1 || res.Assignments[0].ClusterType != "small" {
		t.Errorf("assignments = %+v, want only small", res.Assignments)
	}
}

func TestRenderUnscheduledTargets(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil,
			targetSpec{name: "placed", env: "dev", labels: map[string]string{"go": "yes-please"}},
			targetSpec{name: "lost", env: "dev"},
			targetSpec{name: "also-lost", env: "dev"},
			targetSpec{name: "other-env", env: "prod"}),
		policyDoc("p", "", "{matchLabels: {go: yes-please}}", ""),
	}, simpleTemplates...)
	res, diags := mustRender(t, "dev", Options{}, docs...)
	if want := []string{"app-also-lost", "app-lost"}; !reflect.DeepEqual(res.Unscheduled, want) {
		t.Errorf("unscheduled = %v, want %v", res.Unscheduled, want)
	}
	d := findDiag(diags, "Unscheduled deployment targets")
	if d == nil || d.Severity != model.SeverityWarning || !strings.Contains(d.Detail, "app-also-lost, app-lost") || !strings.Contains(d.Detail, `"dev"`) {
		t.Errorf("warning = %+v", diags)
	}
	// No targets at all: nothing is unscheduled, only READMEs; the one warning is about the empty environment.
	res, diags = mustRender(t, "prod-2", Options{}, docs...)
	if len(res.Unscheduled) != 0 || len(diags) != 1 || findDiag(diags, SummaryEmptyEnvironment) == nil || len(res.Files) != 1 || len(res.Assignments) != 0 {
		t.Errorf("empty environment: %+v %v", res, diags)
	}
}

func TestRenderInputErrors(t *testing.T) {
	t.Parallel()
	if _, diags := NewEngine().Render("", nil, Options{}); findDiag(diags, "Missing environment") == nil {
		t.Errorf("empty environment: %v", diags)
	}
	if _, diags := NewEngine().Render("dev", nil, Options{ConfigValidation: "ignore"}); findDiag(diags, "Invalid config_validation") == nil {
		t.Errorf("bad option: %v", diags)
	}
	res, diags := NewEngine().Render("dev", []string{"ok: 1\n", apiV + "kind: Nope\nmetadata:\n  name: x\n"}, Options{})
	d := findDiag(diags, "Unknown kind")
	if res != nil || d == nil || d.Source.Input != 1 || d.Source.Document != 0 {
		t.Errorf("unknown kind: %v", diags)
	}
	// Empty input renders an empty tree.
	res, diags = NewEngine().Render("dev", nil, Options{})
	if diags.HasError() || len(res.Files) != 0 || res.ContentHash != ContentHash(map[string]string{}) {
		t.Errorf("empty input: %+v %v", res, diags)
	}
}

func TestRenderSetRejectsNamesThatEscapeTheTree(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"..", "../x", "/abs", "a/b", "a\x00b", "", strings.Repeat("a", 254), "."} {
		set := parseSet(t,
			clusterTypeDoc("large", nil, "arc-flux", "default", ""),
			registrationDoc("app", "ws"),
			workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
			policyDoc("p", "", "", ""),
		)
		// Programmatic sets bypass the codec's name validation.
		set.ClusterTypes[0].Metadata.Name = name
		res, diags := NewEngine().RenderSet("dev", set, Options{})
		if res != nil || !diags.HasError() {
			t.Errorf("cluster type name %q: result %v, diagnostics %v", name, res, diags)
			continue
		}
		if d := findDiag(diags, "Invalid object name"); d == nil || d.Kind != model.KindClusterType || d.Field != "metadata.name" {
			t.Errorf("cluster type name %q: diagnostics %v", name, diags)
		}
	}
}

func TestRenderDeterminism(t *testing.T) {
	t.Parallel()
	var docs []string
	for _, ct := range []string{"c1", "c2", "c3", "c4"} {
		docs = append(docs, clusterTypeDoc(ct, map[string]string{"name": ct}, "rec", "ns", "cfg"))
		docs = append(docs, configMapDoc("cfg-"+ct, map[string]string{"platform-config": "true", "cluster-type": ct}, map[string]string{"LIST": "- " + ct, "K": ct}))
	}
	for _, w := range []string{"w1", "w2", "w3"} {
		docs = append(docs, registrationDoc(w, "ws"), workloadDoc(w, "", nil,
			targetSpec{name: "a", env: "dev"}, targetSpec{name: "b", env: "dev", labels: map[string]string{"x": "1"}}, targetSpec{name: "c", env: "dev"}))
	}
	docs = append(docs, configMapDoc("all", map[string]string{"platform-config": "true"}, map[string]string{"LIST": "- base", "K": "base"}))
	docs = append(docs, policyDoc("p1", "", "", ""), policyDoc("p2", "", "{matchLabels: {x: \"1\"}}", "{matchLabels: {name: c2}}"))
	docs = append(docs, simpleTemplates...)

	first, _ := mustRender(t, "dev", Options{Parallelism: 1}, docs...)
	if len(first.Assignments) != 36 {
		t.Fatalf("assignments = %d, want 36", len(first.Assignments))
	}
	for i := 0; i < 5; i++ {
		for _, par := range []int{1, 8, 0} {
			got, _ := mustRender(t, "dev", Options{Parallelism: par}, docs...)
			if !reflect.DeepEqual(got, first) {
				t.Fatalf("run %d with parallelism %d differs", i, par)
			}
		}
	}
	if got := first.Files["c2/w1-b/platform-config.yaml"]; got != "K=c2\nLIST=[base c2]\n" {
		t.Errorf("merged config = %q", got)
	}
	// The content hash follows the content.
	changed := append(append([]string{}, docs[:len(docs)-3]...), templateDoc("rec", "reconciler", "", "changed"), simpleTemplates[1], simpleTemplates[2])
	other, _ := mustRender(t, "dev", Options{}, changed...)
	if other.ContentHash == first.ContentHash {
		t.Errorf("content hash did not change with content")
	}
	if ContentHash(map[string]string{"a": "b"}) == ContentHash(map[string]string{"a": "c"}) ||
		ContentHash(map[string]string{"a": "b"}) == ContentHash(map[string]string{"b": "b"}) ||
		ContentHash(map[string]string{"ab": ""}) == ContentHash(map[string]string{"a": "b"}) {
		t.Errorf("content hash collides on path/content boundaries")
	}
}

// Assignments that match the same config sources share one composed config. A template that modifies
// it (set, unset) must only ever change its own assignment's output, whatever the rendering order.
func TestTemplatesThatModifyConfigDoNotLeakBetweenAssignments(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("c1", nil, "rec", "ns", "cfg"),
		clusterTypeDoc("c2", nil, "rec", "ns", "cfg"),
		configMapDoc("all", map[string]string{"platform-config": "true"}, map[string]string{"REGION": "west", "DROP": "x"}),
		registrationDoc("w", "ws"),
		workloadDoc("w", "", nil, targetSpec{name: "a", env: "dev"}, targetSpec{name: "b", env: "dev"}, targetSpec{name: "c", env: "dev"}),
		policyDoc("p", "", "", ""),
		templateDoc("rec", "reconciler", "", `{{ $_ := set .ConfigData "OWNER" .DeploymentTargetName }}{{ $_ := unset .ConfigData "DROP" }}reconciler {{ .DeploymentTargetName }}`+"\n"),
		templateDoc("ns", "namespace", "", "namespace {{ .Namespace }}\n"),
		templateDoc("cfg", "config", "yaml", "{{ range $k, $v := .ConfigData }}{{ $k }}={{ $v }}\n{{ end }}"),
	}
	for _, par := range []int{1, 4} {
		res, _ := mustRender(t, "dev", Options{Parallelism: par}, docs...)
		if len(res.Assignments) != 6 {
			t.Fatalf("assignments = %d, want 6", len(res.Assignments))
		}
		for _, a := range res.Assignments {
			want := "OWNER=" + a.DeploymentTarget + "\nREGION=west\n"
			if got := res.Files[a.Path+"/platform-config.yaml"]; got != want {
				t.Errorf("parallelism %d, %s: platform config %q, want %q", par, a.Path, got, want)
			}
		}
	}
	// A template that does not modify config still sees every key.
	res, _ := mustRender(t, "dev", Options{}, append(docs[:6:6], simpleTemplates...)...)
	if got := res.Files["c1/w-a/platform-config.yaml"]; got != "DROP=x\nREGION=west\n" {
		t.Errorf("read-only template: platform config %q", got)
	}
}
