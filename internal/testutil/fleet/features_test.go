// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"strings"
	"testing"
)

// TestFeaturesKeepTheSchedule: an input feature changes how assignments render, never which exist, so that
// a feature benchmark compares the same assignments; and each writes what it names.
func TestFeaturesKeepTheSchedule(t *testing.T) {
	t.Parallel()
	for _, preset := range []string{"1k", "upstream-5.8k"} {
		spec, err := Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range FeatureNames() {
			featured, err := WithFeatures(spec, name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Generate(featured)
			if err != nil {
				t.Fatalf("%s + %s: %v", preset, name, err)
			}
			if f.Expected.Assignments != plain.Expected.Assignments {
				t.Errorf("%s + %s: %d assignments, the plain fleet has %d", preset, name, f.Expected.Assignments, plain.Expected.Assignments)
			}
			stream := f.MultiDocument()
			want := map[string]string{
				"sh": "  contentType: sh\n", "stringify": "stringify .ConfigData", "hash": "hash .ConfigData",
				"range-config": "range $key, $value := .ConfigData", "argocd": "reconciler: argocd\n",
				"rancher-fleet": "reconciler: rancher-fleet\n", "workload-schemas": "  configSchemas:\n",
				"azure-app-config": "name: azure-app-config-dev\n", "config-schema": "kind: ConfigSchema\n",
				"structured": "sidecars: |\n", "nested": templatedGreeting, "legacy-templates": `url: "{{ .Repo}}"`,
			}[name]
			if want != "" && !strings.Contains(stream, want) {
				t.Errorf("%s + %s: the documents do not hold %q", preset, name, want)
			}
			switch name {
			case "builtin":
				if strings.Contains(stream, "kind: Template\n") {
					t.Errorf("%s + builtin: the documents hold a Template", preset)
				}
			case "no-config-schema":
				if strings.Contains(stream, "kind: ConfigSchema\n") {
					t.Errorf("%s + no-config-schema: the documents hold a ConfigSchema", preset)
				}
			case "azure-app-config":
				if strings.Contains(stream, "name: azure-app-config-dev\n  labels:") {
					t.Errorf("%s + azure-app-config: the azure-app-config map has labels", preset)
				}
			}
		}
	}
	if _, err := WithFeatures(Spec{}, "no-such-feature"); err == nil || !strings.Contains(err.Error(), "known features") {
		t.Errorf("an unknown feature: %v", err)
	}
	if _, err := Generate(Spec{ClusterTypes: 1, Workloads: 1, TargetsPerWorkload: 1, Policies: 1, ConfigTemplate: "xml"}); err == nil || !strings.Contains(err.Error(), "spec.ConfigTemplate") {
		t.Errorf("an unknown config template: %v", err)
	}
}
