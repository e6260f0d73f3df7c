// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"
)

// TestWithProcessStop: a function's context ends when the process stop context does (the process's
// SIGINT), and otherwise only with its own. It sets the package's process stop context, so it is not parallel.
func TestWithProcessStop(t *testing.T) { //nolint:paralleltest // it sets the process-wide stop context, which would cancel the function renders of parallel tests
	stop, interrupt := context.WithCancel(context.Background())
	SetProcessStop(stop)
	t.Cleanup(func() { SetProcessStop(context.Background()) })

	ctx, done := withProcessStop(context.Background())
	defer done()
	if ctx.Err() != nil {
		t.Fatal("canceled before the interrupt")
	}
	interrupt()
	<-ctx.Done() // AfterFunc cancels it; a missing link would hang here and time the test out

	own, cancelOwn := context.WithCancel(context.Background())
	ctx2, done2 := withProcessStop(own)
	defer done2()
	if ctx2.Err() == nil {
		t.Fatal("a function started after the interrupt must be canceled too")
	}
	cancelOwn()
}
