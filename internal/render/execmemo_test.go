// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// renderWithMemos renders every assignment of set on the given number of workers, with or without the
// memos (template executions, the YAML verdicts and document checks shared by output Shape, and the
// memos of checkDocuments), and returns the files and all the diagnostics of the assignments.
func renderWithMemos(t *testing.T, set *model.Set, workers int, memo bool) (map[string]string, model.Diagnostics) {
	t.Helper()
	targets, _ := DeriveTargets("dev", set)
	assignments, _ := Schedule("dev", set, targets)
	job := NewEngine().newAssignmentJob("dev", set, targets, Options{Parallelism: workers})
	defer job.cancel()
	if !memo {
		job.execMemo, job.yamlChecks.noShapes = nil, true
		job.noMemo, job.dataChecks.noMemo = true, true
	}
	out, diags := job.renderAll(assignments)
	files := map[string]string{}
	for _, a := range out {
		for _, f := range a.files {
			files[f.path] = f.content
		}
	}
	if memo {
		if hits, _ := job.execMemo.Stats(); hits == 0 && len(assignments) > 1 {
			t.Error("the memo answered no execution")
		}
	}
	return files, diags
}

// platformConfig marks labels as a platform ConfigMap's.
func platformConfig(labels map[string]string) map[string]string {
	labels["platform-config"] = "true"
	return labels
}

// Templates run once per distinct value of what they read (templating.ExecMemo), and the YAML check's
// valid verdicts are shared by output Shape. The render must be what executing and checking every
// template of every assignment gives: the same files, byte for byte, and the same diagnostics in the same
// order. The set mixes what the memo keys on and what it splices: names printed plainly or quoted, names
// used otherwise, labels, manifests, shared configs, a config value that renders `{{ .ClusterType }}`
// again, invalid YAML on some cluster types only, templates that read everything and templates that are
// never memoized.
func TestExecMemoRendersWhatExecutionRenders(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "flux", "ns", "configmap"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "flux", "ns", "configmap"),
		clusterTypeDoc("edge-1", map[string]string{"size": "large"}, "argocd", "ns", "configmap"),
		clusterTypeDoc("broken", map[string]string{"size": "small"}, "flux", "ns", "configmap"),
		clusterTypeDoc("rerender", map[string]string{"size": "rerender"}, "all", "ns", "configmap"),
		// A name at the start of a line: on "kind" that line is a header.
		clusterTypeDoc("kind", map[string]string{"size": "small"}, "flux", "ns", "configmap"),
		clusterTypeDoc("tiny", map[string]string{"size": "small"}, "flux", "ns", "configmap"),
		registrationDoc("app", "ws"),
		registrationDoc("db", "ws2"),
		workloadDoc("app", "", map[string]string{"purpose": "web"}, targetSpec{name: "t", env: "dev"}, targetSpec{name: "u", env: "dev", labels: map[string]string{"tier": "gold"}}),
		workloadDoc("db", "", nil, targetSpec{name: "v", env: "dev"}, targetSpec{name: "db-canary", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", platformConfig(map[string]string{}), map[string]string{"DATABASE": "host: db\nport: 5432", "REGION": "West US"}),
		configMapDoc("large", platformConfig(map[string]string{"size": "large"}), map[string]string{"HOSTS": "- a\n- b"}),
		configMapDoc("small", platformConfig(map[string]string{"size": "small"}), map[string]string{"HOSTS": "a,b"}),
		configMapDoc("again", platformConfig(map[string]string{"size": "rerender"}), map[string]string{"AGAIN": "{{ .ClusterType }}-{{ .Namespace }}"}),
		templateDoc("flux", "reconciler", "",
			upstreamGitRepository,
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: {{ .DeploymentTargetName | quote }}\n  namespace: {{ $.Namespace }}\n"+
				"  labels:\n{{ range $k, $v := .Labels }}    {{ $k }}: {{ $v | quote }}\n{{ end }}spec:\n  url: {{ with .Manifests }}{{ .repo }}{{ end }}\n",
			// Invalid YAML on the cluster type named "broken" only.
			"kind: Note\nmetadata:\n  name: {{ .Namespace }}\n{{ if eq .ClusterType \"broken\" }}  bad: [unclosed\n{{ end }}",
			// Names of the same length in what checkDocuments reads: a header, a ConfigMap's data, a line's start.
			"apiVersion: argoproj.io/{{ .ClusterType }}\nkind: Application\nmetadata:\n  name: {{ .Namespace }}\n---\napiVersion: v1\nkind: ConfigMap\n"+
				"metadata:\n  name: {{ .Namespace }}\ndata:\n  {{ .ClusterType }}: [a]\n  same: 1\n---\n{{ .ClusterType }}: x\nkind: ConfigMap\napiVersion: v1\ndata:\n  n: 2\n"+
				"---\n{{ .ClusterType }}: ConfigMap\napiVersion: v1\ndata:\n  x: [1]\n",
			"apiVersion: v1\n{{ .ClusterType }}: ConfigMap\nmetadata:\n  name: {{ .Namespace }}\ndata:\n  x: [1]\n"),
		templateDoc("argocd", "reconciler", "",
			"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ .Namespace | upper | lower }}\nspec:\n  destination:\n    namespace: \"{{ .Namespace }}\"\n"),
		templateDoc("all", "reconciler", "",
			"kind: Everything\nvalue: {{ toYaml . | sha256sum }}\n",
			"kind: Random\nvalue: {{ uuidv4 | len }}\nns: {{ .Namespace }}\n",
			"kind: Again\nvalue: {{ .ConfigData.AGAIN }}\n"),
		templateDoc("ns", "namespace", "",
			"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"{{ .Namespace }}\"\n  labels:\n    environment: \"{{ .Environment }}\"\n    workspace: \"{{ .Workspace }}\"\n"+
				"    workload: {{ .Workload | quote }}\n    deploymentTarget: \"{{ .DeploymentTargetName }}\"\n",
			// A simple key may be 1024 bytes long: valid for the namespaces of 15 bytes or fewer
			// (dev-large-app-t), invalid for longer ones. The length of a name matters here.
			"a: 1\n{{ .Namespace }}"+strings.Repeat("k", 1024-15)+": v\n"),
		templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate,
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .DeploymentTargetName }}\ndata:\n  {{ .Workload }}: {{ len .Namespace }}\n  region: {{ .ConfigData.REGION | quote }}\n"),
	}
	set := parseSet(t, docs...)
	wantFiles, want := renderWithMemos(t, set, 1, false)
	if len(wantFiles) == 0 || len(want) == 0 {
		t.Fatalf("the set renders %d files and %d diagnostics; the test needs both", len(wantFiles), len(want))
	}
	for _, workers := range []int{1, 2, 8} {
		for run := 0; run < 3; run++ {
			files, got := renderWithMemos(t, set, workers, true)
			if !reflect.DeepEqual(files, wantFiles) {
				for p, c := range wantFiles {
					if files[p] != c {
						t.Errorf("%s:\ngot  %q\nwant %q", p, files[p], c)
					}
				}
				t.Fatalf("%d workers, run %d: the files differ", workers, run)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d workers, run %d: the diagnostics differ:\ngot  %v\nwant %v", workers, run, got, want)
			}
		}
	}
}

// The same comparison on fleets of fleetgen, whose assignments share their templates' reads by the
// thousand: the built-in templates, the tutorial's and upstream's.
func TestExecMemoRendersWhatExecutionRendersOnFleets(t *testing.T) {
	t.Parallel()
	presets := []string{"1k", "upstream-5.8k", "tutorial-5.9k", "quarter-5.7k"}
	if testing.Short() {
		presets = presets[:1]
	}
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			generated := presetFleet(t, name)
			set := parseSet(t, generated.Manifests()...)
			wantFiles, want := renderWithMemos(t, set, 1, false)
			files, got := renderWithMemos(t, set, 0, true)
			if !reflect.DeepEqual(files, wantFiles) {
				t.Fatal("the files differ")
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the diagnostics differ:\ngot  %v\nwant %v", got, want)
			}
			t.Logf("%d files, %d diagnostics", len(files), len(want))
		})
	}
}

// The built-in templates, which quote what they insert, on targets with labels and shared configs.
func TestExecMemoRendersWhatExecutionRendersWithBuiltinTemplates(t *testing.T) {
	t.Parallel()
	set := parseSet(t,
		clusterTypeDoc("large", map[string]string{"size": "large"}, "arc-flux", "default", "configmap"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "argocd", "default", "configmap"),
		clusterTypeDoc("edge-12", map[string]string{"size": "large"}, "argocd", "default", ""),
		registrationDoc("app", "ws"),
		registrationDoc("db", "ws2"),
		workloadDoc("app", "", map[string]string{"purpose": "web"}, targetSpec{name: "t", env: "dev"}, targetSpec{name: "u-long-name", env: "dev", labels: map[string]string{"tier": "gold"}}),
		workloadDoc("db", "", nil, targetSpec{name: "v", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", platformConfig(map[string]string{}), map[string]string{"REGION": "West US", "PORT": "'8080'"}),
		configMapDoc("large", platformConfig(map[string]string{"size": "large"}), map[string]string{"HOSTS": "a,b"}),
	)
	wantFiles, want := renderWithMemos(t, set, 1, false)
	if len(wantFiles) < 10 {
		t.Fatalf("the set renders %d files", len(wantFiles))
	}
	files, got := renderWithMemos(t, set, 2, true)
	if !reflect.DeepEqual(files, wantFiles) {
		t.Fatal("the files differ")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the diagnostics differ:\ngot  %v\nwant %v", got, want)
	}
}

// A name that starts a line, or starts inside what the document checks look for at a line's start, may
// make the line a header, a separator or a data section: no plan is shared then.
func TestNameMayStartLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line string
		k    int
		want bool
	}{
		{"xyz: 1", 0, true},
		{"ki", 2, true},           // kind:
		{"apiVersion: ", 7, true}, // inside apiVersion:
		{"--", 2, true},           // ---
		{"dat", 3, true},          // data:
		{"kind: ", 6, false},      // a header line: checkDocuments' plan refuses it for the name in it
		{"  name: ", 8, false},
		{"  n", 3, false},
		{"x", 1, false},
		{"apiVersion: v1", 12, false},
	}
	for _, c := range cases {
		if got := nameMayStartLine(c.line, c.k); got != c.want {
			t.Errorf("nameMayStartLine(%q, %d) = %v, want %v", c.line, c.k, got, c.want)
		}
	}
}
