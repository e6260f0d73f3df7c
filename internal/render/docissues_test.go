// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// renderDocWarnings is renderWithMemos keeping only the warnings about rendered documents.
func renderDocWarnings(t *testing.T, set *model.Set, workers int, memo bool) (map[string]string, model.Diagnostics) {
	t.Helper()
	files, diags := renderWithMemos(t, set, workers, memo)
	var docs model.Diagnostics
	for _, d := range diags {
		if d.Summary == SummaryConfigMapValueString || d.Summary == SummaryUnservedAPIVersion {
			docs = append(docs, d)
		}
	}
	return files, docs
}

// The warnings about rendered documents are tallied across assignments (docIssueTally) and their lookups
// memoized per data section and composed config (nonStringReports). The result must be what reading
// every document of every assignment in order gives: the same warnings, in the same order, naming the
// same first file and counting the same other files, whatever the number of workers. Here the
// assignments' names flow into what the checks read: the workload and cluster type names make some
// apiVersions unserved, target and workload names become ConfigMap data keys, some targets turn a Secret
// into a ConfigMap, and the platform ConfigMaps that hold a key differ between cluster types whose
// ConfigMaps have the same data.
func TestDocumentWarningsMatchTheUnmemoizedSerialChecks(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "flux", "default", "configmap"),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "flux", "default", "configmap"),
		clusterTypeDoc("v1alpha1", map[string]string{"size": "small"}, "flux", "default", "configmap"),
		clusterTypeDoc("edge", map[string]string{"size": "large"}, "flux", "default", "configmap"),
		clusterTypeDoc("tiny", map[string]string{"size": "tiny"}, "flux", "default", "configmap"),
		registrationDoc("app", "ws"),
		registrationDoc("fluxcd", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}, targetSpec{name: "u", env: "dev"}, targetSpec{name: "v", env: "dev"}),
		workloadDoc("fluxcd", "", nil, targetSpec{name: "w", env: "dev"}, targetSpec{name: "u2", env: "dev"}),
		policyDoc("p", "", "", ""),
		configMapDoc("base", platformConfig(map[string]string{}), map[string]string{"DATABASE": "host: db\nport: 5432", "REGION": "West US"}),
		configMapDoc("large", platformConfig(map[string]string{"size": "large"}), map[string]string{"HOSTS": "- a\n- b"}),
		configMapDoc("small", platformConfig(map[string]string{"size": "small"}), map[string]string{"HOSTS": "a,b", "DATABASE": "host: small"}),
		// The same data section as on the large cluster types, but another ConfigMap holds HOSTS.
		configMapDoc("tiny", platformConfig(map[string]string{"size": "tiny"}), map[string]string{"HOSTS": "- a\n- b"}),
		// A workload named like a Flux group, and a cluster type named like Argo CD's served version, make
		// the apiVersions of some assignments unserved.
		templateDoc("flux", "reconciler", "",
			"apiVersion: source.toolkit.fluxcd.io/{{ if eq .ClusterType \"large\" }}v1beta2{{ else }}v1{{ end }}\nkind: GitRepository\nmetadata:\n  name: {{ .DeploymentTargetName }}\n",
			"apiVersion: source.toolkit.{{ .Workload }}.io/v1beta2\nkind: GitRepository\nmetadata:\n  name: {{ .DeploymentTargetName }}\n---\napiVersion: argoproj.io/{{ .ClusterType }}\nkind: Application\n"),
		// Target and workload names become data keys; only the targets named with "-u" write a ConfigMap.
		templateDoc("configmap", "config", "yaml", upstreamConfigMapTemplate,
			"apiVersion: v1\nkind: {{ if contains \"-u\" .DeploymentTargetName }}ConfigMap{{ else }}Secret{{ end }}\nmetadata:\n  name: x\ndata:\n  {{ .DeploymentTargetName }}: {{ len .DeploymentTargetName }}\n  {{ .Workload }}-list: [a]\n  same: 'text'\n"),
	}
	set := parseSet(t, docs...)
	wantFiles, want := renderDocWarnings(t, set, 1, false)
	// Every kind of report is there, so the comparison below can fail.
	for _, part := range []string{
		`ConfigMap "base" is a mapping`, `ConfigMap "small" is a mapping`, `ConfigMap "large" is a list`, `ConfigMap "tiny" is a list`, "data.app-u of a ConfigMap as a number",
		"data.fluxcd-u2 of a ConfigMap as a number", "data.app-list of a ConfigMap as a list", "data.fluxcd-list of a ConfigMap as a list",
		"apiVersion argoproj.io/large", "apiVersion argoproj.io/edge", "apiVersion argoproj.io/small", "fluxcd-u2/reconciler.yaml) renders a GitRepository of apiVersion source.toolkit.fluxcd.io/v1beta2",
		"apiVersion source.toolkit.fluxcd.io/v1beta2", "The same holds in 4 more file(s).", "The same holds in 9 more file(s).",
	} {
		found := false
		for _, d := range want {
			found = found || strings.Contains(d.Detail, part)
		}
		if !found {
			t.Errorf("no warning has %q:\n%v", part, want)
		}
	}
	for _, d := range want {
		if strings.Contains(d.Detail, "data.app-t ") || strings.Contains(d.Detail, "data.app-v ") || strings.Contains(d.Detail, "apiVersion argoproj.io/v1alpha1,") {
			t.Errorf("a warning about a Secret's data or a served apiVersion: %s", d.Detail)
		}
	}
	for _, workers := range []int{1, 2, 8} {
		for run := 0; run < 3; run++ {
			files, got := renderDocWarnings(t, set, workers, true)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d workers, run %d: memoized warnings differ from the serial unmemoized ones:\ngot  %v\nwant %v", workers, run, got, want)
			}
			if !reflect.DeepEqual(files, wantFiles) {
				t.Fatalf("%d workers, run %d: the files differ", workers, run)
			}
		}
	}
}

// The same comparison on fleets of fleetgen, whose assignments share their composed configs and data
// sections by the thousand.
func TestDocumentWarningsMatchTheUnmemoizedSerialChecksOnFleets(t *testing.T) {
	t.Parallel()
	presets := []string{"1k", "upstream-5.8k"}
	if testing.Short() {
		presets = presets[:1]
	}
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			generated := presetFleet(t, name)
			set := parseSet(t, generated.Manifests()...)
			_, want := renderDocWarnings(t, set, 1, false)
			_, got := renderDocWarnings(t, set, 0, true)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("memoized warnings differ from the serial unmemoized ones:\ngot  %v\nwant %v", got, want)
			}
			t.Logf("%d warnings about rendered documents", len(want))
		})
	}
}
