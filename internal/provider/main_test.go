// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

// userCacheDirBeforeTests is the user's cache directory as the environment gave it.
var userCacheDirBeforeTests string

// parallelPerCPU is how many parallel tests run at once per CPU when go test is given no -parallel. go
// test's default is one per CPU (GOMAXPROCS), which suits tests that compute; this package's acceptance
// tests mostly wait: for terraform processes to start, for Git servers and for the provider's gRPC round
// trips. At one per CPU README's test command kept a 2-core machine 124 % busy (of 200 %).
const parallelPerCPU = 4

// gcPercent is the garbage collector's target (GOGC) for this test process and the terraform and tofu
// processes it starts, unless the environment sets GOGC or benchmarks run. The acceptance tests start thousands of
// short-lived terraform processes (plugin-testing runs plan, apply and show -json for every step, about
// 40 ms of CPU each), and at GOGC=100 a good part of that CPU went to collecting garbage: 400 cut one
// lifecycle test's CPU time by a fifth (4.7 to 3.7 s; terraform's own user time by a third). Their heaps
// here are tens of MiB, so the larger target costs little memory.
const gcPercent = 400

// TestMain points the user's cache directory (os.UserCacheDir: XDG_CACHE_HOME on Linux) at a directory of
// this run's own, so the render store of configurations without cache_dir (RenderStoreDir) never fills
// the developer's or CI's real cache, and no run reuses another run's renders. Without an explicit
// -parallel it runs parallelPerCPU parallel tests per CPU, and without GOGC or -bench it collects garbage at
// gcPercent.
func TestMain(m *testing.M) {
	flag.Parse()
	if !flagGiven("test.parallel") {
		if err := flag.Set("test.parallel", strconv.Itoa(parallelPerCPU*runtime.GOMAXPROCS(0))); err != nil {
			fmt.Fprintln(os.Stderr, "setting -test.parallel:", err)
			os.Exit(1)
		}
	}
	// Benchmarks keep Go's default collector, so their figures compare with earlier runs (BENCHMARKS.md).
	benchmarking := flag.Lookup("test.bench").Value.String() != ""
	if _, set := os.LookupEnv("GOGC"); !set && !benchmarking {
		debug.SetGCPercent(gcPercent)
		if err := os.Setenv("GOGC", strconv.Itoa(gcPercent)); err != nil {
			fmt.Fprintln(os.Stderr, "setting GOGC:", err)
			os.Exit(1)
		}
	}
	// Where scripts/tofu.sh caches OpenTofu (tofuBinary), read before the override.
	userCacheDirBeforeTests, _ = os.UserCacheDir()
	dir, err := os.MkdirTemp("", "kalypso-provider-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating the test cache directory:", err)
		os.Exit(1)
	}
	if err := os.Setenv("XDG_CACHE_HOME", dir); err != nil {
		fmt.Fprintln(os.Stderr, "setting XDG_CACHE_HOME:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = testCaches.Close()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// flagGiven reports whether the command line set the flag.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
