// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr

import (
	"context"
	"net/http"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// DebugFunc receives one debug event: a message and its fields (the shape of gitrepo.DebugFunc). The
// provider points it at tflog, so the events show with TF_LOG=debug, while this package stays free of
// Terraform.
type DebugFunc func(ctx context.Context, msg string, fields map[string]any)

// debugTransport reports every GitHub REST request: method, host and path, status, GitHub's request id,
// the rate limit left, and how long it took. It sits below the token (outbound adds the Authorization
// header above it), no header is read here except GitHub's response headers named below, and those are
// sanitized (a server may echo the token in them); the query string (branch names, never credentials)
// is left out.
type debugTransport struct {
	base  http.RoundTripper
	debug DebugFunc
	scrub sanitize.Sanitizer
}

func (t *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"host":        req.URL.Host,
		"path":        req.URL.Path,
		"duration_ms": time.Since(start).Milliseconds(),
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
		if id := resp.Header.Get("X-GitHub-Request-Id"); id != "" {
			fields["request_id"] = t.scrub.Limit(128).String(id)
		}
		if left := resp.Header.Get("X-RateLimit-Remaining"); left != "" {
			fields["rate_limit_remaining"] = t.scrub.Limit(32).String(left)
		}
	}
	if err != nil {
		fields["error"] = t.scrub.String(err.Error())
	}
	t.debug(req.Context(), "github request", fields)
	return resp, err
}
