// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package render

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// Engine benchmarks on the fleetgen presets. Run them all with `make bench-go`, or for instance
//
//	go test ./internal/render -run '^$' -bench 'BenchmarkRender/100k' -benchtime 3x -benchmem
//
// Stage benchmarks take the earlier stages' output as given, so each figure is the cost of that stage
// alone. The end-to-end benchmarks report peak-heap-MiB: the largest HeapInuse seen while rendering,
// sampled every millisecond, which is what a plan's provider process needs for the engine.

// benchSizes are the presets that every benchmark runs on, by assignment count.
var benchSizes = []string{"1k", "10k", "100k"}

type benchFleet struct {
	manifests   []string
	set         *model.Set
	targets     []*DeploymentTarget
	assignments []Assignment
}

var (
	benchFleetsMu sync.Mutex
	benchFleets   = map[string]*benchFleet{}
)

// loadBenchFleet generates a preset once per test binary and runs the cheap stages on it.
func loadBenchFleet(b *testing.B, size string) *benchFleet {
	b.Helper()
	benchFleetsMu.Lock()
	defer benchFleetsMu.Unlock()
	if f, ok := benchFleets[size]; ok {
		return f
	}
	generated := presetFleet(b, size)
	f := &benchFleet{manifests: generated.Manifests()}
	var diags model.Diagnostics
	if f.set, diags = model.Parse(f.manifests); diags.HasError() {
		b.Fatal(diags)
	}
	f.targets, _ = DeriveTargets("dev", f.set)
	f.assignments, _ = Schedule("dev", f.set, f.targets)
	if len(f.assignments) != generated.Expected.Assignments {
		b.Fatalf("%s: %d assignments, fleetgen expects %d", size, len(f.assignments), generated.Expected.Assignments)
	}
	benchFleets[size] = f
	return f
}

// shapeSizes are the presets with costlier assignments (issue 13): single-label config maps that each
// match a quarter of the cluster types, and the tutorial's own templates and config maps. 86k is there
// to compare with.
var shapeSizes = []string{"quarter-5.7k", "quarter-86k", "tutorial-5.9k", "86k", "upstream-5.8k", "costlier-86k"}

// runSizes runs fn as one sub-benchmark per preset, reporting allocations and the assignment count.
func runSizes(b *testing.B, fn func(b *testing.B, f *benchFleet)) {
	runPresets(b, benchSizes, fn)
}

func runPresets(b *testing.B, sizes []string, fn func(b *testing.B, f *benchFleet)) {
	for _, size := range sizes {
		b.Run(size, func(b *testing.B) {
			f := loadBenchFleet(b, size)
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, f)
			b.StopTimer()
			b.ReportMetric(float64(len(f.assignments)), "assignments")
		})
	}
}

func BenchmarkParse(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		for i := 0; i < b.N; i++ {
			if _, diags := model.Parse(f.manifests); diags.HasError() {
				b.Fatal(diags)
			}
		}
	})
}

func BenchmarkDerive(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		for i := 0; i < b.N; i++ {
			DeriveTargets("dev", f.set)
		}
	})
}

func BenchmarkSchedule(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		for i := 0; i < b.N; i++ {
			Schedule("dev", f.set, f.targets)
		}
	})
}

func benchTarget(job *assignmentJob, a *Assignment) platformconfig.Target {
	ct := job.clusterTypes[a.ClusterType]
	t := job.targets[a.DeploymentTarget]
	return platformconfig.Target{ClusterTypeName: ct.Metadata.Name, ClusterTypeLabels: ct.Metadata.Labels, DeploymentTarget: t.Name, TargetLabels: t.Labels}
}

// BenchmarkComposeConfig merges the platform ConfigMaps of every assignment, on one goroutine.
func BenchmarkComposeConfig(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		for i := 0; i < b.N; i++ {
			job := NewEngine().newAssignmentJob("dev", f.set, f.targets, Options{})
			for k := range f.assignments {
				platformconfig.CopyConfig(composeShared(job.sources, benchTarget(job, &f.assignments[k])))
			}
		}
	})
}

// BenchmarkTemplate executes the reconciler, namespace and config templates of every assignment, on one
// goroutine, with the platform config composed beforehand. The engine is shared across iterations, as
// the provider's is across renders, so the parse cache is warm.
func BenchmarkTemplate(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		b.StopTimer()
		engine := NewEngine()
		job := engine.newAssignmentJob("dev", f.set, f.targets, Options{})
		data := make([]*templating.Data, len(f.assignments))
		for k := range f.assignments {
			a := &f.assignments[k]
			t := job.targets[a.DeploymentTarget]
			data[k] = &templating.Data{
				DeploymentTargetName: t.Name, Namespace: a.Namespace, Environment: "dev", Workspace: t.Workspace,
				Workload: t.Workload, Labels: t.Labels, Manifests: t.Manifests, ClusterType: a.ClusterType,
				ConfigData: platformconfig.CopyConfig(composeShared(job.sources, benchTarget(job, a))),
			}
		}
		b.StartTimer()
		for i := 0; i < b.N; i++ {
			for k := range f.assignments {
				ct := job.clusterTypes[f.assignments[k].ClusterType]
				for _, name := range []string{ct.Spec.Reconciler, ct.Spec.NamespaceService, ct.Spec.ConfigType} {
					if _, err := engine.templates.ExecuteAllLimited(job.templates[name].Spec.Manifests, data[k], templating.Limits{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
}

// BenchmarkLayout builds the GitOps tree (the path → content map) from rendered assignments.
func BenchmarkLayout(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		b.StopTimer()
		rendered, diags := NewEngine().renderAssignments("dev", f.set, f.targets, f.assignments, Options{})
		if diags.HasError() {
			b.Fatal(diags)
		}
		b.StartTimer()
		for i := 0; i < b.N; i++ {
			layoutTree(&Result{Files: make(map[string]string, 3*len(f.assignments))}, f.assignments, rendered)
		}
	})
}

// BenchmarkContentHash hashes the rendered tree.
func BenchmarkContentHash(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) {
		b.StopTimer()
		res, diags := NewEngine().RenderSet("dev", f.set, Options{})
		if diags.HasError() {
			b.Fatal(diags)
		}
		b.StartTimer()
		for i := 0; i < b.N; i++ {
			ContentHash(res.Files)
		}
	})
}

// BenchmarkRender is end to end, as the provider runs it: parse, derive, schedule, then compose,
// template and lay out on GOMAXPROCS workers, then hash. A fresh engine per iteration makes every
// iteration pay for template parsing and schema compiling, as the first render of a plan does.
func BenchmarkRender(b *testing.B) {
	runSizes(b, func(b *testing.B, f *benchFleet) { benchRender(b, f) })
}

// BenchmarkRenderShapes is BenchmarkRender on the costlier fleet shapes, with the wall time per
// assignment (us/assignment) to compare shapes of different sizes:
//
//	go test ./internal/render -run '^$' -bench 'BenchmarkRenderShapes' -benchtime 3x -benchmem
func BenchmarkRenderShapes(b *testing.B) {
	runPresets(b, shapeSizes, func(b *testing.B, f *benchFleet) {
		cpu := benchRender(b, f)
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(f.assignments)), "us/assignment")
		// CPU time per assignment moves less than wall time when other jobs load the machine.
		b.ReportMetric(cpu*1e6/float64(len(f.assignments)), "cpu-us/assignment")
	})
}

// benchRender renders f b.N times and returns the process CPU seconds per render.
func benchRender(b *testing.B, f *benchFleet) float64 {
	{
		var files int
		cpuBefore := proccpu.Seconds()
		peak := sampleHeapInuse(func() {
			for i := 0; i < b.N; i++ {
				res, diags := NewEngine().Render("dev", f.manifests, Options{})
				if diags.HasError() {
					b.Fatal(diags)
				}
				files = len(res.Files)
			}
		})
		b.StopTimer()
		// CPU seconds of the whole process per render: unlike ns/op, they hardly change when other jobs
		// load the machine. Wall time on an idle machine is about this divided by the cores in use.
		cpu := (proccpu.Seconds() - cpuBefore) / float64(b.N)
		b.ReportMetric(cpu, "cpu-s/op")
		b.ReportMetric(float64(files), "files")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/op")
		return cpu
	}
}

// sampleHeapInuse runs fn and returns the largest in-use heap (objects plus fragmentation, as
// MemStats.HeapInuse) seen while it ran, sampled every 2 ms with runtime/metrics, which unlike
// ReadMemStats does not stop the world. The heap is collected first so that earlier garbage does not count.
func sampleHeapInuse(fn func()) uint64 {
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	var peak uint64
	observe := func() {
		metrics.Read(samples)
		if inuse := samples[0].Value.Uint64() + samples[1].Value.Uint64(); inuse > peak {
			peak = inuse
		}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				observe()
				return
			case <-tick.C:
				observe()
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	return peak
}

// composeShared is the composed config of t as the render shares it (platformconfig's ComposeShared).
func composeShared(s *platformconfig.Sources, t platformconfig.Target) map[string]interface{} {
	data, _ := s.ComposeSharedKeySides(s.ClusterTypeSide(t.ClusterTypeName, t.ClusterTypeLabels), s.TargetSide(t.DeploymentTarget, t.TargetLabels), t)
	return data
}
