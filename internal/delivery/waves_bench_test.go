// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// BenchmarkPlanWithWaves is the whole plan of a resource with a rollout (every step, the waves step's
// listing, hashing, history and held-folder reads included) over a branch of 100 cluster types × 50
// deployment targets × 3 files (15,000 files), with a change in every cluster type and 10,000 reports of
// 5,000 clusters; "without" is the same plan without the rollout, for comparison.
func BenchmarkPlanWithWaves(b *testing.B) {
	ctx := context.Background()
	current, desired := map[string]string{}, map[string]string{}
	for ct := range 100 {
		for dt := range 50 {
			for _, f := range []string{"namespace.yaml", "platform-config.yaml", "reconciler.yaml"} {
				rel := fmt.Sprintf("ct-%03d/target-%02d/%s", ct, dt, f)
				current["clusters/"+rel] = "kind: ConfigMap\nmetadata:\n  name: " + rel + "\n"
				desired[rel] = current["clusters/"+rel]
			}
		}
		desired[fmt.Sprintf("ct-%03d/target-00/namespace.yaml", ct)] = "kind: Namespace\n"
	}
	repo := gitserver.NewSeededRepo(b, b.TempDir(), "fleet.git", "main", current)
	head := gitserver.Head(b, repo, "main")
	var reports []rollout.Report
	expect := rollout.WaveExpect{Clusters: map[string][]string{}}
	for ct := range 100 {
		for c := range 50 {
			name := fmt.Sprintf("c-%03d-%02d", ct, c)
			expect.Clusters[fmt.Sprintf("ct-%03d", ct)] = append(expect.Clusters[fmt.Sprintf("ct-%03d", ct)], name)
			reports = append(reports, rollout.Report{Cluster: name, Commit: head, State: rollout.Succeeded, Time: time.Now().Add(-time.Hour)},
				rollout.Report{Cluster: name, Commit: "0000000000000000000000000000000000000000", State: rollout.Succeeded})
		}
	}
	source := &staticSource{reports: reports}
	run := func(b *testing.B, withRollout bool) {
		cpu := proccpu.Seconds()
		for range b.N {
			p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(desired)}})
			if withRollout {
				p.Rollout = &Rollout{Source: source, Now: time.Now(), Expect: expect,
					Waves: []rollout.Wave{{Name: "canary", ClusterTypes: []string{"ct-000"}}, {Name: "half", ClusterTypes: []string{"ct-001", "ct-002"}}, {Name: "rest"}}}
			}
			if err := RunPlan(ctx, p, PlanSteps()); err != nil {
				b.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 100}[withRollout]; p.Changes.Counts.Update != want {
				b.Fatalf("%d updates, want %d", p.Changes.Counts.Update, want)
			}
		}
		b.StopTimer()
		b.ReportMetric((proccpu.Seconds()-cpu)/float64(b.N), "cpu-s/op")
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
	}
	b.Run("with", func(b *testing.B) { run(b, true) })
	b.Run("without", func(b *testing.B) { run(b, false) })
}
