// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package fleethistory scripts a history of promotions at fixed times: a control-plane repository with
// four commits, a GitOps repository with the branches dev, stage and prod promoted from them (a failed
// change rolled back in dev), and the commit statuses the clusters post. The fleet status tests assert
// rows, comparisons, drift and delivery metrics computed by hand from this script (see Expected).
package fleethistory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// T0 is the script's first moment; Now is when the tests look at it (four days later).
var (
	T0  = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	Now = T0.Add(96 * time.Hour)
)

// ContextPattern matches the scripted statuses' contexts: kalypso/<cluster type>/<cluster>.
const ContextPattern = `kalypso/(?P<cluster_type>[^/]+)/(?P<cluster>[^/]+)`

// Script is the built history.
type Script struct {
	// GitOps and ControlPlane are bare repositories; NoPromoted is a GitOps repository whose branch dev
	// carries no Promoted_Commit_Id.
	GitOps, ControlPlane, NoPromoted string
	// Commits names every commit: C1..C4 on the control plane, D1..D5 (dev), S1, S2 (stage), P1 (prod).
	Commits map[string]string
	// Statuses are what the clusters posted, by GitOps commit SHA.
	Statuses map[string][]githubpr.Status
}

func at(d time.Duration) time.Time { return T0.Add(d) }

const (
	hour   = time.Hour
	day    = 24 * time.Hour
	minute = time.Minute
)

// flux and argo are a deployment target's reconciler manifests at a version; nothing else differs
// between environments, so folders with the same version are the same Git tree.
func flux(name, version string) string {
	return fmt.Sprintf("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: %s\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://github.com/example/%s\n  ref:\n    tag: %s\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: %s\n  namespace: flux-system\nspec:\n  interval: 1m\n  sourceRef:\n    kind: GitRepository\n    name: %s\n  path: ./manifests\n  prune: true\n", name, name, version, name, name)
}

func argo(name, version string) string {
	return fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: %s\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://github.com/example/%s\n    targetRevision: %s\n    path: manifests\n", name, name, version)
}

func folder(ct, dt, reconciler string) map[string]string {
	return map[string]string{
		ct + "/" + dt + "/reconciler.yaml": reconciler,
		ct + "/" + dt + "/namespace.yaml":  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + dt + "\n",
	}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func promoted(sha string) map[string]string {
	return map[string]string{".github/tracking/Promoted_Commit_Id": sha + "\n"}
}

// Build creates the repositories under root.
func Build(t testing.TB, root string) *Script {
	t.Helper()
	s := &Script{Commits: map[string]string{}, Statuses: map[string][]githubpr.Status{}}
	s.ControlPlane = gitserver.NewBareRepo(t, root, "control-plane.git", "main")
	for i := 1; i <= 4; i++ {
		s.Commits[fmt.Sprintf("C%d", i)] = gitserver.CommitAt(t, s.ControlPlane, "main", fmt.Sprintf("change %d", i),
			map[string]string{"workloads/hello.yaml": fmt.Sprintf("version: %d\n", i)}, nil, at(time.Duration(i-1)*day))
	}
	c := s.Commits
	s.GitOps = gitserver.NewBareRepo(t, root, "gitops.git", "main")
	gitserver.CommitAt(t, s.GitOps, "main", "readme", map[string]string{"README.md": "GitOps\n"}, nil, T0)
	base := func(hello, orders, large string) map[string]string {
		return merge(folder("small", "hello", flux("hello", hello)), folder("small", "orders", argo("orders", orders)),
			folder("large", "hello", flux("hello", large)), map[string]string{"small/README.md": "small\n", "large/README.md": "large\n"})
	}
	commit := func(name, branch string, files map[string]string, when time.Time) {
		s.Commits[name] = gitserver.CommitAt(t, s.GitOps, branch, name, files, nil, when)
	}
	// dev: C1; C2 (hello only); C3 (hello fails on dev-small-1); back to C2 (a rollback); C4 (hello on both types).
	commit("D1", "dev", merge(base("v1.0.0", "v1.0.0", "v1.0.0"), folder("small", "canary", flux("canary", "v0.1.0")), promoted(c["C1"])), at(1*hour))
	commit("D2", "dev", merge(folder("small", "hello", flux("hello", "v1.1.0")), promoted(c["C2"])), at(day+hour))
	commit("D3", "dev", merge(folder("small", "hello", flux("hello", "v1.2.0")), promoted(c["C3"])), at(2*day+hour))
	commit("D4", "dev", merge(folder("small", "hello", flux("hello", "v1.1.0")), promoted(c["C2"])), at(2*day+5*hour))
	commit("D5", "dev", merge(folder("small", "hello", flux("hello", "v1.2.1")), folder("large", "hello", flux("hello", "v1.2.1")), promoted(c["C4"])), at(3*day+hour))
	// stage: C1, then C2.
	commit("S1", "stage", merge(base("v1.0.0", "v1.0.0", "v1.0.0"), promoted(c["C1"])), at(day+3*hour))
	commit("S2", "stage", merge(folder("small", "hello", flux("hello", "v1.1.0")), promoted(c["C2"])), at(3*day+6*hour))
	// prod: C1.
	commit("P1", "prod", merge(base("v1.0.0", "v1.0.0", "v1.0.0"), promoted(c["C1"])), at(2*day+3*hour))

	s.NoPromoted = gitserver.NewBareRepo(t, root, "no-promoted.git", "main")
	gitserver.CommitAt(t, s.NoPromoted, "dev", "rendered without promoted_commit_id", base("v1.0.0", "v1.0.0", "v1.0.0"), nil, at(hour))

	post := func(commit, ct, cluster, state string, when time.Time) {
		sha := s.Commits[commit]
		s.Statuses[sha] = append(s.Statuses[sha], githubpr.Status{Context: "kalypso/" + ct + "/" + cluster, State: state,
			Description: "reconciliation " + state, UpdatedAt: when, Creator: "flux"})
	}
	post("D1", "small", "dev-small-1", "success", at(hour+10*minute))
	post("D1", "small", "dev-small-2", "success", at(hour+12*minute))
	post("D1", "large", "dev-large-1", "success", at(hour+15*minute))
	post("D2", "small", "dev-small-1", "success", at(day+hour+20*minute))
	post("D2", "small", "dev-small-2", "success", at(day+hour+30*minute))
	post("D2", "large", "dev-large-1", "success", at(day+hour+25*minute))
	post("D3", "small", "dev-small-1", "failure", at(2*day+hour+10*minute))
	post("D3", "large", "dev-large-1", "success", at(2*day+hour+15*minute))
	post("D4", "small", "dev-small-1", "success", at(2*day+5*hour+10*minute))
	post("D4", "small", "dev-small-2", "success", at(2*day+5*hour+12*minute))
	post("D4", "large", "dev-large-1", "success", at(2*day+5*hour+20*minute))
	post("D5", "small", "dev-small-1", "success", at(3*day+hour+30*minute))
	post("D5", "small", "dev-small-2", "pending", at(3*day+hour+20*minute))
	post("S1", "small", "stage-small-1", "success", at(day+3*hour+30*minute))
	post("S1", "large", "stage-large-1", "success", at(day+3*hour+40*minute))
	post("S2", "small", "stage-small-1", "success", at(3*day+6*hour+20*minute))
	post("S2", "large", "stage-large-1", "success", at(3*day+6*hour+25*minute))
	post("P1", "small", "prod-small-1", "success", at(2*day+3*hour+40*minute))
	for _, sts := range s.Statuses {
		// Newest first, as GitHub lists them.
		sort.SliceStable(sts, func(i, j int) bool { return sts[i].UpdatedAt.After(sts[j].UpdatedAt) })
	}
	return s
}

// Lister serves the script's statuses as GitHub's API would (rollout.StatusLister), for the engine's tests.
func (s *Script) Lister() *Lister { return &Lister{s: s} }

// Lister is a StatusLister over the script; Fail makes every call fail with it.
type Lister struct {
	s    *Script
	Fail error
}

// ListStatuses lists the statuses of ref.
func (l *Lister) ListStatuses(_ context.Context, _, _, ref string, _, _ int) ([]githubpr.Status, error) {
	if l.Fail != nil {
		return nil, l.Fail
	}
	return append([]githubpr.Status(nil), l.s.Statuses[ref]...), nil
}

// Name returns the script's name of a commit SHA ("" when it is none of them), for messages.
func (s *Script) Name(sha string) string {
	for n, c := range s.Commits {
		if strings.EqualFold(c, sha) {
			return n
		}
	}
	return ""
}
