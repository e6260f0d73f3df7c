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
// the rate limit left, and how long it took. It sits below the token: go-github adds the Authorization
// header in a wrapper around this transport, and no header is ever read here except GitHub's response
// headers named below; the query string (which holds branch names, never credentials) is left out too.
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
			fields["request_id"] = id
		}
		if left := resp.Header.Get("X-RateLimit-Remaining"); left != "" {
			fields["rate_limit_remaining"] = left
		}
	}
	if err != nil {
		fields["error"] = t.scrub.String(err.Error())
	}
	t.debug(req.Context(), "github request", fields)
	return resp, err
}

// withDebug returns a copy of c (nil: a default client) whose requests are reported to debug.
func withDebug(c *http.Client, debug DebugFunc, scrub sanitize.Sanitizer) *http.Client {
	if debug == nil {
		return c
	}
	out := &http.Client{}
	if c != nil {
		*out = *c
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = &debugTransport{base: base, debug: debug, scrub: scrub}
	return out
}
