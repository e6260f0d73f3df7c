// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// shown is a rollout as rollout_status shows it: each wave's name, state, pending files once the apply is
// done, and reason.
func shown(w *rollout.WavePlan) string {
	var s []string
	for _, st := range w.Waves {
		pending := st.PendingFiles
		if st.Writes {
			pending = 0
		}
		s = append(s, fmt.Sprintf("%s=%s/%d/%s", st.Name, st.State, pending, st.Reason))
	}
	return strings.Join(s, "\n")
}

// A rollout in two waves over a real bare repository: v2 reached the canary (drone) at c2 and the rest
// (large) at c3, where e1 failed. Each wave has its own last known good (canary c3, rest c2); the
// environment's is c2, and on_failure = "rollback" restores it. The plan of that rollback shows the
// rollout as the plan after its apply decides it, so that plan is empty: held, nothing written.
func TestPlanLastKnownGood_WavesAndTheRolloutAfterTheRollback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"README.md": "gitops"})
	c1 := gitserver.Commit(t, repo, "main", "v1", map[string]string{"clusters/drone/a.yaml": "v1", "clusters/large/a.yaml": "v1",
		"clusters/" + OwnerMarker: string(MarkerContent("clusters"))}, nil)
	c2 := gitserver.Commit(t, repo, "main", "canary v2", map[string]string{"clusters/drone/a.yaml": "v2"}, nil)
	c3 := gitserver.Commit(t, repo, "main", "rest v2", map[string]string{"clusters/large/a.yaml": "v2"}, nil)
	now := time.Now()
	ok := func(cluster, commit string) rollout.Report {
		return rollout.Report{Cluster: cluster, Commit: commit, State: rollout.Succeeded, Time: now.Add(-time.Hour)}
	}
	reports := statusSource{ok("d1", c1), ok("e1", c1), ok("d1", c2), ok("e1", c2), ok("d1", c3),
		{Cluster: "e1", Commit: c3, State: rollout.Failed, Message: "health check failed", Time: now.Add(-time.Minute)}}
	tree := func(commit string) string {
		id, err := (&gitrepo.Client{}).ManagedTreeAt(ctx, "file://"+repo, "main", commit, "clusters")
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	plan := func(head string, hold *Hold) *Planning {
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(map[string]string{"drone/a.yaml": "v2", "large/a.yaml": "v2"})}})
		p.Prior = prior(repo, "clusters", false)
		p.Prior.ContentHash, p.Prior.CommitSHA, p.Hold = tree(head), head, hold
		p.Rollout = &Rollout{Source: reports, Now: now, OnFailure: OnFailureRollback,
			Expect: rollout.WaveExpect{Clusters: map[string][]string{"drone": {"d1"}, "large": {"e1"}}},
			Waves:  []rollout.Wave{{Name: "canary", ClusterTypes: []string{"drone"}}, {Name: "rest"}}}
		if err := RunPlan(ctx, p, PlanSteps()); err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := plan(c3, nil)
	lkg := p.LastKnownGood
	if lkg == nil || lkg.Commit != c2 || lkg.Tree != tree(c2) || len(lkg.Waves) != 2 {
		t.Fatalf("last known good %+v, want %s", lkg, c2)
	}
	if w := lkg.Waves[0]; w.Name != "canary" || w.Commit != c3 || w.Tree != tree(c3) || strings.Join(w.ClusterTypes, ",") != "drone" {
		t.Errorf("canary's last known good %+v, want %s", w, c3)
	}
	if w := lkg.Waves[1]; w.Name != "rest" || w.Commit != c2 || w.Tree != tree(c2) || strings.Join(w.ClusterTypes, ",") != "large" {
		t.Errorf("rest's last known good %+v, want %s", w, c2)
	}
	if p.RolledBack == nil || !p.RolledBack.Auto || p.RolledBack.To != c2 || changedPaths(p.Changes) != "clusters/large/a.yaml" {
		t.Fatalf("the automatic rollback: %+v %q", p.RolledBack, changedPaths(p.Changes))
	}
	want := "canary=done/0/1/1 clusters succeeded\nrest=current/1/held: a rollback to " + c2[:12] + " holds the tree the configuration renders"
	if got := shown(p.Waves); got != want {
		t.Errorf("rollout_status of the rollback's plan:\n%s\nwant\n%s", got, want)
	}

	// The apply writes the rollback; the next plan is held and shows the same rollout.
	rb := gitserver.Commit(t, repo, "main", "roll back", map[string]string{"clusters/large/a.yaml": "v1"}, nil)
	next := plan(rb, HoldAfter(p.RolledBack, tree(c3), c3, now))
	if !next.Changes.Empty() || next.RolledBack != nil || len(next.Warnings) == 0 || next.Warnings[len(next.Warnings)-1].Summary != "Held after a rollback" {
		t.Fatalf("the plan after the rollback: %q %+v %+v", changedPaths(next.Changes), next.RolledBack, next.Warnings)
	}
	if got := shown(next.Waves); got != want {
		t.Errorf("rollout_status of the plan after the rollback:\n%s\nwant (as the rollback's plan showed)\n%s", got, want)
	}
	// While held, the held wave's words do not move with its clusters' reports on the rollback's commit.
	reports = append(reports, ok("e1", rb))
	if got := shown(plan(rb, HoldAfter(p.RolledBack, tree(c3), c3, now)).Waves); got != want {
		t.Errorf("after a report on the rollback:\n%s", got)
	}
}

// historyAfterRollback finds the folders' last changes as lastChanges would in the history the next plan
// reads: the rollback's commit on top, at most limit commits. A folder the whole history read holds alike
// changed before it (absent), unless the history reaches the first commit.
func TestHistoryAfterRollback(t *testing.T) {
	t.Parallel()
	entry := func(content string) gitrepo.Entry {
		return gitrepo.Entry{Hash: gitrepo.BlobID([]byte(content)), Mode: 0o100644}
	}
	before := &gitrepo.Inspection{Managed: map[string]gitrepo.Entry{"drone/a": entry("2"), "large/a": entry("2"), "east/a": entry("1")}}
	after := branchAfterRollback(before, map[string][]byte{"drone/a": []byte("2"), "large/a": []byte("1"), "east/a": []byte("1"), "new/a": []byte("1")})
	history := []rollout.Commit{{SHA: "c3"}, {SHA: "c2"}, {SHA: "c1"}}
	for _, c := range []struct {
		name     string
		changed  map[string]int
		limit    int
		complete bool
		want     string
	}{
		{"complete history", map[string]int{"drone": 1, "large": 0, "east": 2}, 10, true, "drone=2 east=3 large=0 new=0 (4 commits)"},
		{"east older than the history read", map[string]int{"drone": 1, "large": 0}, 10, false, "drone=2 large=0 new=0 (4 commits)"},
		{"the oldest commit falls out of the limit", map[string]int{"drone": 1, "large": 0, "east": 2}, 3, true, "large=0 new=0 (3 commits)"},
		{"a one-commit history", map[string]int{"drone": 0, "large": 0, "east": 0}, 1, true, "(1 commits)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := historyAfterRollback(rollout.WaveInput{History: history, Changed: c.changed}, c.limit, c.complete, before, after, time.Time{})
			var s []string
			for _, ct := range []string{"drone", "east", "large", "new"} {
				if i, ok := changed[ct]; ok {
					s = append(s, fmt.Sprintf("%s=%d", ct, i))
				}
			}
			if out := strings.TrimSpace(strings.Join(s, " ") + fmt.Sprintf(" (%d commits)", len(got))); out != c.want || got[0].SHA != rollbackCommit {
				t.Errorf("got %s (head %s), want %s", out, got[0].SHA, c.want)
			}
		})
	}
}
