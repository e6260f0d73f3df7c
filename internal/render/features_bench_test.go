// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package render

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleet"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// featureSizes pairs a plain fleet with the same fleet using one documented input feature (issue 34),
// plain first: the ratio of their us/assignment is the feature's cost.
var featureSizes = []string{
	"upstream-5.8k",
	// Template actions in 9 of the 30 config maps' values, rendered again (once, or twice for a tpl-style value).
	"upstream-nested-5.8k",
}

// BenchmarkRenderFeatures is BenchmarkRenderShapes on featureSizes:
//
//	go test ./internal/render -run '^$' -bench 'BenchmarkRenderFeatures' -benchtime 5x
func BenchmarkRenderFeatures(b *testing.B) {
	runPresets(b, featureSizes, func(b *testing.B, f *benchFleet) {
		cpu := benchRender(b, f)
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(f.assignments)), "us/assignment")
		b.ReportMetric(cpu*1e6/float64(len(f.assignments)), "cpu-us/assignment")
	})
}

// featureCosts are the rows of BENCHMARKS.md's feature table: on each shape, each documented input
// feature (fleet.Features) with the fleet it is compared with. Most rows compare the plain preset with the
// preset plus the feature; where the preset already has the feature (upstream-5.8k's config schema) or the
// feature replaces something (a reconciler, the config template), without names what it replaces.
var featureCosts = []struct {
	preset string
	rows   []featureCost
}{
	{"upstream-5.8k", []featureCost{
		{"nested", nil, []string{"nested"}},
		{"toYaml", []string{"range-config"}, nil},
		{"stringify", nil, []string{"stringify"}},
		{"hash", nil, []string{"hash"}},
		{"sh", nil, []string{"sh"}},
		{"argocd", []string{"arc-flux"}, []string{"argocd"}},
		// No rancher-fleet or builtin row: the built-in templates refuse namespaces longer than 63
		// characters, and this shape's (dev-command-center-east-us-056-hello-world-app-000-functional-test)
		// are; they render on 10k.
		{"config-schema", []string{"no-config-schema"}, nil},
		{"workload-schemas", nil, []string{"workload-schemas"}},
		{"azure-app-config", nil, []string{"azure-app-config"}},
		{"structured", nil, []string{"structured"}},
		{"legacy-templates", nil, []string{"legacy-templates"}},
	}},
	{"10k", []featureCost{
		{"nested", nil, []string{"nested"}},
		{"toYaml", []string{"range-config"}, nil},
		{"stringify", nil, []string{"stringify"}},
		{"hash", nil, []string{"hash"}},
		{"sh", nil, []string{"sh"}},
		{"argocd", nil, []string{"argocd"}},
		{"rancher-fleet", nil, []string{"rancher-fleet"}},
		{"builtin", nil, []string{"builtin"}},
		{"config-schema", nil, []string{"config-schema"}},
		{"workload-schemas", nil, []string{"workload-schemas"}},
		{"azure-app-config", nil, []string{"azure-app-config"}},
		{"structured", nil, []string{"structured"}},
		{"legacy-templates", nil, []string{"legacy-templates"}},
	}},
}

// featureCost is one row: the fleet features of the fleet without and with the feature.
type featureCost struct {
	name          string
	without, with []string
}

// BenchmarkFeatureCost renders, in each iteration, the fleet without a feature and the same fleet with
// it, in alternating order, each on a fresh engine after a garbage collection, and reports both sides'
// wall and CPU time per assignment and their ratios. Both sides run in the same process at the same
// time, so load from other jobs moves both alike:
//
//	go test ./internal/render -run '^$' -bench 'BenchmarkFeatureCost' -benchtime 5x
func BenchmarkFeatureCost(b *testing.B) {
	for _, shape := range featureCosts {
		for _, row := range shape.rows {
			b.Run(shape.preset+"/"+row.name, func(b *testing.B) {
				without := loadFeatureFleet(b, shape.preset, row.without)
				with := loadFeatureFleet(b, shape.preset, row.with)
				var wall, cpu [2]time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for k := range 2 {
						side := (i + k) % 2
						f := [2]*featureFleet{without, with}[side]
						b.StopTimer()
						runtime.GC()
						b.StartTimer()
						start, cpuStart := time.Now(), proccpu.Seconds()
						if _, diags := NewEngine().Render("dev", f.manifests, Options{}); diags.HasError() {
							b.Fatal(diags)
						}
						wall[side] += time.Since(start)
						cpu[side] += time.Duration((proccpu.Seconds() - cpuStart) * float64(time.Second))
					}
				}
				b.StopTimer()
				perAssignment := func(d time.Duration, f *featureFleet) float64 {
					return float64(d.Microseconds()) / float64(b.N) / float64(f.assignments)
				}
				b.ReportMetric(perAssignment(wall[0], without), "us/asg-without")
				b.ReportMetric(perAssignment(wall[1], with), "us/asg-with")
				b.ReportMetric(perAssignment(cpu[0], without), "cpu-us/asg-without")
				b.ReportMetric(perAssignment(cpu[1], with), "cpu-us/asg-with")
				b.ReportMetric(perAssignment(wall[1], with)/perAssignment(wall[0], without), "wall-ratio")
				b.ReportMetric(perAssignment(cpu[1], with)/perAssignment(cpu[0], without), "cpu-ratio")
				b.ReportMetric(float64(with.assignments), "assignments")
			})
		}
	}
}

type featureFleet struct {
	manifests   []string
	assignments int
}

var (
	featureFleetsMu sync.Mutex
	featureFleets   = map[string]*featureFleet{}
)

// loadFeatureFleet generates a preset with features once per test binary and checks that it renders
// every assignment fleetgen expects.
func loadFeatureFleet(b *testing.B, preset string, features []string) *featureFleet {
	b.Helper()
	key := preset + "+" + strings.Join(features, "+")
	featureFleetsMu.Lock()
	defer featureFleetsMu.Unlock()
	if f, ok := featureFleets[key]; ok {
		return f
	}
	spec, err := fleet.Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	if spec, err = fleet.WithFeatures(spec, features...); err != nil {
		b.Fatal(err)
	}
	generated, err := fleet.Generate(spec)
	if err != nil {
		b.Fatal(err)
	}
	f := &featureFleet{manifests: generated.Manifests(), assignments: generated.Expected.Assignments}
	res, diags := NewEngine().Render("dev", f.manifests, Options{})
	if diags.HasError() {
		b.Fatalf("%s: %v", key, diags)
	}
	if len(res.Assignments) != f.assignments {
		b.Fatalf("%s: %d assignments, fleetgen expects %d", key, len(res.Assignments), f.assignments)
	}
	featureFleets[key] = f
	return f
}
