// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleethistory"
)

func source(t *testing.T, l rollout.StatusLister) rollout.Source {
	t.Helper()
	pats, err := rollout.CompilePatterns([]string{fleethistory.ContextPattern})
	if err != nil {
		t.Fatal(err)
	}
	return &rollout.GitHubStatuses{Lister: l, Owner: "example", Repo: "gitops", Patterns: pats, Limit: 100}
}

func request(t *testing.T, s *fleethistory.Script) fleetstatus.Request {
	src := source(t, s.Lister())
	return fleetstatus.Request{
		Repo: s.GitOps,
		Environments: []fleetstatus.Environment{
			{Name: "dev", Branch: "dev", Source: src},
			{Name: "stage", Branch: "stage", Source: src},
			// prod-large-1 never reports: only the configuration knows it.
			{Name: "prod", Branch: "prod", Source: src, Clusters: map[string][]string{"large": {"prod-large-1"}, "small": {"prod-small-1"}}},
		},
		ControlPlane: &fleetstatus.ControlPlane{Repo: s.ControlPlane},
		Window:       7 * 24 * time.Hour,
		Now:          fleethistory.Now,
	}
}

func read(t *testing.T, req fleetstatus.Request) *fleetstatus.Status {
	t.Helper()
	st, err := fleetstatus.Read(context.Background(), &gitrepo.Client{}, req)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRowsFromTheScriptedHistory(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	st := read(t, request(t, s))
	c := s.Commits
	type row struct {
		env, ct, dt, desired, promoted, version, from string
		state                                         rollout.State
		succeeded, clusters                           int
		changed                                       time.Time
	}
	want := []row{
		{"dev", "large", "hello", c["D5"], c["C4"], "v1.2.1", "flux:tag", rollout.Progressing, 0, 1, fleethistory.T0.Add(73 * time.Hour)},
		{"dev", "small", "canary", c["D1"], c["C1"], "v0.1.0", "flux:tag", rollout.Succeeded, 2, 2, fleethistory.T0.Add(time.Hour)},
		{"dev", "small", "hello", c["D5"], c["C4"], "v1.2.1", "flux:tag", rollout.Progressing, 1, 2, fleethistory.T0.Add(73 * time.Hour)},
		{"dev", "small", "orders", c["D1"], c["C1"], "v1.0.0", "argocd", rollout.Succeeded, 2, 2, fleethistory.T0.Add(time.Hour)},
		{"stage", "large", "hello", c["S1"], c["C1"], "v1.0.0", "flux:tag", rollout.Succeeded, 1, 1, fleethistory.T0.Add(27 * time.Hour)},
		{"stage", "small", "hello", c["S2"], c["C2"], "v1.1.0", "flux:tag", rollout.Succeeded, 1, 1, fleethistory.T0.Add(78 * time.Hour)},
		{"stage", "small", "orders", c["S1"], c["C1"], "v1.0.0", "argocd", rollout.Succeeded, 1, 1, fleethistory.T0.Add(27 * time.Hour)},
		{"prod", "large", "hello", c["P1"], c["C1"], "v1.0.0", "flux:tag", rollout.Unknown, 0, 1, fleethistory.T0.Add(51 * time.Hour)},
		{"prod", "small", "hello", c["P1"], c["C1"], "v1.0.0", "flux:tag", rollout.Succeeded, 1, 1, fleethistory.T0.Add(51 * time.Hour)},
		{"prod", "small", "orders", c["P1"], c["C1"], "v1.0.0", "argocd", rollout.Succeeded, 1, 1, fleethistory.T0.Add(51 * time.Hour)},
	}
	if len(st.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(st.Rows), len(want), st.Rows)
	}
	for i, w := range want {
		g := st.Rows[i]
		got := row{g.Environment, g.ClusterType, g.DeploymentTarget, g.DesiredCommit, g.Promoted, g.Version, g.VersionFrom, g.State, g.Succeeded, g.Clusters, g.ChangedAt.UTC()}
		if got != w {
			t.Errorf("row %d:\n got %+v (desired %s)\nwant %+v (desired %s)", i, got, s.Name(got.desired), w, s.Name(w.desired))
		}
		if g.Age != fleethistory.Now.Sub(w.changed) {
			t.Errorf("row %d: age %s, want %s", i, g.Age, fleethistory.Now.Sub(w.changed))
		}
	}
	envs := map[string]fleetstatus.EnvironmentStatus{}
	for _, e := range st.Environments {
		envs[e.Name] = e
	}
	if e := envs["dev"]; e.Head != c["D5"] || e.Promoted != c["C4"] || e.State != rollout.Progressing || e.Clusters != 3 {
		t.Errorf("dev: %+v", e)
	}
	if e := envs["prod"]; e.State != rollout.Progressing || e.Clusters != 2 || !strings.Contains(e.Summary, "1 not reporting") {
		t.Errorf("prod: %+v", e)
	}
}

func TestDriftAndComparisons(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	st := read(t, request(t, s))
	if st.Drift != 1 {
		t.Errorf("drift %d, want 1", st.Drift)
	}
	for _, c := range st.Clusters {
		wantDrift := c.Environment == "dev" && c.Name == "dev-large-1"
		if c.Drift != wantDrift {
			t.Errorf("cluster %s/%s: drift %v, want %v (commit %s, folder %s)", c.Environment, c.Name, c.Drift, wantDrift, s.Name(c.Commit), s.Name(c.FolderCommit))
		}
		if wantDrift && (c.Commit != s.Commits["D4"] || c.FolderCommit != s.Commits["D5"] || c.ClusterType != "large") {
			t.Errorf("dev-large-1: %+v", c)
		}
	}
	if len(st.Comparisons) != 2 {
		t.Fatalf("%d comparisons", len(st.Comparisons))
	}
	ds := st.Comparisons[0]
	if ds.From != "dev" || ds.To != "stage" || ds.Same != 1 || len(ds.Differing) != 3 {
		t.Fatalf("dev vs stage: %+v", ds)
	}
	want := []fleetstatus.FolderDiff{
		{ClusterType: "large", DeploymentTarget: "hello", Files: []fleetstatus.FileDiff{{Path: "reconciler.yaml", Change: "changed"}}, FromVersion: "v1.2.1", ToVersion: "v1.0.0"},
		{ClusterType: "small", DeploymentTarget: "canary", Only: "from", Files: []fleetstatus.FileDiff{{Path: "namespace.yaml", Change: "removed"}, {Path: "reconciler.yaml", Change: "removed"}}, FromVersion: "v0.1.0"},
		{ClusterType: "small", DeploymentTarget: "hello", Files: []fleetstatus.FileDiff{{Path: "reconciler.yaml", Change: "changed"}}, FromVersion: "v1.2.1", ToVersion: "v1.1.0"},
	}
	for i, w := range want {
		g := ds.Differing[i]
		if g.ClusterType != w.ClusterType || g.DeploymentTarget != w.DeploymentTarget || g.Only != w.Only || g.FromVersion != w.FromVersion || g.ToVersion != w.ToVersion ||
			len(g.Files) != len(w.Files) {
			t.Errorf("differing %d: %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Files {
			if g.Files[j] != w.Files[j] {
				t.Errorf("differing %d file %d: %+v, want %+v", i, j, g.Files[j], w.Files[j])
			}
		}
	}
	sp := st.Comparisons[1]
	if sp.From != "stage" || sp.To != "prod" || sp.Same != 2 || len(sp.Differing) != 1 || sp.Differing[0].DeploymentTarget != "hello" || sp.Differing[0].ClusterType != "small" {
		t.Errorf("stage vs prod: %+v", sp)
	}
}

func TestDeliveryMetricsFromTheScriptedHistory(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	st := read(t, request(t, s))
	dev := st.Metrics[0]
	// D1..D5 in the week before Now; D3 failed on dev-small-1 (and D4 rolled it back to C2).
	if dev.Deployments != 5 || dev.Failed != 1 || dev.ChangeFailureRate != 0.2 {
		t.Errorf("dev: %d deployments, %d failed, rate %v", dev.Deployments, dev.Failed, dev.ChangeFailureRate)
	}
	if want := 5.0 / 7; dev.DeploymentsPerDay != want {
		t.Errorf("dev: %v per day, want %v", dev.DeploymentsPerDay, want)
	}
	// Lead times: C1 1h15m (D1 healthy on dev-large-1 at 1h15m), C2 1h30m (D2), C3 5h12m (D3's content
	// reached dev-small-2 only with D4); C4 is not healthy yet (dev-small-2 pending). Median 1h30m.
	if dev.LeadTimes != 3 || dev.LeadTimeMedian != 90*time.Minute {
		t.Errorf("dev lead time: %d measured, median %s", dev.LeadTimes, dev.LeadTimeMedian)
	}
	// D3 failed at +2d1h10m; the environment was healthy again with D4 at +2d5h20m.
	if dev.Restores != 1 || dev.TimeToRestoreMedian != 4*time.Hour+10*time.Minute {
		t.Errorf("dev time to restore: %d, median %s", dev.Restores, dev.TimeToRestoreMedian)
	}
	wantKeys := []string{fleetstatus.KeyDeploymentFrequency, fleetstatus.KeyLeadTime, fleetstatus.KeyChangeFailureRate, fleetstatus.KeyTimeToRestore}
	if strings.Join(dev.Keys, ",") != strings.Join(wantKeys, ",") {
		t.Errorf("dev keys %v", dev.Keys)
	}
	stage := st.Metrics[1]
	if stage.Deployments != 2 || stage.Failed != 0 || stage.LeadTimes != 2 || stage.LeadTimeMedian != (27*time.Hour+40*time.Minute+54*time.Hour+25*time.Minute)/2 {
		t.Errorf("stage: %+v", stage)
	}
	if strings.Join(stage.Keys, ",") != "deployment_frequency,lead_time_for_changes,change_failure_rate" || !strings.Contains(strings.Join(stage.Notes, ";"), "no failed deployment") {
		t.Errorf("stage keys %v, notes %v", stage.Keys, stage.Notes)
	}
	prod := st.Metrics[2]
	// prod-large-1 never reported, so prod was never healthy: no lead time.
	if prod.Deployments != 1 || prod.LeadTimes != 0 || !strings.Contains(strings.Join(prod.Notes, ";"), "lead time for changes: no deployment") {
		t.Errorf("prod: %+v", prod)
	}
	// Without a control plane there is no lead time, and the note says why.
	req := request(t, s)
	req.ControlPlane = nil
	st = read(t, req)
	if st.Metrics[0].LeadTimes != 0 || !strings.Contains(strings.Join(st.Metrics[0].Notes, ";"), "needs control_plane") {
		t.Errorf("without control plane: %+v", st.Metrics[0])
	}
}

func TestBadInputFailsTheWholeRead(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	ctx := context.Background()

	req := request(t, s)
	req.Environments[1].Branch = "staging"
	_, err := fleetstatus.Read(ctx, &gitrepo.Client{}, req)
	var ee *fleetstatus.EnvError
	if !errors.As(err, &ee) || ee.Index != 1 || !errors.Is(err, gitrepo.ErrBranchNotFound) {
		t.Errorf("unknown branch: %v", err)
	}

	req = request(t, s)
	req.Repo = s.NoPromoted
	req.Environments = req.Environments[:1]
	_, err = fleetstatus.Read(ctx, &gitrepo.Client{}, req)
	if !errors.As(err, &ee) || ee.Index != 0 || !errors.Is(err, fleetstatus.ErrNoPromoted) {
		t.Errorf("no Promoted_Commit_Id: %v", err)
	}

	req = request(t, s)
	l := s.Lister()
	l.Fail = errors.New("502 Bad Gateway")
	req.Environments[2].Source = source(t, l)
	_, err = fleetstatus.Read(ctx, &gitrepo.Client{}, req)
	if !errors.As(err, &ee) || ee.Index != 2 || !errors.Is(err, fleetstatus.ErrSource) || !strings.Contains(err.Error(), "502") {
		t.Errorf("failing source: %v", err)
	}

	req = request(t, s)
	req.Environments[2].Name = "dev"
	if _, err = fleetstatus.Read(ctx, &gitrepo.Client{}, req); !errors.Is(err, fleetstatus.ErrInput) {
		t.Errorf("environment named twice: %v", err)
	}
}
