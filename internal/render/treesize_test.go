// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// TestTreeSizeWarningNamesTheLargestWorkloads: a tree over TreeWarnBytes renders, with one warning that
// gives its size and names the workloads that hold the most; a tree under it has no such warning.
func TestTreeSizeWarningNamesTheLargestWorkloads(t *testing.T) {
	t.Parallel()
	// The reconciler writes 4 MiB for every target of Workload "big" (17 targets: 68 MiB) and a line for others.
	rec := templateDoc("rec", "reconciler", "", `{{ if eq .Workload "big" }}{{ repeat 4194304 "x" }}{{ else }}small{{ end }}`)
	docs := func(bigTargets int) []string {
		var targets []targetSpec
		for i := 0; i < bigTargets; i++ {
			targets = append(targets, targetSpec{name: fmt.Sprintf("t%d", i), env: "dev"})
		}
		return []string{clusterTypeDoc("large", nil, "rec", "ns", "cfg"), rec, simpleTemplates[1], simpleTemplates[2], policyDoc("p", "", "", ""),
			registrationDoc("big", "ws"), workloadDoc("big", "", nil, targets...),
			registrationDoc("small", "ws"), workloadDoc("small", "", nil, targetSpec{name: "t", env: "dev"})}
	}
	warning := func(diags model.Diagnostics) (model.Diagnostic, int) {
		var found model.Diagnostic
		n := 0
		for _, d := range diags {
			if d.Summary == "Large GitOps tree" {
				found, n = d, n+1
			}
		}
		return found, n
	}
	res, diags := NewEngine().Render("dev", docs(17), Options{})
	if res == nil || diags.HasError() {
		t.Fatalf("%v", diags)
	}
	d, n := warning(diags)
	want := `the rendered tree of environment "dev" holds 37 files, 68.0 MiB, more than 64.0 MiB or 100000 files. Every cluster fetches it and every plan ` +
		`compares it; check that this is intended. The largest by workload: Workload "big" 68.0 MiB in 34 files, Workload "small" 0.0 MiB in 2 files. ` +
		`The hard limit is render_max_output_bytes`
	if n != 1 || d.Severity != model.SeverityWarning || d.Detail != want {
		t.Fatalf("%d warnings, %+v\nwant %s", n, d, want)
	}
	if strings.Count(res.Files["large/big-t0/reconciler.yaml"], "x") != 4194304 {
		t.Fatal("the tree must still be rendered")
	}
	res, diags = NewEngine().Render("dev", docs(15), Options{})
	if _, n := warning(diags); res == nil || n != 0 {
		t.Fatalf("a 60 MiB tree warned: %v", diags)
	}
}

// The content hash and the tree-size check read the paths and sizes that layoutTree learnt instead of
// walking the tree. They must be what the tree itself gives: the sorted paths (even where the folders are
// out of order, as a target named "app-t-b" sorts before "app-t/"), the bytes of every file and each
// workload's share; and a layout that does not match its tree is not used.
func TestTreeLayoutMatchesTheTree(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", nil, "rec", "ns", "cfg"), clusterTypeDoc("large-b", nil, "rec", "ns", "cfg"), clusterTypeDoc("0-first", nil, "rec", "ns", "cfg"),
		simpleTemplates[0], simpleTemplates[1], simpleTemplates[2], policyDoc("p", "", "", ""),
		registrationDoc("app", "ws"), workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}, targetSpec{name: "t-b", env: "dev"}, targetSpec{name: "t0", env: "dev"}),
		registrationDoc("db", "ws"), workloadDoc("db", "", nil, targetSpec{name: "x", env: "dev"}),
	}
	set := parseSet(t, docs...)
	generated := presetFleet(t, "1k")
	for name, set := range map[string]*model.Set{"names out of order": set, "1k": parseSet(t, generated.Manifests()...)} {
		targets, _ := DeriveTargets("dev", set)
		assignments, _ := Schedule("dev", set, targets)
		res := newTree("dev", set, len(assignments))
		rendered, diags := NewEngine().renderAssignments("dev", set, targets, assignments, Options{})
		if diags.HasError() {
			t.Fatalf("%s: %v", name, diags)
		}
		lay := layoutTree(res, assignments, rendered)
		// A fleet's paths come in order; the names here do not.
		if lay.irregular || strictlyIncreasing(lay.paths) != (name == "1k") {
			t.Errorf("%s: irregular %v, paths in order %v", name, lay.irregular, strictlyIncreasing(lay.paths))
		}
		var total int64
		for _, c := range res.Files {
			total += int64(len(c))
		}
		if want := workloadShares(res, assignments); lay.bytes != total || !reflect.DeepEqual(lay.shares, want) || len(want) != 2 && name != "1k" {
			t.Errorf("%s: layout %d bytes %v, tree %d bytes %v", name, lay.bytes, lay.shares, total, want)
		}
		for i, p := range lay.paths {
			if lay.contents[i] != res.Files[p] {
				t.Fatalf("%s: the layout's content of %s is not the tree's", name, p)
			}
		}
		paths, contents := lay.sortedPaths(res.Files)
		if want := sortedPathsOf(res.Files); !reflect.DeepEqual(paths, want) || (contents == nil) != (name != "1k") {
			t.Errorf("%s: layout paths %v (contents %v), want %v", name, paths, contents != nil, want)
		}
		if got, want := contentHash(res.Files, paths, contents), ContentHash(res.Files); got != want {
			t.Errorf("%s: hash %s, want %s", name, got, want)
		}
		// A layout that lacks a file of the tree, or names one twice, is not used.
		res.Files["large/extra"] = "x"
		if got, contents := lay.sortedPaths(res.Files); !reflect.DeepEqual(got, sortedPathsOf(res.Files)) || contents != nil {
			t.Errorf("%s: a layout without a file of the tree was used", name)
		}
		lay.paths[len(lay.paths)-1] = lay.paths[0]
		delete(res.Files, "large/extra")
		if got, contents := lay.sortedPaths(res.Files); !reflect.DeepEqual(got, sortedPathsOf(res.Files)) || contents != nil {
			t.Errorf("%s: a layout with a path twice was used", name)
		}
	}
}
