// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package fleetbench builds the fleet of issue 33's scale target for the fleet status benchmarks: the
// engine's (internal/fleetstatus), the Terraform conversion's and a real `terraform plan`'s
// (internal/provider) read the same repository and the same reports.
package fleetbench

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// Scale of issue 33: 3 environments of 300 cluster types and 450 deployment targets (each target on 192 of
// the cluster types: 86,400 folders, 172,800 files per environment, the size of BENCHMARKS.md's 86k fleet),
// 10 commits on dev (the first holds everything, each later one moves 45 workloads to a new version on
// every cluster type; stage and prod take fewer of them), 5,000 clusters per environment reporting the
// last 3 commits.
const (
	Types, Targets, Commits, Clusters = 300, 450, 10, 5000
	// Reported is how many of each branch's newest commits the clusters reported.
	Reported = 3
	// Rows is the rows of one status: every environment's deployment targets on their cluster types.
	Rows = 3 * Targets * 192
)

// Branches are the environments, each its own branch.
var Branches = []string{"dev", "stage", "prod"}

// Now is the time the benchmarks read the fleet at: a day after the last commit.
var Now = time.Date(2026, 1, 9, 9, 0, 0, 0, time.UTC)

var start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func placed(ct, dt int) bool { return (ct+dt)%25 < 16 }

// Build writes the three branches into a bare repository under root with one git fast-import and returns
// its path: stage and prod start from dev's first commit and take fewer of its changes, so the
// environments differ in some folders.
func Build(tb testing.TB, root string) string {
	tb.Helper()
	bare := gitserver.NewBareRepo(tb, root, "fleet.git", "dev")
	var s bytes.Buffer
	mark := 0
	reconciler := func(dt, version string) string {
		return fmt.Sprintf("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: w%03d\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://github.com/example/w%s\n  ref:\n    tag: %s\n", 0, dt, version)
	}
	file := func(p, content string) {
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
	}
	commit := func(branch string, from int, n int, promoted string, body func()) int {
		mark++
		fmt.Fprintf(&s, "commit refs/heads/%s\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata 7\ncommit\n", branch, mark, start.Add(time.Duration(n)*time.Hour).Unix())
		if from > 0 {
			fmt.Fprintf(&s, "from :%d\n", from)
		}
		file(".github/tracking/Promoted_Commit_Id", promoted+"\n")
		body()
		return mark
	}
	first := commit("dev", 0, 0, fmt.Sprintf("%040x", 1), func() {
		for ct := range Types {
			for dt := range Targets {
				if placed(ct, dt) {
					folder := fmt.Sprintf("ct-%03d/w-%03d", ct, dt)
					file(folder+"/reconciler.yaml", reconciler(fmt.Sprint(dt), "v1.0.0"))
					file(folder+"/namespace.yaml", fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: w-%03d\n", dt))
				}
			}
		}
	})
	for e, branch := range Branches {
		prev := first
		if e > 0 {
			fmt.Fprintf(&s, "reset refs/heads/%s\nfrom :%d\n\n", branch, first)
		}
		for c := 1; c < Commits; c++ {
			version := fmt.Sprintf("v1.%d.0", c)
			if c > Commits-1-e*2 {
				break // later environments are behind
			}
			prev = commit(branch, prev, c+e, fmt.Sprintf("%040x", c+1), func() {
				for dt := (c * 45) % Targets; dt < (c*45)%Targets+45; dt++ {
					for ct := range Types {
						if placed(ct, dt) {
							file(fmt.Sprintf("ct-%03d/w-%03d/reconciler.yaml", ct, dt), reconciler(fmt.Sprint(dt), version))
						}
					}
				}
			})
		}
	}
	gitserver.Git(tb, "", s.Bytes(), "--git-dir", bare, "fast-import", "--quiet")
	return bare
}

// Commit is one commit a cluster reported about.
type Commit struct {
	SHA  string
	Time time.Time
}

// Reports are the reports of branch's clusters about its newest commits (newest first, at most Reported
// of them): every cluster reports each commit ten minutes after it, and one in seven is still
// progressing with the head.
func Reports(branch string, newest []Commit) []rollout.Report {
	var out []rollout.Report
	for k := range Clusters {
		ct := fmt.Sprintf("ct-%03d", k%Types)
		for i, cm := range newest {
			if i == Reported {
				break
			}
			state := rollout.Succeeded
			if i == 0 && k%7 == 0 {
				state = rollout.Progressing
			}
			out = append(out, rollout.Report{Cluster: fmt.Sprintf("%s-%s-%04d", branch, ct, k), ClusterType: ct, Commit: cm.SHA,
				Reconciler: "flux", State: state, Time: cm.Time.Add(10 * time.Minute)})
		}
	}
	return out
}

// ReportsOf is every environment's reports (Reports), by branch, about the commits of the repository Build wrote.
func ReportsOf(tb testing.TB, c *gitrepo.Client, bare string) map[string][]rollout.Report {
	tb.Helper()
	out := map[string][]rollout.Report{}
	for _, branch := range Branches {
		log, err := c.Log(context.Background(), bare, branch, Reported, "")
		if err != nil {
			tb.Fatal(err)
		}
		var newest []Commit
		for _, e := range log {
			newest = append(newest, Commit{SHA: e.Commit, Time: e.Time})
		}
		out[branch] = Reports(branch, newest)
	}
	return out
}

// Static serves fixed reports, as a status API would after its requests: the engine and conversion
// benchmarks measure the fleet status, not the network.
type Static []rollout.Report

// Reports returns s.
func (s Static) Reports(context.Context, []string) ([]rollout.Report, error) { return s, nil }

// Request reads the whole fleet of the repository Build wrote at Now, each environment's reports served
// from memory (Static).
func Request(tb testing.TB, c *gitrepo.Client, bare string) fleetstatus.Request {
	tb.Helper()
	reports := ReportsOf(tb, c, bare)
	req := fleetstatus.Request{Repo: bare, MaxClusters: 10000, Window: 30 * 24 * time.Hour, Now: Now}
	for _, branch := range Branches {
		req.Environments = append(req.Environments, fleetstatus.Environment{Name: branch, Branch: branch, Source: Static(reports[branch])})
	}
	return req
}
