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
// Merge them with `go tool pprof -top BINARY DIR/cpu-*.prof`.
func init() {
	dir := os.Getenv("KALYPSO_BENCH_CPUPROFILE")
	if dir == "" {
		return
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
			time.Sleep(2 * time.Second)
			pprof.StopCPUProfile()
			_ = f.Close()
		}
	}()
}
