// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleethistory"
)

func TestMarkdownOfTheScriptedHistory(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	md := read(t, request(t, s)).Markdown(0)
	for _, want := range []string{
		"3 environments, 10 deployment targets, 7 clusters, 1 drifting; measured at 2026-01-09T09:00:00Z.",
		"| dev | `dev` | `" + s.Commits["D5"][:7] + "` | `" + s.Commits["C4"][:7] + "` | progressing |",
		"| dev | 2026-01-02 – 2026-01-09 | 5 | 0.71 | 1h30m0s (3) | 20% (1) | 4h10m0s (1) | deployment_frequency, lead_time_for_changes, change_failure_rate, time_to_restore |",
		"- dev / large / dev-large-1: reports `" + s.Commits["D4"][:7] + "` (progressing), the folder is at `" + s.Commits["D5"][:7] + "`",
		"## dev vs stage\n\n3 deployment targets differ, 1 is alike.",
		"## stage vs prod\n\n1 deployment target differs, 2 are alike.",
		"## Drift\n\n1 cluster reports a commit older than their cluster type folder's newest change:",
		"- small/canary (only in dev): `namespace.yaml` removed, `reconciler.yaml` removed; version v0.1.0 → none",
		"| prod | large | hello | v1.0.0 | `" + s.Commits["P1"][:7] + "` | `" + s.Commits["C1"][:7] + "` | unknown | 0/1 | 2026-01-07T12:00:00Z (45h0m0s ago) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Cut to stay within") {
		t.Errorf("a small summary was cut:\n%s", md)
	}
}

// TestMarkdownBoundAt100000Rows: 100,000 rows, 2,000 drifting clusters and 5,000 differing deployment
// targets stay within 60,000 characters, and the last line says how many of each were cut.
func TestMarkdownBoundAt100000Rows(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 9, 9, 0, 0, 0, time.UTC)
	st := &fleetstatus.Status{Now: now}
	for e := 0; e < 3; e++ {
		st.Environments = append(st.Environments, fleetstatus.EnvironmentStatus{Name: fmt.Sprintf("env-%d", e), Branch: fmt.Sprintf("env-%d", e),
			Head: strings.Repeat("a", 40), Promoted: strings.Repeat("b", 40), State: rollout.Succeeded, Summary: "5/5 clusters succeeded"})
		st.Metrics = append(st.Metrics, fleetstatus.Metrics{Environment: fmt.Sprintf("env-%d", e), WindowStart: now.Add(-fleetstatus.DefaultWindow), WindowEnd: now})
	}
	for i := 0; i < 100000; i++ {
		st.Rows = append(st.Rows, fleetstatus.Row{Environment: "env-0", ClusterType: fmt.Sprintf("ct-%03d", i%300), DeploymentTarget: fmt.Sprintf("workload-%06d", i),
			DesiredCommit: strings.Repeat("c", 40), Promoted: strings.Repeat("d", 40), Version: "v1.2.3", State: rollout.Succeeded, Clusters: 3, Succeeded: 3,
			ChangedAt: now.Add(-time.Hour), Age: time.Hour})
	}
	for i := 0; i < 2000; i++ {
		st.Clusters = append(st.Clusters, fleetstatus.Cluster{Environment: "env-1", ClusterType: "ct", Name: fmt.Sprintf("cluster-%d", i), Drift: true,
			Commit: strings.Repeat("e", 40), FolderCommit: strings.Repeat("f", 40), State: rollout.Succeeded})
	}
	st.Drift = 2000
	diff := fleetstatus.EnvironmentDiff{From: "env-0", To: "env-1"}
	for i := 0; i < 5000; i++ {
		diff.Differing = append(diff.Differing, fleetstatus.FolderDiff{ClusterType: "ct", DeploymentTarget: fmt.Sprintf("w-%d", i),
			Files: []fleetstatus.FileDiff{{Path: "reconciler.yaml", Change: "changed"}}, FromVersion: "v1", ToVersion: "v2"})
	}
	st.Comparisons = []fleetstatus.EnvironmentDiff{diff}

	md := st.Markdown(0)
	if n := utf8.RuneCountInString(md); n > fleetstatus.MarkdownLimit || len(md) > fleetstatus.MarkdownLimit {
		t.Fatalf("%d characters (%d bytes), more than %d", n, len(md), fleetstatus.MarkdownLimit)
	}
	last := md[strings.LastIndex(strings.TrimSuffix(md, "\n"), "\n")+1:]
	shown := strings.Count(md, "| env-0 | ct-")
	drifting := strings.Count(md, "- env-1 / ct / cluster-")
	differing := strings.Count(md, "- ct/w-")
	want := fmt.Sprintf("_Cut to stay within 60000 characters: %d of 2000 drifting clusters, %d of 5000 differing deployment targets, 100000 of 100000 rows not shown; "+
		"the data source's rows, clusters and comparisons hold them all._\n", 2000-drifting, 5000-differing)
	if shown != 0 || last != want {
		t.Errorf("%d rows shown; the last line is\n%q, want\n%q", shown, last, want)
	}
	if drifting == 0 || !strings.HasPrefix(md, "# Fleet status\n\n3 environments, 100000 deployment targets, 2000 clusters, 2000 drifting;") {
		t.Errorf("the summary's head is missing:\n%s", md[:min(len(md), 500)])
	}

	// Rows only: the table starts, and is cut at a whole row.
	st.Clusters, st.Drift, st.Comparisons = nil, 0, nil
	md = st.Markdown(0)
	shown = strings.Count(md, "| env-0 | ct-")
	if len(md) > fleetstatus.MarkdownLimit || shown < 100 || !strings.HasSuffix(md, fmt.Sprintf("_Cut to stay within 60000 characters: %d of 100000 rows not shown; "+
		"the data source's rows, clusters and comparisons hold them all._\n", 100000-shown)) {
		t.Errorf("%d bytes, %d rows shown; ends %q", len(md), shown, md[max(0, len(md)-300):])
	}
}

// Bounded cuts each long list to the bound, says what it cut, keeps the counts and leaves the status alone.
func TestBoundedStatus(t *testing.T) {
	t.Parallel()
	st := &fleetstatus.Status{Rows: make([]fleetstatus.Row, 5), Clusters: make([]fleetstatus.Cluster, 2), Drift: 2,
		Comparisons: []fleetstatus.EnvironmentDiff{{From: "dev", To: "stage", Same: 7, Differing: make([]fleetstatus.FolderDiff, 4)},
			{From: "stage", To: "prod", Differing: make([]fleetstatus.FolderDiff, 1)}}}
	b, line := st.Bounded(3)
	if len(b.Rows) != 3 || len(b.Clusters) != 2 || len(b.Comparisons[0].Differing) != 3 || len(b.Comparisons[1].Differing) != 1 ||
		b.Comparisons[0].Same != 7 || b.Drift != 2 {
		t.Errorf("bounded: %d rows, %d clusters, %+v", len(b.Rows), len(b.Clusters), b.Comparisons)
	}
	if want := "Cut to 3 items per list: rows: 3 of 5; dev vs stage differing: 3 of 4."; line != want {
		t.Errorf("line %q, want %q", line, want)
	}
	if len(st.Rows) != 5 || len(st.Comparisons[0].Differing) != 4 {
		t.Error("the status was changed")
	}
	if _, line := st.Bounded(5); line != "" {
		t.Errorf("nothing cut: %q", line)
	}
}
