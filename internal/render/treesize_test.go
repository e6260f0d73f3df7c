// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
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
