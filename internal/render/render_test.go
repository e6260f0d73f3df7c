// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

func TestRenderMatchesUpstreamFixtures(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures.TutorialCases {
		t.Run(name, func(t *testing.T) {
			c := fixtures.Load(t, name)
			res, diags := NewEngine().Render(c.Environment, c.Manifests(), Options{})
			if diags.HasError() {
				t.Fatalf("render failed: %v", diags)
			}
			if d := fixtures.DiffTrees(c.Expected, res.Files); d != "" {
				t.Fatalf("rendered tree differs from upstream:\n%s", d)
			}
			if res.PromotedCommit != c.PromotedCommit {
				t.Errorf("promoted commit = %q, want %q", res.PromotedCommit, c.PromotedCommit)
			}
		})
	}
}

func TestRenderAssignmentsMatchUpstreamFixtures(t *testing.T) {
	t.Parallel()
	type upstreamAssignment struct {
		ClusterType      string   `json:"clusterType"`
		DeploymentTarget string   `json:"deploymentTarget"`
		Namespace        string   `json:"namespace"`
		SelectedBy       []string `json:"selectedBy"`
		Workload         string   `json:"workload"`
	}
	for _, name := range fixtures.TutorialCases {
		t.Run(name, func(t *testing.T) {
			c := fixtures.Load(t, name)
			raw, err := os.ReadFile(filepath.Join(fixtures.Root(), name, "assignments.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want []upstreamAssignment
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			res, diags := NewEngine().Render(c.Environment, c.Manifests(), Options{})
			if diags.HasError() {
				t.Fatalf("render failed: %v", diags)
			}
			if len(res.Assignments) != len(want) {
				t.Fatalf("got %d assignments, want %d: %+v", len(res.Assignments), len(want), res.Assignments)
			}
			for i, w := range want {
				g := res.Assignments[i]
				if g.ClusterType != w.ClusterType || g.DeploymentTarget != w.DeploymentTarget || g.Namespace != w.Namespace || g.Workload != w.Workload ||
					strings.Join(g.SchedulingPolicies, ",") != strings.Join(w.SelectedBy, ",") || g.Path != w.ClusterType+"/"+w.DeploymentTarget {
					t.Errorf("assignment %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// fleet.OneMoreAssignment is the "one policy added" change of the delivery benchmarks: the engine must
// agree that it adds exactly one assignment, three files, and changes nothing else.
func TestFleetOneMoreAssignmentAddsOneAssignment(t *testing.T) {
	t.Parallel()
	for _, size := range []string{"1k", "quarter-5.7k"} {
		t.Run(size, func(t *testing.T) {
			f := presetFleet(t, size)
			extra, err := f.OneMoreAssignment()
			if err != nil {
				t.Fatal(err)
			}
			before, diags := NewEngine().Render("dev", f.Manifests(), Options{})
			if diags.HasError() {
				t.Fatal(diags)
			}
			after, diags := NewEngine().Render("dev", append(f.Manifests(), extra.YAML), Options{})
			if diags.HasError() {
				t.Fatal(diags)
			}
			if len(after.Assignments) != len(before.Assignments)+1 {
				t.Fatalf("%d assignments after, %d before", len(after.Assignments), len(before.Assignments))
			}
			var added []string
			for p, c := range after.Files {
				old, ok := before.Files[p]
				if !ok {
					added = append(added, p)
				} else if old != c {
					t.Errorf("%s changed", p)
				}
			}
			if len(added) != 3 || len(after.Files) != len(before.Files)+3 {
				t.Errorf("added %v (%d files after, %d before), want one assignment's three files", added, len(after.Files), len(before.Files))
			}
		})
	}
}
