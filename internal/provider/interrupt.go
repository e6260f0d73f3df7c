// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
)

// Terraform calls provider functions on a provider instance that it never configures, and on Ctrl-C it
// sends StopProvider only to the instances it configured: the function's request context is never
// canceled, so a render inside provider::kalypso::environment_render ran on for minutes after Ctrl-C
// while the data source stopped at once. A terminal's Ctrl-C reaches every process of Terraform's
// process group, this one included; main hands that signal here, and function renders stop on it as
// well as on their own context.

// SetProcessStop makes ctx, when done, stop every function render that uses c. main passes a context
// that the process's SIGINT cancels.
func (c *Caches) SetProcessStop(ctx context.Context) {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	c.stop = ctx
}

// withProcessStop returns ctx, also canceled when c's process stop context is done.
func (c *Caches) withProcessStop(ctx context.Context) (context.Context, context.CancelFunc) {
	if c == nil {
		return context.WithCancel(ctx)
	}
	c.stopMu.Lock()
	stop := c.stop
	c.stopMu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if stop.Err() != nil {
		cancel() // AfterFunc would cancel too, but from another goroutine, later
	}
	unregister := context.AfterFunc(stop, cancel)
	return ctx, func() {
		unregister()
		cancel()
	}
}
