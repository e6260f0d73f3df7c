// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package outbound

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type recordingTransport struct{ auth map[string]string }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.auth[req.URL.String()] = req.Header.Get("Authorization")
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
}

// TestCredentialGoesOnlyToItsOrigin: the credential is added for the configured origin over https, and
// over plain http only to a loopback host and only when allowed; another host, port or scheme gets none.
func TestCredentialGoesOnlyToItsOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		origin, target string
		loopback       bool
		want           bool
	}{
		{"https://api.github.com/", "https://api.github.com/repos/o/r", false, true},
		{"https://api.github.com/", "https://API.GITHUB.COM:443/repos/o/r", false, true},
		{"https://api.github.com/", "https://evil.example/repos/o/r", false, false},
		{"https://api.github.com/", "https://api.github.com:8443/repos/o/r", false, false},
		{"https://api.github.com/", "http://api.github.com/repos/o/r", true, false},
		{"http://ghe.example/api/v3/", "http://ghe.example/api/v3/x", true, false},
		{"http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/x", false, false},
		{"http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/x", true, true},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true, true},
		{"http://localhost:8080/", "http://localhost:8080/x", true, true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:9090/x", true, false},
	}
	for _, tc := range cases {
		rec := &recordingTransport{auth: map[string]string{}}
		c := NewClient(Options{Origin: tc.origin, LoopbackHTTP: tc.loopback, Base: rec, Credential: func(r *http.Request) { r.Header.Set("Authorization", "Bearer t") }})
		resp, err := c.Get(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if got := rec.auth[tc.target] != ""; got != tc.want {
			t.Errorf("origin %s, loopback %v, request %s: credential sent = %v, want %v", tc.origin, tc.loopback, tc.target, got, tc.want)
		}
	}
}

func TestThrottleWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := func(code int, kv ...string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		for i := 0; i < len(kv); i += 2 {
			r.Header.Set(kv[i], kv[i+1])
		}
		return r
	}
	cases := []struct {
		name      string
		resp      *http.Response
		wait      time.Duration
		throttled bool
	}{
		{"429 seconds", h(429, "Retry-After", "55"), 55 * time.Second, true},
		{"429 date", h(429, "Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), 90 * time.Second, true},
		{"429 without hint", h(429), time.Second, true},
		{"503 with Retry-After", h(503, "Retry-After", "2"), 2 * time.Second, true},
		{"503 without Retry-After is a server error", h(503), 0, false},
		{"403 without rate-limit headers is a refusal", h(403), 0, false},
		{"403 with an exhausted GitHub rate limit", h(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1767323105"), time.Unix(1767323105, 0).Sub(now), true},
		{"200", h(200, "Retry-After", "5"), 0, false},
	}
	for _, tc := range cases {
		wait, throttled := throttleWait(tc.resp, now)
		if wait != tc.wait || throttled != tc.throttled {
			t.Errorf("%s: %s %v, want %s %v", tc.name, wait, throttled, tc.wait, tc.throttled)
		}
	}
}
