// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// reportsSource is a rollout.Source that reports success, an hour old, for the named clusters on whatever
// commits it is asked about first (the head).
type reportsSource struct{ ok []string }

func (r *reportsSource) Reports(_ context.Context, commits []string) ([]rollout.Report, error) {
	var out []rollout.Report
	for _, c := range r.ok {
		out = append(out, rollout.Report{Cluster: c, Commit: commits[0], State: rollout.Succeeded, Time: time.Now().Add(-time.Hour)})
	}
	return out, nil
}

func changedPaths(p *Plan) string {
	var out []string
	for k := range p.Changes {
		if !strings.HasSuffix(k, OwnerMarker) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// The waves step over a real bare repository: three waves, a change to every cluster type and to the
// promoted commit. Each plan's change set holds only the admitted wave's folders; the promoted commit
// moves with the last wave.
func TestPlanWaves_NarrowsTheChangeSetToTheAdmittedWave(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{
		"clusters/drone/a.yaml": "v1", "clusters/west/a.yaml": "v1", "clusters/east/a.yaml": "v1", PromotedCommitFile: "p1",
	})
	desired := files(map[string]string{"drone/a.yaml": "v2", "west/a.yaml": "v2", "east/a.yaml": "v2"})
	desired.ClusterTypes = map[string]map[string]string{"drone": {"ring": "0"}, "west": {"region": "west"}, "east": {"region": "east"}}
	promoted := "p2"
	source := &reportsSource{}
	plan := func() *Planning {
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{desired}})
		p.Config.Resource.PromotedCommitID = &promoted
		p.Prior = prior(repo, "clusters", false) // the state of the resource whose ownership record the applies write
		p.Rollout = &Rollout{Source: source, Now: time.Now(), Expect: rollout.WaveExpect{Clusters: map[string][]string{"drone": {"d1"}, "west": {"w1"}, "east": {"e1"}}},
			Waves: []rollout.Wave{{Name: "canary", Labels: map[string]string{"ring": "0"}}, {Name: "west", ClusterTypes: []string{"west"}}, {Name: "rest"}}}
		if err := RunPlan(ctx, p, PlanSteps()); err != nil {
			t.Fatal(err)
		}
		return p
	}
	states := func(p *Planning) string {
		var s []string
		for _, w := range p.Waves.Waves {
			s = append(s, w.Name+"="+string(w.State))
		}
		return strings.Join(s, " ")
	}
	// apply commits what the plan narrowed the desired files to, as the apply would.
	apply := func(p *Planning) {
		t.Helper()
		files := map[string]string{}
		for rel, c := range p.Rendered.Files {
			files["clusters/"+rel] = string(c)
		}
		for k, v := range p.Config.Resource.Desired(p.Rendered.Files, "", false).RootFiles {
			files[k] = string(v) // the ownership record, and the promoted commit the plan writes
		}
		gitserver.Commit(t, repo, "main", "apply", files, nil)
	}

	p := plan()
	if got := changedPaths(p.Changes); got != "clusters/drone/a.yaml" || states(p) != "canary=current west=waiting rest=waiting" {
		t.Fatalf("first plan: %q, %s", got, states(p))
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Summary != "Rollout: waves stay behind" ||
		!strings.Contains(p.Warnings[0].Detail, "this apply writes wave canary (drone: 1 file).\nwest waits for canary\nrest waits for canary") {
		t.Errorf("warnings %+v", p.Warnings)
	}
	apply(p)

	// d1 has not reported about the new commit: nothing to write.
	if p = plan(); !p.Changes.Empty() || states(p) != "canary=current west=waiting rest=waiting" ||
		!strings.Contains(p.Waves.Waves[0].Reason, "waits: 0/1 clusters succeeded; d1 has not reported") {
		t.Fatalf("waiting: %q, %s, %q", changedPaths(p.Changes), states(p), p.Waves.Waves[0].Reason)
	}
	source.ok = []string{"d1"}
	if p = plan(); changedPaths(p.Changes) != "clusters/west/a.yaml" || states(p) != "canary=done west=current rest=waiting" {
		t.Fatalf("second wave: %q, %s", changedPaths(p.Changes), states(p))
	}
	apply(p)
	source.ok = []string{"d1", "w1"}
	if p = plan(); changedPaths(p.Changes) != ".github/tracking/Promoted_Commit_Id clusters/east/a.yaml" || states(p) != "canary=done west=done rest=current" {
		t.Fatalf("last wave: %q, %s", changedPaths(p.Changes), states(p))
	}
	apply(p)
	source.ok = []string{"d1", "w1", "e1"}
	if p = plan(); !p.Changes.Empty() || states(p) != "canary=done west=done rest=done" || len(p.Warnings) != 0 {
		t.Fatalf("done: %q, %s, %+v", changedPaths(p.Changes), states(p), p.Warnings)
	}
	got := gitserver.Files(t, repo, "main")
	if got["clusters/drone/a.yaml"] != "v2" || got["clusters/east/a.yaml"] != "v2" || got[PromotedCommitFile] != "p2" {
		t.Errorf("branch %v", got)
	}

	// Pull-request mode cannot roll out.
	pr := planning(repo, "clusters", &filesRenderer{results: []Rendered{desired}})
	pr.Config.Resource.PullRequest = &PullRequest{}
	pr.Rollout = &Rollout{Source: source, Waves: []rollout.Wave{{Name: "all"}}}
	refusal(t, RunPlan(ctx, pr, PlanSteps()), "rollout", "rollout advances wave by wave")
}

// staticSource reports what it holds, whatever it is asked.
type staticSource struct{ reports []rollout.Report }

func (s *staticSource) Reports(context.Context, []string) ([]rollout.Report, error) {
	return s.reports, nil
}

// Terraform plans again right before it applies: a status that arrives in between must not change what
// the plan showed. Within WavesDecisionTTL a plan of the same inputs shows the kept decision while it is
// safe (holding back; writing a wave whose earlier waves are still done), and refuses it otherwise;
// DropWaves (after an apply, or a plan that changes nothing) lets the next plan decide afresh.
func TestPlanWaves_KeepsTheDecisionForTheApplyTimePlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"clusters/drone/a.yaml": "v2", "clusters/west/a.yaml": "v1"})
	store := NewRenderStore(t.TempDir())
	source := &staticSource{}
	now := time.Now()
	plan := func(at time.Time) (*Planning, error) {
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(map[string]string{"drone/a.yaml": "v2", "west/a.yaml": "v2"})}})
		p.Store = store
		p.Rollout = &Rollout{Source: source, Now: at, Expect: rollout.WaveExpect{Clusters: map[string][]string{"drone": {"d1"}, "west": {"w1"}}},
			Waves: []rollout.Wave{{Name: "canary", ClusterTypes: []string{"drone"}}, {Name: "rest"}}}
		_ = planIdentity(ctx, p)
		return p, RunPlan(ctx, p, PlanSteps())
	}
	ok := func(state rollout.State) []rollout.Report {
		head := gitserver.Head(t, repo, "main")
		return []rollout.Report{{Cluster: "d1", Commit: head, State: state, Time: now.Add(-time.Hour), Message: string(state)}}
	}

	// The canary's cluster has not reported: nothing to write. It reports success before the apply-time
	// plan, which still shows the plan's decision.
	p, err := plan(now)
	if err != nil || changedPaths(p.Changes) != "" || p.Waves.Waves[0].State != rollout.WaveCurrent {
		t.Fatalf("first plan: %v %+v", err, p.Waves)
	}
	source.reports = ok(rollout.Succeeded)
	if p, err = plan(now.Add(time.Minute)); err != nil || changedPaths(p.Changes) != "" || p.Waves.Waves[0].State != rollout.WaveCurrent {
		t.Fatalf("the apply-time plan changed the decision: %v %+v", err, p.Waves)
	}
	// Once the apply (or an empty plan) dropped it, the next plan decides afresh: the rest is written.
	store.DropWaves(p.ID)
	if p, err = plan(now.Add(2 * time.Minute)); err != nil || changedPaths(p.Changes) != "clusters/west/a.yaml" {
		t.Fatalf("after DropWaves: %v %q", err, changedPaths(p.Changes))
	}
	// The canary fails before the apply-time plan: writing the rest is no longer safe, and the plan says so.
	source.reports = ok(rollout.Failed)
	_, err = plan(now.Add(3 * time.Minute))
	refusal(t, err, "rollout", "the plan wrote wave rest", "canary halted", "Nothing was written. Run terraform plan again")
	// Refused once: the next plan decides afresh (halted, nothing written).
	if p, err = plan(now.Add(4 * time.Minute)); err != nil || changedPaths(p.Changes) != "" || !p.Waves.Halted {
		t.Fatalf("after the refusal: %v %+v", err, p.Waves)
	}
	// A kept decision older than WavesDecisionTTL stands for nothing.
	source.reports = ok(rollout.Succeeded)
	if p, err = plan(now.Add(4*time.Minute + WavesDecisionTTL)); err != nil || changedPaths(p.Changes) != "clusters/west/a.yaml" {
		t.Fatalf("after the TTL: %v %q", err, changedPaths(p.Changes))
	}
}
