// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// rollback: the desired files are those of a commit of the branch, without the dot-entries at the path's
// root; the render does not run; a commit not on the branch, one without the path, last_known_good without
// sources and a create are refused at rollback (or rollback.to).
func TestPlanRollback(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "fleet"})
	good := gitserver.Commit(t, repo, "main", "good", map[string]string{"clusters/a/x.yaml": "x1", "clusters/" + OwnerMarker: string(MarkerContent("clusters"))}, nil)
	gitserver.Commit(t, repo, "main", "bad", map[string]string{"clusters/a/x.yaml": "x2", "clusters/b/y.yaml": "y"}, nil)
	ctx := context.Background()
	step := func(to string, withPrior bool) (*Planning, *filesRenderer, error) {
		r := &filesRenderer{results: []Rendered{files(map[string]string{"a/x.yaml": "x3"})}}
		p := planning(repo, "clusters", r)
		p.Config.Rollback = &Rollback{To: to}
		if withPrior {
			p.Prior = prior(repo, "clusters", true)
		}
		_ = planIdentity(ctx, p)
		if err := planRollback(ctx, p); err != nil {
			return p, r, err
		}
		return p, r, planRender(ctx, p)
	}
	p, r, err := step(good[:9], true)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Rendered.Files; len(got) != 1 || string(got["a/x.yaml"]) != "x1" || p.RolledBack == nil || p.RolledBack.To != good {
		t.Errorf("rolled back to %+v: files %q", p.RolledBack, got)
	}
	if len(r.reuses) != 0 {
		t.Errorf("the render ran during a rollback: %v", r.reuses)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Detail, "commit "+good+" of branch main") {
		t.Errorf("warnings %+v", p.Warnings)
	}
	if err := planInspect(ctx, p); err != nil || p.Changes.Counts != (Counts{Update: 1, Delete: 1}) {
		t.Errorf("the reverse change: %v %+v", err, p.Changes)
	}
	_, _, err = step("0123456789abcdef0123456789abcdef01234567", true)
	refusal(t, err, "rollback.to", "is not main's head", "first-parent ancestors")
	seed := gitserver.Git(t, repo, nil, "rev-list", "--max-parents=0", "main")
	_, _, err = step(strings.TrimSpace(seed), true)
	refusal(t, err, "rollback.to", "would delete every file under path")
	_, _, err = step(LastKnownGoodName, true)
	refusal(t, err, "rollback.to", "needs the rollout's sources")
	_, _, err = step("main~1", true)
	refusal(t, err, "rollback.to", "is neither a commit id")
	_, _, err = step(good, false)
	refusal(t, err, "rollback", "nothing to roll back")
}

// hold: a plan of the held tree writes nothing and warns; release_hold plans it with a warning; another
// tree, a configured rollback or no hold plan as usual.
func TestPlanHold(t *testing.T) {
	t.Parallel()
	hold := &Hold{Tree: "bad", Commit: "c3c3c3c3c3c3c3", To: "c2c2c2c2c2c2c2", Since: "2026-11-25T09:00:00Z"}
	run := func(h *Hold, tree string, release bool, rollback *Rollback) *Planning {
		p := &Planning{ID: "x", Hold: h, Prior: &Prior{ContentHash: "good"},
			Changes: &Plan{DesiredTree: tree, BaseTree: "good", Counts: Counts{Update: 3}, CurrentFiles: 9}}
		p.Config.ReleaseHold, p.Config.Rollback = release, rollback
		if err := planHold(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := run(hold, "bad", false, nil)
	if !p.Changes.Empty() || p.Changes.DesiredTree != "good" || len(p.Warnings) != 1 || p.Warnings[0].Summary != "Held after a rollback" ||
		!strings.Contains(p.Warnings[0].Detail, "tree bad (commit c3c3c3c3c3c3) was rolled back to commit c2c2c2c2c2c2 at 2026-11-25T09:00:00Z") {
		t.Errorf("held: %+v %+v", p.Changes, p.Warnings)
	}
	if p := run(hold, "bad", true, nil); p.Changes.Empty() || len(p.Warnings) != 1 || p.Warnings[0].Summary != "Hold released" {
		t.Errorf("release_hold: %+v %+v", p.Changes, p.Warnings)
	}
	for name, p := range map[string]*Planning{"another tree": run(hold, "new", false, nil), "a rollback": run(hold, "bad", false, &Rollback{To: "c2"}), "no hold": run(nil, "bad", false, nil)} {
		if p.Changes.Empty() || len(p.Warnings) != 0 {
			t.Errorf("%s: %+v %+v", name, p.Changes, p.Warnings)
		}
	}
}

func TestHoldRecord(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	h := HoldAfter(&RolledBack{To: "c2"}, "bad", "c3", now)
	if h == nil || !reflect.DeepEqual(*h, Hold{Tree: "bad", Commit: "c3", To: "c2", Since: "2026-11-25T09:00:00Z"}) {
		t.Fatalf("HoldAfter: %+v", h)
	}
	if got := ParseHold(h.Marshal()); got == nil || !reflect.DeepEqual(*got, *h) {
		t.Errorf("round trip %+v", got)
	}
	if HoldAfter(nil, "bad", "c3", now) != nil || ParseHold(nil) != nil || ParseHold([]byte("{")) != nil {
		t.Error("a change that is no rollback ends the hold; an unreadable record is none")
	}
}

func TestRollbackMessage(t *testing.T) {
	t.Parallel()
	to, from := "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
	describe := RollbackMessage(CommitMessage{Path: "clusters", Branch: "main", Render: true}, to, from)
	got := describe(gitrepo.Changes{Modified: []string{"drone/a/platform-config.yaml"}, Removed: []string{"large/b/namespace.yaml"}})
	want := "Roll back clusters on main to 222222222222 (from 333333333333): 1 modified, 1 removed\n\n" +
		"Rolled back from: " + from + "\nRolled back to: " + to + "\n" +
		"Cluster types: drone (1 modified), large (1 removed)\n\nWritten by kalypso_gitops_commit (terraform-provider-kalypso)."
	if got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
}

// statusSource is a rollout.Source of fixed reports.
type statusSource []rollout.Report

func (s statusSource) Reports(context.Context, []string) ([]rollout.Report, error) { return s, nil }

// last_known_good: the newest commit every expected cluster reported healthy, with its managed tree; a
// rollback to last_known_good restores it.
func TestPlanLastKnownGood(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "fleet"})
	marker := string(MarkerContent("clusters"))
	c1 := gitserver.Commit(t, repo, "main", "v1", map[string]string{"clusters/drone/a.yaml": "v1", "clusters/" + OwnerMarker: marker}, nil)
	c2 := gitserver.Commit(t, repo, "main", "v2", map[string]string{"clusters/drone/a.yaml": "v2"}, nil)
	c3 := gitserver.Commit(t, repo, "main", "v3", map[string]string{"clusters/drone/a.yaml": "v3"}, nil)
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ok := func(cluster, commit string) rollout.Report {
		return rollout.Report{Cluster: cluster, Commit: commit, State: rollout.Succeeded, Time: now.Add(-time.Hour)}
	}
	reports := statusSource{ok("d1", c1), ok("d2", c1), ok("d1", c2), ok("d2", c2), ok("d1", c3),
		{Cluster: "d2", Commit: c3, State: rollout.Failed, Message: "health check failed", Time: now}}
	plan := func(to string) *Planning {
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(map[string]string{"drone/a.yaml": "v3"})}})
		p.Prior = prior(repo, "clusters", true)
		p.Rollout = &Rollout{Expect: rollout.WaveExpect{Clusters: map[string][]string{"drone": {"d1", "d2"}}}, Source: reports, Now: now}
		if to != "" {
			p.Config.Rollback = &Rollback{To: to}
		}
		_ = planIdentity(context.Background(), p)
		return p
	}
	p := plan("")
	if err := planLastKnownGood(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	want, err := (&gitrepo.Client{}).ManagedTreeAt(context.Background(), "file://"+repo, "main", c2, "clusters")
	if err != nil || p.LastKnownGood == nil || p.LastKnownGood.Commit != c2 || p.LastKnownGood.Tree != want || p.LastKnownGood.Waves != nil {
		t.Errorf("last known good %+v, want %s with tree %s (%v)", p.LastKnownGood, c2, want, err)
	}
	r := plan(LastKnownGoodName)
	if err := planRollback(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.RolledBack == nil || r.RolledBack.To != c2 || string(r.Rendered.Files["drone/a.yaml"]) != "v2" || len(r.Rendered.Files) != 1 {
		t.Errorf("rollback to last_known_good: %+v %q", r.RolledBack, r.Rendered.Files)
	}
	// rollout.on_failure = "rollback": a halted rollout's plan rolls back to it by itself, once.
	auto := plan("")
	auto.Rollout.OnFailure, auto.Waves = OnFailureRollback, &rollout.WavePlan{Halted: true}
	if err := planLastKnownGood(context.Background(), auto); err != nil {
		t.Fatal(err)
	}
	if auto.RolledBack == nil || !auto.RolledBack.Auto || auto.RolledBack.To != c2 || string(auto.Rendered.Files["drone/a.yaml"]) != "v2" {
		t.Errorf("on_failure rollback: %+v %q", auto.RolledBack, auto.Rendered.Files)
	}
	again := plan("")
	again.Rollout.OnFailure, again.Waves, again.Hold = OnFailureRollback, &rollout.WavePlan{Halted: true}, &Hold{Tree: "t", To: c2}
	if err := planLastKnownGood(context.Background(), again); err != nil || again.RolledBack != nil || len(again.Warnings) != 1 || again.Warnings[0].Summary != "No rollback of a rollback" {
		t.Errorf("a rollback of a rollback: %v %+v %+v", err, again.RolledBack, again.Warnings)
	}
	// Nobody healthy on any commit: no last known good, and a rollback to it is refused.
	none := plan(LastKnownGoodName)
	none.Rollout.Source = statusSource{{Cluster: "d1", Commit: c3, State: rollout.Failed, Time: now}}
	refusal(t, planRollback(context.Background(), none), "rollback.to", "no last known good commit")
}
