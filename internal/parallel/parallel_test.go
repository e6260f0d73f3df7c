// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package parallel_test

import (
	"sync/atomic"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
)

// Every index is handed out exactly once, and never more goroutines run than asked for.
func TestForCallsEveryIndexOnceOnBoundedWorkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, workers int }{{0, 0}, {1, 0}, {1000, 0}, {1000, 3}, {5, 50}} {
		calls := make([]atomic.Int32, tc.n)
		var running, peak atomic.Int32
		parallel.For(tc.n, tc.workers, func(i int) {
			now := running.Add(1)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			calls[i].Add(1)
			running.Add(-1)
		})
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d workers=%d: index %d called %d times", tc.n, tc.workers, i, c)
			}
		}
		if tc.workers > 0 && int(peak.Load()) > tc.workers {
			t.Errorf("n=%d: %d goroutines ran at once, want at most %d", tc.n, peak.Load(), tc.workers)
		}
	}
}
