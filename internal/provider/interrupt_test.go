// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"
)

// TestWithProcessStop: a function's context ends when the process stop context does (the process's
// SIGINT), and otherwise only with its own. The stop context is its own caches', so it runs in parallel.
func TestWithProcessStop(t *testing.T) {
	t.Parallel()
	caches := NewCaches()
	stop, interrupt := context.WithCancel(context.Background())
	caches.SetProcessStop(stop)

	ctx, done := caches.withProcessStop(context.Background())
	defer done()
	if ctx.Err() != nil {
		t.Fatal("canceled before the interrupt")
	}
	interrupt()
	<-ctx.Done() // AfterFunc cancels it; a missing link would hang here and time the test out

	own, cancelOwn := context.WithCancel(context.Background())
	ctx2, done2 := caches.withProcessStop(own)
	defer done2()
	if ctx2.Err() == nil {
		t.Fatal("a function started after the interrupt must be canceled too")
	}
	cancelOwn()
}
