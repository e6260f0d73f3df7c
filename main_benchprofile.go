// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build benchprofile

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"
)

// Built only with -tags benchprofile, for the scale benchmarks: with KALYPSO_BENCH_CPUPROFILE set to a
// directory, the provider process writes CPU profiles of itself there in windows of two seconds
// (cpu-<pid>-<n>.prof), since Terraform ends the process without a hook to flush one profile at exit.
// KALYPSO_BENCH_CPUPROFILE_WINDOW (a Go duration, default 2s) shortens the windows for processes that
// live less than two seconds, such as an empty re-plan's, whose only window would otherwise be lost.
// Merge them with `go tool pprof -top BINARY DIR/cpu-*.prof`.
func init() {
	dir := os.Getenv("KALYPSO_BENCH_CPUPROFILE")
	if dir == "" {
		return
	}
	window := 2 * time.Second
	if w, err := time.ParseDuration(os.Getenv("KALYPSO_BENCH_CPUPROFILE_WINDOW")); err == nil && w > 0 {
		window = w
	}
	go func() {
		for n := 0; ; n++ {
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d-%04d.prof", os.Getpid(), n)))
			if err != nil {
				return
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				_ = f.Close()
				return
			}
			time.Sleep(window)
			pprof.StopCPUProfile()
			_ = f.Close()
		}
	}()
}
