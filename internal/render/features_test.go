// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleet"
)

// TestFeatureFleetsRender renders the 1k preset with each fleetgen input feature (the fleets the feature
// benchmarks measure) and checks that the render is clean, schedules what the plain fleet schedules, and
// that the feature shows in the files: a benchmark of a fleet that fails, or that silently lost its
// feature, would measure nothing.
func TestFeatureFleetsRender(t *testing.T) {
	t.Parallel()
	plainSpec, err := fleet.Preset("1k")
	if err != nil {
		t.Fatal(err)
	}
	plain := renderSpec(t, plainSpec)
	// Each feature's evidence: a substring of a file of the given name that the plain fleet lacks, or
	// (for features that change only how the config is computed) nothing beyond a clean render.
	evidence := map[string]struct{ file, text string }{
		"nested":           {"platform-config.yaml", "Hello "},
		"range-config":     {"platform-config.yaml", `"ENVIRONMENT": "dev"`},
		"stringify":        {"platform-config.yaml", "allowedRegistries: |\n"},
		"hash":             {"platform-config.yaml", "scheduler.kalypso.io/config-hash: \""},
		"sh":               {"platform-config.sh", "export ENVIRONMENT=\"dev\"\n"},
		"argocd":           {"reconciler.yaml", "kind: Application\n"},
		"rancher-fleet":    {"reconciler.yaml", "kind: GitRepo\n"},
		"builtin":          {"reconciler.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\n"},
		"structured":       {"platform-config.yaml", "sidecars:\n"},
		"azure-app-config": {"platform-config.yaml", "CLUSTER_SIZE: "},
		"legacy-templates": {"reconciler.yaml", "  secretRef:\n    name: repo-secret\n"},
	}
	for _, name := range fleet.FeatureNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec, err := fleet.WithFeatures(plainSpec, name)
			if err != nil {
				t.Fatal(err)
			}
			res := renderSpec(t, spec)
			if len(res.Assignments) != len(plain.Assignments) {
				t.Fatalf("%d assignments, the plain fleet has %d", len(res.Assignments), len(plain.Assignments))
			}
			want, ok := evidence[name]
			if !ok {
				return
			}
			found := 0
			for path, content := range res.Files {
				if strings.HasSuffix(path, "/"+want.file) && strings.Contains(content, want.text) {
					found++
				}
			}
			// Most assignments show the feature; the environment-wide map (nested, azure-app-config keys of
			// a size) or the template (the rest) reaches all or most of them.
			if found < len(res.Assignments)/4 {
				t.Errorf("%d of %d assignments' %s hold %q", found, len(res.Assignments), want.file, want.text)
			}
		})
	}
}

func renderSpec(t *testing.T, spec fleet.Spec) *Result {
	t.Helper()
	generated, err := fleet.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, diags := NewEngine().Render("dev", generated.Manifests(), Options{})
	// The presets' own warnings (v1beta2 Flux, structured ConfigMap data, policies that select nothing)
	// are expected; an error is not.
	if diags.HasError() {
		t.Fatalf("render: %v", diags)
	}
	if len(res.Assignments) != generated.Expected.Assignments {
		t.Fatalf("%d assignments, fleetgen expects %d", len(res.Assignments), generated.Expected.Assignments)
	}
	return res
}
