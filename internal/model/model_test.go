// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestSplitDocuments(t *testing.T) {
	t.Parallel()
	type doc struct {
		text     string
		position int
		line     int
	}
	cases := []struct {
		name string
		in   string
		want []doc
	}{
		{"single without trailing newline", "a: 1", []doc{{"a: 1", 0, 1}}},
		{"single with trailing newline", "a: 1\n", []doc{{"a: 1\n", 0, 1}}},
		{"two documents, last without newline", "a: 1\n---\nb: 2", []doc{{"a: 1\n", 0, 1}, {"b: 2", 1, 3}}},
		{"leading separator counts an empty document", "---\na: 1\n", []doc{{"a: 1\n", 1, 2}}},
		{"trailing separator", "a: 1\n---\n", []doc{{"a: 1\n", 0, 1}}},
		{"separator as last line without newline", "a: 1\n---", []doc{{"a: 1\n", 0, 1}}},
		// kyaml's ByteReader (and so Flux) splits at these; before issue 14 they silently kept only the first document.
		{"separator with trailing space", "a: 1\n--- \nb: 2\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 1, 3}}},
		{"separator with trailing tab", "a: 1\n---\t\nb: 2\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 1, 3}}},
		{"separator with a comment", "a: 1\n--- # c\nb: 2\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 1, 3}}},
		{"separator with a comment without space", "a: 1\n---#c\nb: 2\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 1, 3}}},
		{"CRLF line endings are read as LF", "a: 1\r\n---\r\nb: 2\r\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 1, 3}}},
		{"CRLF separator with a comment", "a: 1\r\n--- # windows\r\nb: |\r\n  x\r\n", []doc{{"a: 1\n", 0, 1}, {"b: |\n  x\n", 1, 3}}},
		{"separator with leading space does not split", "a: |\n  ---\n  x\n", []doc{{"a: |\n  ---\n  x\n", 0, 1}}},
		{"empty and comment-only documents are skipped but counted", "# only a comment\n---\n\n   \n---\n  # indented comment\n---\nk: v\n",
			[]doc{{"k: v\n", 3, 8}}},
		{"blank lines kept verbatim", "\n\na: 1\n\n", []doc{{"\n\na: 1\n\n", 0, 1}}},
		{"consecutive separators", "a: 1\n---\n---\nb: 2\n", []doc{{"a: 1\n", 0, 1}, {"b: 2\n", 2, 4}}},
		{"document end marker without more content", "a: 1\n...\n", []doc{{"a: 1\n...\n", 0, 1}}},
		{"empty input", "", nil},
		{"only separators", "---\n---\n", nil},
		// A directive belongs to the document that the next `---` starts; alone it is no document (found by
		// FuzzSplitMatchesYAMLStream: "%YAML 1.1\n---" was one document that no decoder reads).
		{"directive before a document", "%YAML 1.1\n---\na: 1\n", []doc{{"a: 1\n", 1, 3}}},
		{"directives and comments before a later document", "a: 1\n---\n# c\n%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\nb: 2\n",
			[]doc{{"a: 1\n", 0, 1}, {"b: 2\n", 2, 7}}},
		{"directive before an empty document", "%YAML 1.1\n---", nil},
		{"directive before an empty document, then one", "%YAML 1.1\n---\n---\nb: 2\n", []doc{{"b: 2\n", 2, 4}}},
		{"a directive after content is text of that document", "a: 1\n%YAML 1.1\n---\nb: 2\n", []doc{{"a: 1\n%YAML 1.1\n", 0, 1}, {"b: 2\n", 1, 4}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, diags := SplitDocuments(7, c.in)
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics %v", diags)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d documents %+v, want %d", len(got), got, len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Text != w.text || g.Source.Document != w.position || g.Source.Line != w.line || g.Source.Input != 7 {
					t.Errorf("document %d = {%q pos %d line %d input %d}, want {%q pos %d line %d input 7}",
						i, g.Text, g.Source.Document, g.Source.Line, g.Source.Input, w.text, w.position, w.line)
				}
			}
		})
	}
}

// TestDirectiveDocumentDecodes: a document that a directive introduces decodes as the same document without it.
func TestDirectiveDocumentDecodes(t *testing.T) {
	t.Parallel()
	const doc = "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Environment\nmetadata:\n  name: dev\n"
	docs, diags := SplitDocuments(0, "%YAML 1.1\n---\n"+doc)
	if diags.HasError() || len(docs) != 1 {
		t.Fatalf("split: %v %+v", diags, docs)
	}
	got, diags := DecodeDocument(docs[0])
	if diags.HasError() || got == nil {
		t.Fatalf("decode of a document with a directive: %v", diags)
	}
	want, _ := DecodeDocument(Document{Text: doc})
	if got.Kind != want.Kind || got.Name != want.Name || got.Kind != "Environment" || got.Name != "dev" {
		t.Fatalf("with the directive %s/%s, without %s/%s", got.Kind, got.Name, want.Kind, want.Name)
	}
	// The directive goes with its separator, so a tag handle it declared is an error where it is used,
	// naming the input, the document and its line: never a document dropped in silence.
	_, diags = Parse([]string{"%TAG !e! tag:example.com,2000:\n---\n" + strings.Replace(doc, "name: dev", "name: !e!x dev", 1)})
	if len(diags) != 1 || diags[0].Severity != SeverityError || diags[0].Source != (Source{Input: 0, Document: 1, Line: 3}) ||
		!strings.Contains(diags[0].Detail, "undefined tag handle") {
		t.Fatalf("a document using a tag handle of a dropped %%TAG: %+v", diags)
	}
}

// TestSplitDocumentsRefusesWhatWouldBeDropped covers the inputs that kyaml refuses ("invalid document
// separator") and the ones a YAML parser would read as several documents inside one `---` section.
func TestSplitDocumentsRefusesWhatWouldBeDropped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, summary string
		line, position    int
		detail            string
	}{
		{"tag after the separator", "a: 1\n--- !!map\nb: 2\n", SummaryInvalidSeparator, 2, 1, `"--- !!map"`},
		{"object glued to the separator", "a: 1\n---apiVersion: v1\nkind: ConfigMap\n", SummaryInvalidSeparator, 2, 1, `move "apiVersion: v1" to the next line`},
		{"four dashes", "a: 1\n----\nb: 2\n", SummaryInvalidSeparator, 2, 1, `"----"`},
		{"CRLF file with a tag after the separator", "a: 1\r\nb: 2\r\n--- !x\r\nc: 3\r\n", SummaryInvalidSeparator, 3, 1, `line 3`},
		{"first line", "--- |\n  text\n", SummaryInvalidSeparator, 1, 1, `"--- |"`},
		{"document end marker then another document", "a: 1\n...\nb: 2\n", SummaryHiddenDocuments, 1, 0, "text after the end of its first YAML document"},
		{"old Mac line endings", "a: 1\r---\rb: 2\r", SummaryHiddenDocuments, 1, 0, "lone CR"},
		{"unicode line separator before a separator", "a: 1\u2028---\u2028b: 2\n", SummaryHiddenDocuments, 1, 0, "holds 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs, diags := SplitDocuments(3, c.in)
			if len(docs) != 0 {
				t.Errorf("documents returned despite the error: %+v", docs)
			}
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got %v", diags)
			}
			d := diags[0]
			if d.Severity != SeverityError || d.Summary != c.summary || d.Source.Input != 3 || d.Source.Line != c.line || d.Source.Document != c.position || !strings.Contains(d.Detail, c.detail) {
				t.Errorf("got %+v, want %s at input 3 line %d document %d with %q", d, c.summary, c.line, c.position, c.detail)
			}
		})
	}
}

const av = "apiVersion: scheduler.kalypso.io/v1alpha1\n"

func TestDecodeEachKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind  string
		text  string
		check func(t *testing.T, o Object)
	}{
		{KindClusterType, av + "kind: ClusterType\nmetadata:\n  name: large\n  labels:\n    region: west-us\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n  configType: configmap\n",
			func(t *testing.T, o Object) {
				ct := o.(*ClusterType)
				if ct.Spec.Reconciler != "arc-flux" || ct.Spec.NamespaceService != "default" || ct.Spec.ConfigType != "configmap" || ct.Metadata.Labels["region"] != "west-us" {
					t.Errorf("decoded %+v", ct)
				}
			}},
		{KindSchedulingPolicy, av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    workspace: kaizen\n    labelSelector:\n      matchLabels:\n        purpose: test\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions:\n        - key: size\n          operator: In\n          values: [large, small]\n",
			func(t *testing.T, o Object) {
				p := o.(*SchedulingPolicy)
				if p.Spec.DeploymentTargetSelector.Workspace != "kaizen" || p.Spec.DeploymentTargetSelector.LabelSelector.MatchLabels["purpose"] != "test" {
					t.Errorf("decoded %+v", p.Spec.DeploymentTargetSelector)
				}
				want := []metav1.LabelSelectorRequirement{{Key: "size", Operator: metav1.LabelSelectorOpIn, Values: []string{"large", "small"}}}
				if !reflect.DeepEqual(p.Spec.ClusterTypeSelector.LabelSelector.MatchExpressions, want) {
					t.Errorf("expressions = %+v", p.Spec.ClusterTypeSelector.LabelSelector.MatchExpressions)
				}
			}},
		{KindWorkload, av + "kind: Workload\nmetadata:\n  name: app\n  annotations:\n    scheduler.kalypso.io/registration: reg\nspec:\n  deploymentTargets:\n    - name: t1\n      labels:\n        edge: \"true\"\n      environment: dev\n      manifests:\n        repo: r\n        branch: b\n        path: ./p\n      configSchemas: ['{\"type\":\"object\"}']\n",
			func(t *testing.T, o Object) {
				w := o.(*Workload)
				if w.Metadata.Annotations[RegistrationAnnotation] != "reg" || len(w.Spec.DeploymentTargets) != 1 {
					t.Fatalf("decoded %+v", w)
				}
				dt := w.Spec.DeploymentTargets[0]
				if dt.Name != "t1" || dt.Environment != "dev" || dt.Labels["edge"] != "true" || dt.Manifests["path"] != "./p" || len(dt.ConfigSchemas) != 1 {
					t.Errorf("target %+v", dt)
				}
			}},
		{KindWorkloadRegistration, av + "kind: WorkloadRegistration\nmetadata:\n  name: reg\nspec:\n  workload:\n    repo: https://example.com/r\n    branch: main\n    path: ./workload\n  workspace: kaizen\n",
			func(t *testing.T, o Object) {
				r := o.(*WorkloadRegistration)
				if r.Spec.Workspace != "kaizen" || r.Spec.Workload != (RepoRef{"https://example.com/r", "main", "./workload"}) {
					t.Errorf("decoded %+v", r.Spec)
				}
			}},
		{KindTemplate, av + "kind: Template\nmetadata:\n  name: sh\nspec:\n  type: config\n  contentType: sh\n  manifests:\n    - |\n      export A={{ .Workload }}\n    - second\n",
			func(t *testing.T, o Object) {
				tp := o.(*Template)
				if tp.Spec.Type != "config" || tp.Spec.ContentType != "sh" || !reflect.DeepEqual(tp.Spec.Manifests, []string{"export A={{ .Workload }}\n", "second"}) {
					t.Errorf("decoded %+v", tp.Spec)
				}
			}},
		{KindConfigMap, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    platform-config: \"true\"\ndata:\n  REPLICAS: \"3\"\n  LIST: |\n    - a\n",
			func(t *testing.T, o Object) {
				cm := o.(*ConfigMap)
				if cm.Data["REPLICAS"] != "3" || cm.Data["LIST"] != "- a\n" || cm.Metadata.Labels["platform-config"] != "true" {
					t.Errorf("decoded %+v", cm)
				}
			}},
		{KindConfigSchema, av + "kind: ConfigSchema\nmetadata:\n  name: s\nspec:\n  schema: '{\"type\":\"object\"}'\n",
			func(t *testing.T, o Object) {
				if o.(*ConfigSchema).Spec.Schema != `{"type":"object"}` {
					t.Errorf("decoded %+v", o)
				}
			}},
		{KindBaseRepo, av + "kind: BaseRepo\nmetadata:\n  name: main\nspec:\n  repo: r\n  branch: main\n  path: .\n  commit: abc123\n",
			func(t *testing.T, o Object) {
				if o.(*BaseRepo).Spec.Commit != "abc123" {
					t.Errorf("decoded %+v", o)
				}
			}},
		{KindGitOpsRepo, av + "kind: GitOpsRepo\nmetadata:\n  name: dev\nspec:\n  repo: r\n  branch: dev\n  path: .\n",
			func(t *testing.T, o Object) {
				if o.(*GitOpsRepo).Spec != (RepoRef{"r", "dev", "."}) {
					t.Errorf("decoded %+v", o)
				}
			}},
		{KindEnvironment, av + "kind: Environment\nmetadata:\n  name: dev\nspec:\n  controlPlane:\n    repo: r\n    branch: dev\n    path: .\n",
			func(t *testing.T, o Object) {
				if o.(*Environment).Spec.ControlPlane.Branch != "dev" {
					t.Errorf("decoded %+v", o)
				}
			}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			seen[c.kind] = true
			e, diags := DecodeDocument(Document{Text: c.text, Source: Source{Input: 0}})
			if len(diags) != 0 {
				t.Fatalf("unexpected diagnostics: %v", diags)
			}
			if e.Kind != c.kind || e.Object.GetKind() != c.kind || e.Name != e.Object.GetName() || e.Name == "" {
				t.Fatalf("entry kind %q/%q name %q", e.Kind, e.Object.GetKind(), e.Name)
			}
			c.check(t, e.Object)
		})
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("kind %s has no decode case", k)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	ct := func(body string) string { return av + "kind: ClusterType\nmetadata:\n  name: ct\n" + body }
	cases := []struct {
		name    string
		text    string
		summary string
		kind    string
		objName string
		field   string
	}{
		{"unknown kind", av + "kind: Cluster\nmetadata:\n  name: x\n", "Unknown kind", "Cluster", "x", "kind"},
		{"kubernetes kind that is not Kalypso", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n", "Unknown kind", "Deployment", "d", "kind"},
		{"missing kind", av + "metadata:\n  name: x\n", "Missing required field", "", "x", "kind"},
		{"wrong apiVersion", "apiVersion: scheduler.kalypso.io/v1\nkind: ClusterType\nmetadata:\n  name: x\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Wrong apiVersion", "ClusterType", "x", "apiVersion"},
		{"ConfigMap with Kalypso apiVersion", av + "kind: ConfigMap\nmetadata:\n  name: c\n", "Wrong apiVersion", "ConfigMap", "c", "apiVersion"},
		{"missing apiVersion", "kind: ClusterType\nmetadata:\n  name: x\n", "Missing required field", "ClusterType", "x", "apiVersion"},
		{"missing name", av + "kind: ClusterType\nmetadata:\n  labels: {}\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Missing required field", "ClusterType", "", "metadata.name"},
		{"missing metadata", av + "kind: ClusterType\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Missing required field", "ClusterType", "", "metadata.name"},
		{"missing reconciler", ct("spec:\n  namespaceService: ns\n"), "Missing required field", "ClusterType", "ct", "spec.reconciler"},
		{"missing namespaceService", ct("spec:\n  reconciler: r\n"), "Missing required field", "ClusterType", "ct", "spec.namespaceService"},
		{"missing target environment", av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - name: t\n      manifests: {repo: r, branch: b, path: p}\n", "Missing required field", "Workload", "w", "spec.deploymentTargets[0].environment"},
		{"missing target manifests", av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - name: t\n      environment: dev\n", "Missing required field", "Workload", "w", "spec.deploymentTargets[0].manifests"},
		{"duplicate target in workload", av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - {name: t, environment: dev, manifests: {repo: r}}\n    - {name: t, environment: dev, manifests: {repo: r}}\n", "Duplicate deployment target", "Workload", "w", "spec.deploymentTargets[1].name"},
		{"missing registration workspace", av + "kind: WorkloadRegistration\nmetadata:\n  name: r\nspec:\n  workload: {repo: r, branch: b, path: p}\n", "Missing required field", "WorkloadRegistration", "r", "spec.workspace"},
		{"missing template type", av + "kind: Template\nmetadata:\n  name: t\nspec:\n  manifests: [a]\n", "Missing required field", "Template", "t", "spec.type"},
		{"invalid template type", av + "kind: Template\nmetadata:\n  name: t\nspec:\n  type: helm\n  manifests: [a]\n", "Invalid template type", "Template", "t", "spec.type"},
		{"missing schema", av + "kind: ConfigSchema\nmetadata:\n  name: s\nspec: {}\n", "Missing required field", "ConfigSchema", "s", "spec.schema"},
		{"missing gitops repo", av + "kind: GitOpsRepo\nmetadata:\n  name: g\nspec:\n  branch: b\n", "Missing required field", "GitOpsRepo", "g", "spec.repo"},
		{"non-string label (int)", ct("  labels:\n    size: 3\nspec:\n  reconciler: r\n  namespaceService: ns\n"), "Invalid field value", "ClusterType", "ct", "metadata.labels.size"},
		{"non-string label (bool)", ct("  labels:\n    edge: true\nspec:\n  reconciler: r\n  namespaceService: ns\n"), "Invalid field value", "ClusterType", "ct", "metadata.labels.edge"},
		{"non-string target label names the list index and key", av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - {name: a, environment: dev, manifests: {repo: r}, labels: {ok: \"x\"}}\n    - {name: b, environment: dev, manifests: {repo: r}, labels: {edge: yes}}\n", "Invalid field value", "Workload", "w", "spec.deploymentTargets[1].labels.edge"},
		{"non-string ConfigMap value", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  REPLICAS: 3\n", "Invalid field value", "ConfigMap", "c", "data.REPLICAS"},
		{"invalid label key", ct("  labels:\n    \"bad key\": v\nspec:\n  reconciler: r\n  namespaceService: ns\n"), "Invalid label key", "ClusterType", "ct", "metadata.labels.bad key"},
		{"invalid label value", ct("  labels:\n    k: \"has space\"\nspec:\n  reconciler: r\n  namespaceService: ns\n"), "Invalid label value", "ClusterType", "ct", "metadata.labels.k"},
		{"invalid object name", av + "kind: ClusterType\nmetadata:\n  name: Large_Type\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Invalid object name", "ClusterType", "Large_Type", "metadata.name"},
		{"name that would escape the tree", av + "kind: ClusterType\nmetadata:\n  name: ../etc\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Invalid object name", "ClusterType", "../etc", "metadata.name"},
		{"invalid selector operator", av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      matchExpressions:\n        - {key: a, operator: Equals, values: [b]}\n  clusterTypeSelector: {}\n", "Invalid label selector", "SchedulingPolicy", "p", "spec.deploymentTargetSelector.labelSelector"},
		{"In without values", av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions:\n        - {key: a, operator: In}\n", "Invalid label selector", "SchedulingPolicy", "p", "spec.clusterTypeSelector.labelSelector"},
		{"Exists with values", av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions:\n        - {key: a, operator: Exists, values: [x]}\n", "Invalid label selector", "SchedulingPolicy", "p", "spec.clusterTypeSelector.labelSelector"},
		{"duplicate key", av + "kind: ClusterType\nkind: ClusterType\nmetadata:\n  name: x\n", "Malformed YAML document", "", "", ""},
		{"duplicate nested key", ct("spec:\n  reconciler: r\n  reconciler: s\n  namespaceService: ns\n"), "Malformed YAML document", "", "", ""},
		{"tab indentation", av + "kind: ClusterType\nmetadata:\n\tname: x\n", "Malformed YAML document", "", "", ""},
		{"malformed YAML", av + "kind: [ClusterType\n", "Malformed YAML document", "", "", ""},
		{"a list is not an object", "- a\n- b\n", "Document is not a Kubernetes object", "", "", ""},
		{"a scalar is not an object", "just text\n", "Document is not a Kubernetes object", "", "", ""},
		{"non-UTF-8 text", av + "kind: ClusterType\nmetadata:\n  name: \xff\xfe\n", "Malformed YAML document", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := Source{Input: 3, Document: 2, Line: 9}
			e, diags := DecodeDocument(Document{Text: c.text, Source: src})
			errs := diags.Errors()
			if len(errs) == 0 {
				t.Fatalf("no error diagnostic; entry %+v", e)
			}
			d := errs[0]
			if d.Severity != SeverityError || d.Summary != c.summary || d.Kind != c.kind || d.Name != c.objName || d.Field != c.field {
				t.Errorf("diagnostic = {%s %q kind %q name %q field %q}, want {error %q kind %q name %q field %q}\n%s",
					d.Severity, d.Summary, d.Kind, d.Name, d.Field, c.summary, c.kind, c.objName, c.field, d.Error())
			}
			if d.Source != src {
				t.Errorf("source = %+v, want %+v", d.Source, src)
			}
			if !strings.Contains(d.Error(), "manifests[3], document 2 (line 9)") {
				t.Errorf("message does not say where: %s", d.Error())
			}
			if d.Detail == "" {
				t.Errorf("diagnostic has no detail")
			}
		})
	}
}

func TestDecodeEmptyDocumentIsNothing(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "# comment\n", "~\n", "null\n"} {
		e, diags := DecodeDocument(Document{Text: text})
		if e != nil || len(diags) != 0 {
			t.Errorf("%q: entry %+v diags %v, want nothing", text, e, diags)
		}
	}
}

func TestDiagnosticError(t *testing.T) {
	t.Parallel()
	d := Diagnostic{Severity: SeverityError, Summary: "Unknown kind", Detail: "details", Source: Source{Input: 1, Document: 2, Line: 5, File: "a/b.yaml"}, Kind: "Cluster", Name: "x", Field: "kind"}
	want := `Unknown kind [file a/b.yaml, manifests[1], document 2 (line 5), Cluster "x", field kind]: details`
	if got := d.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (Diagnostic{Summary: "S", Source: NoSource}).Error(); got != "S" {
		t.Errorf("Error() without location = %q", got)
	}
	ds := Diagnostics{{Severity: SeverityWarning, Summary: "w"}, {Severity: SeverityError, Summary: "e"}}
	if !ds.HasError() || len(ds.Errors()) != 1 || len(ds.Warnings()) != 1 || ds.Warnings()[0].Summary != "w" {
		t.Errorf("severity filters wrong: %+v", ds)
	}
	if (Diagnostics{{Severity: SeverityWarning}}).HasError() {
		t.Errorf("warnings only must not be an error")
	}
	if SeverityWarning.String() != "warning" || SeverityError.String() != "error" {
		t.Errorf("severity strings")
	}
}

func TestParseDuplicateNames(t *testing.T) {
	t.Parallel()
	ctDoc := func(name string) string {
		return av + "kind: ClusterType\nmetadata:\n  name: " + name + "\nspec:\n  reconciler: r\n  namespaceService: ns\n"
	}
	tmplDoc := av + "kind: Template\nmetadata:\n  name: a\nspec:\n  type: reconciler\n  manifests: [x]\n"
	set, diags := Parse([]string{ctDoc("a") + "---\n" + ctDoc("b"), tmplDoc, "# c\n---\n" + ctDoc("a")})
	errs := diags.Errors()
	if len(errs) != 1 {
		t.Fatalf("want exactly one error, got %v", diags)
	}
	d := errs[0]
	if d.Summary != "Duplicate object" || d.Kind != KindClusterType || d.Name != "a" || d.Source.Input != 2 || d.Source.Document != 1 || d.Source.Line != 3 {
		t.Errorf("diagnostic = %+v", d)
	}
	if !strings.Contains(d.Detail, "manifests[0], document 0 (line 1)") {
		t.Errorf("detail does not name the first place: %s", d.Detail)
	}
	// Same name in another kind is fine; objects are sorted by name.
	if len(set.ClusterTypes) != 2 || set.ClusterTypes[0].Metadata.Name != "a" || set.ClusterTypes[1].Metadata.Name != "b" || len(set.Templates) != 1 {
		t.Errorf("set = %+v", set)
	}
	if got := set.Source(KindClusterType, "b"); got.Input != 0 || got.Document != 1 || got.Line != 9 {
		t.Errorf("source of b = %+v", got)
	}
	if got := set.Source(KindClusterType, "zzz"); got != NoSource {
		t.Errorf("source of missing = %+v", got)
	}
}

func TestParseSortsByName(t *testing.T) {
	t.Parallel()
	var docs []string
	for _, n := range []string{"c", "a10", "a9", "b"} {
		docs = append(docs, av+"kind: SchedulingPolicy\nmetadata:\n  name: "+n+"\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector: {}\n")
	}
	set, diags := Parse([]string{strings.Join(docs, "---\n")})
	if diags.HasError() {
		t.Fatal(diags)
	}
	var names []string
	for _, p := range set.SchedulingPolicies {
		names = append(names, p.Metadata.Name)
	}
	if want := []string{"a10", "a9", "b", "c"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order = %v, want %v", names, want)
	}
}

func TestPromotedCommitOnlyFromMain(t *testing.T) {
	t.Parallel()
	br := func(name, commit string) string {
		return av + "kind: BaseRepo\nmetadata:\n  name: " + name + "\nspec:\n  repo: r\n  branch: b\n  path: .\n  commit: " + commit + "\n"
	}
	set, diags := Parse([]string{br("other", "abc111"), br("main", "abc222")})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if got := set.PromotedCommit(); got != "abc222" {
		t.Errorf("PromotedCommit = %q, want abc222", got)
	}
	set, _ = Parse([]string{br("other", "abc111")})
	if got := set.PromotedCommit(); got != "" {
		t.Errorf("PromotedCommit without main = %q, want empty", got)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}}}
	objs := []Object{
		&ClusterType{Metadata: ObjectMeta{Name: "ct", Labels: map[string]string{"size": "large"}}, Spec: ClusterTypeSpec{Reconciler: "arc-flux", NamespaceService: "default", ConfigType: "configmap"}},
		&SchedulingPolicy{Metadata: ObjectMeta{Name: "p"}, Spec: SchedulingPolicySpec{DeploymentTargetSelector: DeploymentTargetSelector{Workspace: "w", LabelSelector: sel}, ClusterTypeSelector: ClusterTypeSelector{LabelSelector: sel}}},
		&Workload{Metadata: ObjectMeta{Name: "w", Labels: map[string]string{"t": "app"}, Annotations: map[string]string{RegistrationAnnotation: "r"}}, Spec: WorkloadSpec{
			DeploymentTargets: []DeploymentTargetSpec{{Name: "t", Labels: map[string]string{"edge": "true"}, Environment: "dev", Manifests: map[string]string{"repo": "r", "branch": "b", "path": "p"}, ConfigSchemas: []string{"{}"}}},
			ConfigSchemas:     []string{`{"type":"object"}`}}},
		&WorkloadRegistration{Metadata: ObjectMeta{Name: "r"}, Spec: WorkloadRegistrationSpec{Workload: RepoRef{"r", "b", "p"}, Workspace: "ws"}},
		&Template{Metadata: ObjectMeta{Name: "t"}, Spec: TemplateSpec{Type: "config", ContentType: "sh", Manifests: []string{"export A=\"{{ .Workload }}\"\n", "true", "'quoted'"}}},
		&ConfigMap{Metadata: ObjectMeta{Name: "c", Labels: map[string]string{"platform-config": "true"}}, Data: map[string]string{"A": "1", "B": "y", "C": "- a\n- b\n", "D": "null"}},
		&ConfigSchema{Metadata: ObjectMeta{Name: "s"}, Spec: ConfigSchemaSpec{Schema: `{"type":"object"}`}},
		&BaseRepo{Metadata: ObjectMeta{Name: "main"}, Spec: BaseRepoSpec{Repo: "r", Branch: "b", Path: ".", Commit: "abc"}},
		&GitOpsRepo{Metadata: ObjectMeta{Name: "g"}, Spec: RepoRef{"r", "b", "."}},
		&Environment{Metadata: ObjectMeta{Name: "dev"}, Spec: EnvironmentSpec{ControlPlane: RepoRef{"r", "dev", "."}}},
	}
	if len(objs) != len(Kinds) {
		t.Fatalf("round trip covers %d kinds, want %d", len(objs), len(Kinds))
	}
	for _, o := range objs {
		text, err := Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if o.GetKind() == "" {
			t.Errorf("Marshal did not set the kind of %T", o)
		}
		wantAV := "apiVersion: " + APIVersion + "\n"
		if o.GetKind() == KindConfigMap {
			wantAV = "apiVersion: v1\n"
		}
		if !strings.HasPrefix(text, wantAV) {
			t.Errorf("%s manifest does not start with %q:\n%s", o.GetKind(), wantAV, text)
		}
		set, diags := Parse([]string{text})
		if len(diags) != 0 {
			t.Fatalf("%s: re-parse diagnostics %v\n%s", o.GetKind(), diags, text)
		}
		var back Object
		switch o.(type) {
		case *ClusterType:
			back = set.ClusterTypes[0]
		case *SchedulingPolicy:
			back = set.SchedulingPolicies[0]
		case *Workload:
			back = set.Workloads[0]
		case *WorkloadRegistration:
			back = set.WorkloadRegistrations[0]
		case *Template:
			back = set.Templates[0]
		case *ConfigMap:
			back = set.ConfigMaps[0]
		case *ConfigSchema:
			back = set.ConfigSchemas[0]
		case *BaseRepo:
			back = set.BaseRepos[0]
		case *GitOpsRepo:
			back = set.GitOpsRepos[0]
		case *Environment:
			back = set.Environments[0]
		}
		if !reflect.DeepEqual(back, o) {
			t.Errorf("%s round trip:\n got %+v\nwant %+v\n%s", o.GetKind(), back, o, text)
		}
	}
}

func TestCompileSelector(t *testing.T) {
	t.Parallel()
	everything, err := CompileSelector(nil)
	if err != nil || !everything.Matches(labels.Set{}) || !everything.Matches(labels.Set{"a": "b"}) {
		t.Errorf("nil selector must match everything")
	}
	empty, err := CompileSelector(&metav1.LabelSelector{})
	if err != nil || !empty.Matches(labels.Set{}) {
		t.Errorf("empty selector must match everything")
	}
	if _, err := CompileSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}); err == nil {
		t.Errorf("bogus operator must fail")
	}
	// Found by FuzzFastPathDecodes: with two bad labels the error named either, in map order, so the same
	// input gave another diagnostic from one plan to the next. The first bad key in sorted order is named.
	twoBad := &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "ok", "b-key": "bad value!", "a-key": "also bad!", "c": "fine"}}
	for range 50 {
		_, err := CompileSelector(twoBad)
		if err == nil || !strings.Contains(err.Error(), "also bad!") || strings.Contains(err.Error(), "bad value!") {
			t.Fatalf("two bad labels: %v, want the error of a-key, the first in key order", err)
		}
	}
	if sel, err := CompileSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"a": "1", "b": "2"}}); err != nil ||
		!sel.Matches(labels.Set{"a": "1", "b": "2"}) || sel.Matches(labels.Set{"a": "1"}) {
		t.Errorf("two good labels: %v, %v", sel, err)
	}
	if IsKnownKind(APIVersion, KindConfigMap) || !IsKnownKind("v1", KindConfigMap) || !IsKnownKind(APIVersion, KindWorkload) || IsKnownKind(APIVersion, "Nope") {
		t.Errorf("IsKnownKind wrong")
	}
}

func TestDecodeFieldNamesAreCaseSensitive(t *testing.T) {
	t.Parallel()
	// Found by FuzzSplitAndDecode: encoding/json matched `metAdAtA`, `nAme` and `ApiVersion` case-insensitively.
	cases := []struct {
		text, summary, field string
	}{
		{"ApiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: x\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Missing required field", "apiVersion"},
		{av + "Kind: ClusterType\nmetadata:\n  name: x\n", "Missing required field", "kind"},
		{av + "kind: ClusterType\nmetAdAtA:\n  name: x\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Missing required field", "metadata.name"},
		{av + "kind: ClusterType\nmetadata:\n  Name: x\nspec:\n  reconciler: r\n  namespaceService: ns\n", "Missing required field", "metadata.name"},
		{av + "kind: ClusterType\nmetadata:\n  name: x\nspec:\n  Reconciler: r\n  namespaceService: ns\n", "Missing required field", "spec.reconciler"},
	}
	for _, c := range cases {
		_, diags := DecodeDocument(Document{Text: c.text})
		errs := diags.Errors()
		if len(errs) == 0 || errs[0].Summary != c.summary || errs[0].Field != c.field {
			t.Errorf("%q: diagnostics %v, want %s at %s", c.text, diags, c.summary, c.field)
		}
	}
	// Unknown fields are ignored (the CRDs prune them), so a wrongly cased selector is no selector.
	e, diags := DecodeDocument(Document{Text: av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      MatchLabels: {a: b}\n  clusterTypeSelector: {}\n"})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if sel := e.Object.(*SchedulingPolicy).Spec.DeploymentTargetSelector.LabelSelector; sel == nil || len(sel.MatchLabels) != 0 {
		t.Errorf("selector = %+v, want an empty one", sel)
	}
}

func TestDecodeHostileInput(t *testing.T) {
	t.Parallel()
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
	deep := av + "kind: ClusterType\nmetadata:\n  name: x\nspec: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"
	for name, c := range map[string]struct{ text, detail string }{"billion laughs": {bomb, "excessive aliasing"}, "deep nesting": {deep, "max depth"}} {
		t.Run(name, func(t *testing.T) {
			e, diags := DecodeDocument(Document{Text: c.text, Source: Source{Input: 1, Document: 4, Line: 2}})
			if e != nil || !diags.HasError() || diags[0].Source.Document != 4 || diags[0].Summary != "Malformed YAML document" || !strings.Contains(diags[0].Detail, c.detail) {
				t.Errorf("entry %v, diagnostics %v", e, diags)
			}
		})
	}
	t.Run("10 MB value", func(t *testing.T) {
		big := strings.Repeat("x", 10<<20)
		e, diags := DecodeDocument(Document{Text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  BIG: " + big + "\n"})
		if diags.HasError() || len(e.Object.(*ConfigMap).Data["BIG"]) != 10<<20 {
			t.Errorf("diagnostics %v", diags)
		}
	})
}

// TestDecodeMergeKeyOverride: a key that overrides one taken from a YAML merge key is valid YAML, which
// sigs.k8s.io/yaml and Kubernetes accept; only a key written twice in one mapping is a duplicate.
func TestDecodeMergeKeyOverride(t *testing.T) {
	t.Parallel()
	merged := av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n" +
		"    - &base {name: t1, environment: dev, manifests: {repo: https://r, branch: main, path: p}, labels: {a: b}}\n" +
		"    - <<: *base\n      name: t2\n"
	e, diags := DecodeDocument(Document{Text: merged})
	if diags.HasError() || e == nil {
		t.Fatalf("merge key override refused: %v", diags)
	}
	ts := e.Object.(*Workload).Spec.DeploymentTargets
	if len(ts) != 2 || ts[1].Name != "t2" || ts[1].Environment != "dev" || ts[1].Manifests["repo"] != "https://r" || ts[1].Labels["a"] != "b" || ts[0].Name != "t1" {
		t.Errorf("targets %+v", ts)
	}
	for name, text := range map[string]string{
		"duplicate next to a merge key": av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - &base {name: t1, environment: dev, manifests: {repo: r}}\n    - <<: *base\n      name: t2\n      name: t3\n",
		"duplicate in another mapping":  av + "kind: Workload\nmetadata:\n  name: w\n  name: v\nspec:\n  deploymentTargets:\n    - &base {name: t1, environment: dev, manifests: {repo: r}}\n    - <<: *base\n      name: t2\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, diags := DecodeDocument(Document{Text: text})
			if len(diags) != 1 || diags[0].Summary != "Malformed YAML document" || !strings.Contains(diags[0].Detail, "already set in map") {
				t.Errorf("diagnostics %v", diags)
			}
		})
	}
}
