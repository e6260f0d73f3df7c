// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/crdschema"
)

// upstreamConfigMapTemplate is the control-plane sample's `configmap` template: it writes the platform
// config with toYaml, so a nested value becomes a YAML mapping or list under `data`.
const upstreamConfigMapTemplate = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: {{ .Namespace}}\ndata:\n{{ toYaml .ConfigData | indent 2}}"

// The sample's Flux templates, which still write v1beta2.
const (
	upstreamGitRepository = "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: GitRepository\nmetadata:\n  name: \"{{ .DeploymentTargetName}}\"\n  namespace: flux-system\nspec:\n  interval: 30s\n  url: \"{{ .Manifests.repo}}\"\n"
	upstreamKustomization = "apiVersion: kustomize.toolkit.fluxcd.io/v1beta2\nkind: Kustomization\nmetadata:\n  name: \"{{ .DeploymentTargetName}}\"\n  namespace: flux-system\nspec:\n  interval: 30s\n  path: \"{{ .Manifests.path}}\"\n  prune: true\n"
)

func deployableDocs(configData map[string]string, templates ...string) []string {
	return append([]string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "flux", "default", "configmap"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "flux", "default", "configmap"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}, targetSpec{name: "u", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", map[string]string{"platform-config": "true"}, configData),
	}, templates...)
}

// A platform config value that parses to a mapping or a list reaches a ConfigMap's data as YAML
// structure through the upstream configmap template; the API server refuses it. One warning per key,
// about the ConfigMap that holds it, for all four assignments; string values (even "3", "true") pass.
func TestRenderWarnsWhenConfigMapDataHoldsANonString(t *testing.T) {
	t.Parallel()
	docs := deployableDocs(map[string]string{
		"DATABASE": "host: db\nport: 5432", "HOSTS": "- a\n- b", "REGION": "West US", "REPLICAS": "3", "ENABLED": "true",
	},
		templateDoc("flux", "reconciler", "", "reconciler {{ .DeploymentTargetName }}\n"),
		templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate),
	)
	res, diags := mustRender(t, "dev", Options{}, docs...)
	var got model.Diagnostics
	for _, d := range diags {
		if d.Summary == SummaryConfigMapValueString {
			got = append(got, d)
		}
	}
	if len(got) != 2 || len(diags) != 2 {
		t.Fatalf("want one warning per non-string key, got %d of %d:\n%v", len(got), len(diags), diags)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Field < got[j].Field })
	for i, want := range []struct{ field, what string }{{"data.DATABASE", "a mapping"}, {"data.HOSTS", "a list"}} {
		d := got[i]
		if d.Severity != model.SeverityWarning || d.Kind != model.KindConfigMap || d.Name != "base" || d.Field != want.field ||
			d.Source != (model.Source{Input: 5, Document: 0, Line: 1}) {
			t.Errorf("warning %d is not about ConfigMap base %s: %+v", i, want.field, d)
		}
		for _, part := range []string{
			"of ConfigMap \"base\" is " + want.what, "manifests[0] of Template \"configmap\"", "first in large/app-t/platform-config.yaml",
			"The same holds in 3 more file(s).",
		} {
			if !strings.Contains(d.Detail, part) {
				t.Errorf("warning %d lacks %q: %s", i, part, d.Detail)
			}
		}
	}
	// The bytes are upstream's all the same.
	if f := res.Files["large/app-t/platform-config.yaml"]; !strings.Contains(f, "DATABASE:\n      host: db\n") {
		t.Errorf("platform-config.yaml is not written as rendered:\n%s", f)
	}

	// Strings only: no warning.
	docs[5] = configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"DATABASE": "'host: db'", "REPLICAS": "3"})
	if _, diags := mustRender(t, "dev", Options{}, docs...); len(diags) != 0 {
		t.Errorf("string values: %v", diags)
	}
}

// A template that writes a number into data by itself is the object to fix.
func TestRenderWarnsAboutTheTemplateThatWritesANumberIntoConfigMapData(t *testing.T) {
	t.Parallel()
	docs := deployableDocs(map[string]string{"REGION": "West US"},
		templateDoc("flux", "reconciler", "", "reconciler {{ .DeploymentTargetName }}\n"),
		templateDoc("configmap", "config", "yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  REPLICAS: 3\n  # a comment\n  NAME: \"{{ .ClusterType }}\"\n"),
	)
	_, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	d := diags[0]
	if d.Summary != SummaryConfigMapValueString || d.Kind != model.KindTemplate || d.Name != "configmap" || d.Field != "spec.manifests[0]" ||
		!strings.Contains(d.Detail, "writes data.REPLICAS of a ConfigMap as a number") || !strings.Contains(d.Detail, "in 3 more file(s)") {
		t.Errorf("warning: %+v", d)
	}
}

// Flux objects of an apiVersion that the current CRDs no longer serve: one warning per template
// manifest, about the Template; the served v1 and Argo CD's v1alpha1 pass.
func TestRenderWarnsAboutFluxAPIVersionsNoLongerServed(t *testing.T) {
	t.Parallel()
	docs := deployableDocs(map[string]string{"REGION": "West US"},
		templateDoc("flux", "reconciler", "", upstreamGitRepository, upstreamKustomization),
		templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate),
	)
	_, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 2 {
		t.Fatalf("want two warnings, got %v", diags)
	}
	for i, want := range []struct{ kind, apiVersion, served string }{
		{"GitRepository", "source.toolkit.fluxcd.io/v1beta2", "source.toolkit.fluxcd.io/v1"},
		{"Kustomization", "kustomize.toolkit.fluxcd.io/v1beta2", "kustomize.toolkit.fluxcd.io/v1"},
	} {
		d := diags[i]
		if d.Severity != model.SeverityWarning || d.Summary != SummaryUnservedAPIVersion || d.Kind != model.KindTemplate || d.Name != "flux" ||
			d.Field != "spec.manifests["+string(rune('0'+i))+"]" || d.Source != (model.Source{Input: 6, Document: 0, Line: 1}) {
			t.Errorf("warning %d: %+v", i, d)
		}
		for _, part := range []string{"renders a " + want.kind + " of apiVersion " + want.apiVersion, "current Flux no longer serves",
			"serves only " + want.served, "change the template's apiVersion to " + want.served, "The same holds in 3 more file(s)."} {
			if !strings.Contains(d.Detail, part) {
				t.Errorf("warning %d lacks %q: %s", i, part, d.Detail)
			}
		}
	}

	served := strings.NewReplacer("/v1beta2", "/v1")
	docs[len(docs)-2] = templateDoc("flux", "reconciler", "", served.Replace(upstreamGitRepository), served.Replace(upstreamKustomization),
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\n")
	if _, diags := mustRender(t, "dev", Options{}, docs...); len(diags) != 0 {
		t.Errorf("served apiVersions: %v", diags)
	}
}

// The kinds the built-in reconcilers write (builtins.served) are what testdata/crds serves: every kind
// of a registered reconciler's API group that a CRD there serves is in the table, with the versions the
// CRD serves, and every kind of the table has a CRD there. A reconciler added to the registry without
// its CRD, or with versions its CRD does not serve, fails here.
func TestServedVersionsMatchTheCRDs(t *testing.T) {
	t.Parallel()
	fromCRDs := map[groupKind][]string{}
	for _, gvk := range crdschema.Default(t).Kinds() {
		if slices.Contains(builtins.groups, gvk.Group) {
			gk := groupKind{gvk.Group, gvk.Kind}
			fromCRDs[gk] = append(fromCRDs[gk], gvk.Version)
		}
	}
	table := map[groupKind][]string{}
	for gk, served := range builtins.served {
		table[gk] = slices.Sorted(slices.Values(served.versions))
	}
	for gk := range fromCRDs {
		slices.Sort(fromCRDs[gk])
	}
	if len(table) == 0 || !reflect.DeepEqual(fromCRDs, table) {
		t.Errorf("the built-in reconcilers write %v, testdata/crds serve %v", table, fromCRDs)
	}
}

// Every kind a built-in reconciler writes gets the apiVersion warning when an input template writes it
// with a version its CRD does not serve, naming the reconciler's project: the pre-filter of
// checkDocuments (mentionsReconcilerGroup) lets each through.
func TestRenderWarnsAboutEveryReconcilerKindNoLongerServed(t *testing.T) {
	t.Parallel()
	for _, b := range builtins.ordered {
		if b.reconciler == nil {
			continue
		}
		for _, k := range b.reconciler.kinds {
			apiVersion := k.group + "/v0old"
			docs := deployableDocs(map[string]string{"REGION": "West US"},
				templateDoc("flux", "reconciler", "", "apiVersion: "+apiVersion+"\nkind: "+k.kind+"\nmetadata:\n  name: \"{{ .DeploymentTargetName }}\"\n"),
				templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate),
			)
			_, diags := mustRender(t, "dev", Options{}, docs...)
			want := "renders a " + k.kind + " of apiVersion " + apiVersion + ", which current " + b.reconciler.name + " no longer serves (its CustomResourceDefinition serves only " + k.group + "/"
			if len(diags) != 1 || diags[0].Summary != SummaryUnservedAPIVersion || !strings.Contains(diags[0].Detail, want) {
				t.Errorf("%s/%s of %s: want one warning containing %q, got %v", k.group, k.kind, b.template.Metadata.Name, want, diags)
			}
		}
	}
}

func TestDocHeadersAndDataSection(t *testing.T) {
	t.Parallel()
	text := "# c\napiVersion: \"v1\" # core\nkind: ConfigMap\ndata:\n  a: |\n    x\n  b:\n  - 1\nother: 1\n---\nkind: 'Application'\napiVersion: argoproj.io/v1alpha1\n"
	hs := docHeaders(text)
	if len(hs) != 2 || hs[0].apiVersion != "v1" || hs[0].kind != "ConfigMap" || hs[1].apiVersion != "argoproj.io/v1alpha1" || hs[1].kind != "Application" {
		t.Fatalf("headers: %+v", hs)
	}
	if got := dataSection(hs[0].text); got != "data:\n  a: |\n    x\n  b:\n  - 1\n" {
		t.Errorf("data section: %q", got)
	}
	if got, _ := (&configMapDataChecker{}).check(hs[0].text); !reflect.DeepEqual(got, []nonStringData{{"b", "a list"}}) {
		t.Errorf("non-string data: %+v", got)
	}
}

// The tutorial keeps upstream's arc-flux template, which warns; with the apiVersions its README tells a
// user on current Flux to write, the same template renders documents the current CRDs accept, and no
// warning is left.
func TestTutorialArcFluxTemplateOnCurrentFlux(t *testing.T) {
	t.Parallel()
	var manifests [2]string
	for i := range manifests {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "tutorial", "templates", fmt.Sprintf("arc-flux-%d.yaml.tmpl", i)))
		if err != nil {
			t.Fatal(err)
		}
		manifests[i] = string(b)
	}
	docs := deployableDocs(map[string]string{"REGION": "West US"}, templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate))

	_, diags := mustRender(t, "dev", Options{}, append(docs, templateDoc("flux", "reconciler", "", manifests[0], manifests[1]))...)
	if len(diags) != 2 || diags[0].Summary != SummaryUnservedAPIVersion || diags[1].Summary != SummaryUnservedAPIVersion {
		t.Fatalf("upstream's template: want the two apiVersion warnings, got %v", diags)
	}

	fixed := [2]string{
		strings.Replace(manifests[0], "apiVersion: source.toolkit.fluxcd.io/v1beta2\n", "apiVersion: source.toolkit.fluxcd.io/v1\n", 1),
		strings.Replace(manifests[1], "apiVersion: kustomize.toolkit.fluxcd.io/v1beta2\n", "apiVersion: kustomize.toolkit.fluxcd.io/v1\n", 1),
	}
	res, diags := mustRender(t, "dev", Options{}, append(docs, templateDoc("flux", "reconciler", "", fixed[0], fixed[1]))...)
	if len(diags) != 0 {
		t.Fatalf("changed apiVersions: %v", diags)
	}
	crds := crdschema.Default(t)
	validated := 0
	for _, path := range sortedKeys(res.Files) {
		if !strings.HasSuffix(path, "/reconciler.yaml") {
			continue
		}
		ds, err := crdschema.Documents(res.Files[path])
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, d := range ds {
			if err := crds.Validate(d); err != nil {
				t.Errorf("%s: %v\n%s", path, err, d)
			}
			validated++
		}
	}
	if validated != 8 {
		t.Errorf("validated %d Flux documents, want 8", validated)
	}
}

// The line scanner reads a `data:` section as the YAML parser does, or declines: on toYaml's output
// of configs of every shape, and on hand-written sections.
func TestScanDataSectionAgreesWithTheParser(t *testing.T) {
	t.Parallel()
	configs := []map[string]interface{}{
		{"A": "x", "B": "3", "C": "true", "D": "", "E": "line one\nline two\n", "F": "say: \"hi\"", "G": "- not a list", "H": "#hash"},
		{"DATABASE": map[string]interface{}{"host": "db", "port": 5432}, "HOSTS": []interface{}{"a", "b"}, "EMPTY": map[string]interface{}{}, "NONE": []interface{}{}},
		{"N": 3, "F": 1.5, "B": false, "Z": nil, "S": "ok", "L": []interface{}{map[string]interface{}{"name": "x"}}},
		{"a.b-c_d": "v", "x": "{not: flow}", "y": "[1, 2]", "k": "key: value"},
	}
	var sections []string
	for _, c := range configs {
		sections = append(sections, "data:\n"+indentLines(templating.ToYAML(c), "  ")+"\n")
	}
	sections = append(sections,
		"data:\n  a: 1 # a comment\n  # only a comment\n\n  b: |\n    text\n  c:\n  - x\n  d:\n    e: f\n  g: 0x1F\n  h: .5\n  i: -3\n  j: True\n  k: tea\n",
		"data: {a: 1}\n", "data:\n  \"quoted key\": 1\n", "data:\n  a: &x 1\n  b: *x\n", "data:\n  a:b: c\n", "data:\n  a: !!str 1\n",
	)
	for _, sec := range sections {
		got, ok := scanDataSection(sec)
		want := parseDataSection(sec)
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("section %q: scanned %+v, parsed %+v", sec, got, want)
		}
	}
	for _, sec := range sections[:len(configs)+1] {
		if _, ok := scanDataSection(sec); !ok {
			t.Errorf("the scanner declines a block-style section:\n%s", sec)
		}
	}
}

func indentLines(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// The document warnings name the first file in assignment order, whichever worker rendered it, so a
// plan and its apply (and the function's plan and apply) get the same warnings.
func TestRenderDocumentWarningsDoNotDependOnTheWorkers(t *testing.T) {
	t.Parallel()
	var targets []targetSpec
	for i := 0; i < 60; i++ {
		targets = append(targets, targetSpec{name: fmt.Sprintf("t%02d", i), env: "dev"})
	}
	docs := deployableDocs(map[string]string{"DATABASE": "host: db\nport: 5432"},
		templateDoc("flux", "reconciler", "", upstreamGitRepository),
		templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate),
	)
	docs[3] = workloadDoc("app", "", nil, targets...)
	_, first := mustRender(t, "dev", Options{Parallelism: 8}, docs...)
	if len(first) != 2 || !strings.Contains(first[0].Detail, "first in large/app-t00/") || !strings.Contains(first[1].Detail, "first in large/app-t00/") {
		t.Fatalf("warnings: %v", first)
	}
	for i := 0; i < 10; i++ {
		if _, again := mustRender(t, "dev", Options{Parallelism: 8}, docs...); !reflect.DeepEqual(again, first) {
			t.Fatalf("render %d warns otherwise:\n%v\nthen:\n%v", i, first, again)
		}
	}
}
