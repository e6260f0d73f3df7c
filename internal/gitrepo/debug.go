// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"time"
)

// DebugFunc receives one debug event: a message and its fields. The provider points it at tflog, so
// the events show with TF_LOG=debug, while this package stays free of Terraform.
type DebugFunc func(ctx context.Context, msg string, fields map[string]any)

// debug reports a network operation on the session's remote: what it targeted, how long it took and
// how it ended. Fields never carry credentials: resolve rejects URLs that hold any, before and after
// rewrites, and Auth is never read here.
func (s *session) debug(ctx context.Context, msg string, start time.Time, err error, fields map[string]any) {
	if s.c.Debug == nil {
		return
	}
	if fields == nil {
		fields = map[string]any{}
	}
	fields["repository"] = s.e.display
	if s.e.url != s.e.display {
		fields["url"] = s.e.url
	}
	if !start.IsZero() {
		fields["duration_ms"] = time.Since(start).Milliseconds()
	}
	if err != nil {
		fields["error"] = s.c.scrub().String(err.Error())
	}
	s.c.Debug(ctx, msg, fields)
}
