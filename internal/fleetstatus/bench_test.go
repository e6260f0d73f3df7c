// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

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
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// staticSource serves fixed reports, as a status API would after its requests: the benchmark measures
// the fleet status, not the network.
type staticSource []rollout.Report

func (s staticSource) Reports(context.Context, []string) ([]rollout.Report, error) { return s, nil }

// Scale of issue 33: 3 environments of 300 cluster types and 450 deployment targets (each target on 192 of
// the cluster types: 86,400 folders, 172,800 files per environment, the size of BENCHMARKS.md's 86k fleet),
// 10 commits per branch (the first holds everything, each later one moves 45 workloads to a new version on
// every cluster type), 5,000 clusters per environment reporting the last 3 commits.
const (
	benchTypes, benchTargets, benchCommits, benchClusters = 300, 450, 10, 5000
)

func placed(ct, dt int) bool { return (ct+dt)%25 < 16 }

// buildBenchRepo writes the three branches with one git fast-import: stage and prod start from dev's first
// commit and take fewer of its changes, so the environments differ in some folders.
func buildBenchRepo(b *testing.B) (string, []string) {
	b.Helper()
	root := b.TempDir()
	bare := gitserver.NewBareRepo(b, root, "fleet.git", "dev")
	var s bytes.Buffer
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	mark := 0
	reconciler := func(dt, version string) string {
		return fmt.Sprintf("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: w%03d\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://github.com/example/w%s\n  ref:\n    tag: %s\n", 0, dt, version)
	}
	file := func(p, content string) {
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
	}
	commit := func(branch string, from int, n int, promoted string, body func()) int {
		mark++
		fmt.Fprintf(&s, "commit refs/heads/%s\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata 7\ncommit\n", branch, mark, at.Add(time.Duration(n)*time.Hour).Unix())
		if from > 0 {
			fmt.Fprintf(&s, "from :%d\n", from)
		}
		file(".github/tracking/Promoted_Commit_Id", promoted+"\n")
		body()
		return mark
	}
	first := commit("dev", 0, 0, fmt.Sprintf("%040x", 1), func() {
		for ct := range benchTypes {
			for dt := range benchTargets {
				if placed(ct, dt) {
					folder := fmt.Sprintf("ct-%03d/w-%03d", ct, dt)
					file(folder+"/reconciler.yaml", reconciler(fmt.Sprint(dt), "v1.0.0"))
					file(folder+"/namespace.yaml", fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: w-%03d\n", dt))
				}
			}
		}
	})
	for e, branch := range []string{"dev", "stage", "prod"} {
		prev := first
		if e > 0 {
			fmt.Fprintf(&s, "reset refs/heads/%s\nfrom :%d\n\n", branch, first)
		}
		for c := 1; c < benchCommits; c++ {
			version := fmt.Sprintf("v1.%d.0", c)
			if c > benchCommits-1-e*2 {
				break // later environments are behind
			}
			prev = commit(branch, prev, c+e, fmt.Sprintf("%040x", c+1), func() {
				for dt := (c * 45) % benchTargets; dt < (c*45)%benchTargets+45; dt++ {
					for ct := range benchTypes {
						if placed(ct, dt) {
							file(fmt.Sprintf("ct-%03d/w-%03d/reconciler.yaml", ct, dt), reconciler(fmt.Sprint(dt), version))
						}
					}
				}
			})
		}
	}
	gitserver.Git(b, "", s.Bytes(), "--git-dir", bare, "fast-import", "--quiet")
	var heads []string
	for _, br := range []string{"dev", "stage", "prod"} {
		heads = append(heads, gitserver.Head(b, bare, br))
	}
	return bare, heads
}

// BenchmarkFleetStatus measures one read of the whole fleet from a local bare repository (what a plan of
// kalypso_fleet_status does besides the status requests), with the Markdown summary; HTML adds the page.
func BenchmarkFleetStatus(b *testing.B) {
	bare, _ := buildBenchRepo(b)
	c := &gitrepo.Client{}
	ctx := context.Background()
	req := fleetstatus.Request{Repo: bare, MaxClusters: 10000, Window: 30 * 24 * time.Hour, Now: time.Date(2026, 1, 9, 9, 0, 0, 0, time.UTC)}
	for _, branch := range []string{"dev", "stage", "prod"} {
		log, err := c.LogFolders(ctx, bare, branch, "", 3, "")
		if err != nil {
			b.Fatal(err)
		}
		var reports staticSource
		for k := range benchClusters {
			ct := fmt.Sprintf("ct-%03d", k%benchTypes)
			for i, cm := range log.Commits {
				state := rollout.Succeeded
				if i == 0 && k%7 == 0 {
					state = rollout.Progressing
				}
				reports = append(reports, rollout.Report{Cluster: fmt.Sprintf("%s-%s-%04d", branch, ct, k), ClusterType: ct, Commit: cm.Commit,
					Reconciler: "flux", State: state, Time: cm.Time.Add(10 * time.Minute)})
			}
		}
		req.Environments = append(req.Environments, fleetstatus.Environment{Name: branch, Branch: branch, Source: reports})
	}
	for _, page := range []bool{false, true} {
		name := "markdown"
		if page {
			name = "markdown+html"
		}
		b.Run(name, func(b *testing.B) {
			var rows int
			cpuBefore := proccpu.Seconds()
			for range b.N {
				st, err := fleetstatus.Read(ctx, c, req)
				if err != nil {
					b.Fatal(err)
				}
				if md := st.Markdown(0); len(md) > fleetstatus.MarkdownLimit {
					b.Fatalf("markdown of %d bytes", len(md))
				}
				if page {
					if _, err := st.HTML(); err != nil {
						b.Fatal(err)
					}
				}
				rows = len(st.Rows)
				if rows != 3*benchTargets*192 || len(st.Clusters) != 3*benchClusters {
					b.Fatalf("%d rows, %d clusters", rows, len(st.Clusters))
				}
			}
			b.StopTimer()
			// CPU time beside wall time: on a machine shared with other jobs the wall time says little.
			b.ReportMetric((proccpu.Seconds()-cpuBefore)/float64(b.N), "cpu-s/op")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
