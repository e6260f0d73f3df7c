// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package hostile serves the answers of broken or hostile HTTP APIs on 127.0.0.1, for the tests of the
// provider's bounds on outside answers (internal/outbound and its users): a redirect to another host, a
// slow-loris that trickles its body, a body of gigabytes that is never held in memory, a throttling
// answer with Retry-After, and an answer that echoes the request's credentials. Every server records
// each request's method, path and Authorization header, so a test can assert that a credential never
// reached a host it was not meant for.
package hostile

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is what a server saw of one request.
type Request struct {
	Method, Path, Query, Authorization string
}

// Server is a local HTTP server with a request log.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []Request
	handler http.Handler
}

// Start serves h over plain http on 127.0.0.1 until the test ends.
func Start(t testing.TB, h http.Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// StartTLS serves h over https on 127.0.0.1 until the test ends; Client() trusts its certificate.
func StartTLS(t testing.TB, h http.Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetHandler replaces the handler from the next request on.
func (s *Server) SetHandler(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Authorization: r.Header.Get("Authorization")})
	h := s.handler
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// Requests returns what the server saw, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Authorizations returns the non-empty Authorization headers the server received.
func (s *Server) Authorizations() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Authorization != "" {
			out = append(out, r.Authorization)
		}
	}
	return out
}

// Redirect answers every request with code and a Location on base (another server's URL) with the
// request's path and query.
func Redirect(base string, code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.TrimSuffix(base, "/")+r.URL.RequestURI(), code)
	})
}

// SlowLoris answers 200 with the start of a JSON body, then one space every interval until the client
// leaves (or an hour passes).
func SlowLoris(interval time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "{")
		flusher, _ := w.(http.Flusher)
		deadline := time.Now().Add(time.Hour)
		for time.Now().Before(deadline) {
			if flusher != nil {
				flusher.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(interval):
			}
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
		}
	})
}

// HugeBody answers 200 with prefix, n bytes of fill (a character that keeps a JSON string open, say)
// and suffix, streamed: the server never holds it.
func HugeBody(prefix string, n int64, fill byte, suffix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if _, err := io.WriteString(w, prefix); err != nil {
			return
		}
		chunk := []byte(strings.Repeat(string(fill), 64<<10))
		for left := n; left > 0; left -= int64(len(chunk)) {
			if left < int64(len(chunk)) {
				chunk = chunk[:left]
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, suffix)
	})
}

// Throttle answers code (429, or 403/503) with Retry-After: retryAfter and a JSON error body.
func Throttle(code int, retryAfter string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"message":"You have exceeded a secondary rate limit","error":{"code":"RateLimiting","message":"throttled"}}`)
	})
}

// Echo answers code with the request's Authorization header copied into the response: in a JSON body
// (GitHub's "message", Azure's error code and message), in the X-GitHub-Request-Id header, and in the
// status text, as a hostile server that wants the credential in a diagnostic or a log would.
func Echo(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		bare := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(auth, "Bearer "), "token "))
		w.Header().Set("X-GitHub-Request-Id", "REQ "+auth)
		w.Header().Set("x-ms-request-id", bare)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"message":"denied for %s (%s)","error":{"code":%q,"message":"the token %s is not valid"}}`, auth, bare, bare, bare)
	})
}
