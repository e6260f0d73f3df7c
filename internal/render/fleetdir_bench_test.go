// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package render

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRenderFleetDir renders the fleet in $KALYPSO_BENCH_FLEET: a directory written by
// `go run ./tools/fleetgen -size <preset> -out <dir>` (every .yaml file below it is one manifest), or a
// JSON file holding the list of manifests. Unlike the preset benchmarks it needs nothing of the build's
// fleetgen, so the same file can be copied into the worktree of an older build and compared in one run
// (issue 22):
//
//	KALYPSO_BENCH_FLEET=/tmp/upstream-5.8k go test ./internal/render -run '^$' -bench RenderFleetDir -benchtime 3x
//
// It reports wall and process CPU time (user + system, from getrusage) per assignment: on a shared
// machine CPU time moves much less than wall time.
func BenchmarkRenderFleetDir(b *testing.B) {
	path := os.Getenv("KALYPSO_BENCH_FLEET")
	if path == "" {
		b.Skip("set KALYPSO_BENCH_FLEET to a fleetgen output directory or a JSON list of manifests")
	}
	manifests := readFleet(b, path)
	cpu := func() float64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	b.ResetTimer()
	c0, w0, n := cpu(), time.Now(), 0
	for i := 0; i < b.N; i++ {
		res, diags := NewEngine().Render("dev", manifests, Options{})
		if diags.HasError() {
			b.Fatal(diags.Errors())
		}
		n = len(res.Assignments)
	}
	wall, c := time.Since(w0).Seconds()/float64(b.N), (cpu()-c0)/float64(b.N)
	b.ReportMetric(float64(n), "assignments")
	b.ReportMetric(wall*1e6/float64(n), "us/assignment")
	b.ReportMetric(c*1e6/float64(n), "cpu-us/assignment")
}

func readFleet(b *testing.B, path string) []string {
	b.Helper()
	if strings.HasSuffix(path, ".json") {
		raw, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		var manifests []string
		if err := json.Unmarshal(raw, &manifests); err != nil {
			b.Fatal(err)
		}
		return manifests
	}
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	manifests := make([]string, len(files))
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		manifests[i] = string(raw)
	}
	return manifests
}
