// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// Fault wrappers for Server.SetWrap / Options.Wrap. Each one only acts on requests that match; others
// go to the real git http-backend untouched.

// Match selects the requests a fault applies to.
type Match func(r *http.Request) bool

// ReceivePack matches the POST that carries a push (pack upload and ref update).
func ReceivePack(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack")
}

// UploadPack matches the POST that carries a fetch negotiation and returns a pack.
func UploadPack(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack")
}

// Any matches every request.
func Any(*http.Request) bool { return true }

// Counter counts the requests a fault acted on.
type Counter struct{ n atomic.Int64 }

// N returns the count.
func (c *Counter) N() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

// onMatch wraps a handler so that matching requests, counted in hits, go to fault (which may still
// pass them on to next) and all others go straight to next.
func onMatch(match Match, hits *Counter, fault func(next http.Handler, w http.ResponseWriter, r *http.Request)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			hits.inc()
			fault(next, w, r)
		})
	}
}

func (c *Counter) inc() {
	if c != nil {
		c.n.Add(1)
	}
}

// Status answers matching requests with code before the backend sees them: nothing is stored.
func Status(match Match, code int, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		http.Error(w, "injected failure", code)
	})
}

// StatusAfter lets the backend process matching requests completely (a push is stored and the ref
// moves), then throws its answer away and answers code: the client never learns that it succeeded.
func StatusAfter(match Match, code int, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&discardWriter{h: http.Header{}}, r)
		http.Error(w, "injected failure after processing", code)
	})
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// CutRequest reads at most n bytes of a matching request's body (the middle of the pack for a
// push), then hijacks the connection and closes it without an answer. The backend never runs.
func CutRequest(match Match, n int64, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		_, _ = io.CopyN(io.Discard, r.Body, n)
		hijackAndClose(w)
	})
}

// CutResponse lets the backend answer a matching request but passes on only the first n bytes of
// the answer (the middle of the pack for a fetch), then closes the connection.
func CutResponse(match Match, n int, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		rec := &bufferWriter{h: http.Header{}}
		next.ServeHTTP(rec, r)
		for k, v := range rec.h {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(http.StatusOK)
		body := rec.b
		if len(body) > n {
			body = body[:n]
		}
		_, _ = w.Write(body)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		hijackAndClose(w)
	})
}

type bufferWriter struct {
	h http.Header
	b []byte
}

func (b *bufferWriter) Header() http.Header         { return b.h }
func (b *bufferWriter) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }
func (b *bufferWriter) WriteHeader(int)             {}

func hijackAndClose(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("gitserver: the response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// Block holds matching requests until release is closed or the client gives up (its connection
// closes), whichever comes first; entered receives a value when a request is held, and gaveUp when
// its client hung up (both optional, never blocking). Once released, requests go to the backend. A
// client that gave up gets no answer and its request never reaches the backend.
func Block(match Match, release <-chan struct{}, entered, gaveUp chan<- struct{}, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		// Read the whole body first: the server notices a client that hangs up only once it did.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		signal(entered)
		select {
		case <-release:
			if r.Context().Err() == nil {
				next.ServeHTTP(w, r)
			}
		case <-r.Context().Done():
			signal(gaveUp)
		}
	})
}

// LandThenHang lets the backend fully process a matching request (a push lands and the ref moves),
// then withholds the answer until the client hangs up: entered receives a value once the push
// landed, gaveUp once the client is gone (both optional, never blocking).
func LandThenHang(match Match, entered, gaveUp chan<- struct{}, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(next http.Handler, w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&discardWriter{h: http.Header{}}, r)
		signal(entered)
		<-r.Context().Done()
		signal(gaveUp)
	})
}

func signal(ch chan<- struct{}) {
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Before runs f once, on the first matching request, before the backend handles it (for example a
// force-push by another writer that lands just before ours).
func Before(match Match, f func(), hits *Counter) func(http.Handler) http.Handler {
	var once atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) && once.CompareAndSwap(false, true) {
				hits.inc()
				f()
			}
			next.ServeHTTP(w, r)
		})
	}
}

// HostileBodyTail is what EchoCredentials writes after the echoed credentials: terminal escape
// sequences that clear the screen, move the cursor home, draw a fake Terraform success line in green
// and set the terminal's title. A sanitized diagnostic keeps only its printable text.
const HostileBodyTail = "\x1b[2J\x1b[H\x1b[32mApply complete! Resources: 0 added, 0 changed, 0 destroyed.\x1b[0m\x1b]0;owned\x07\r"

// EchoCredentials answers matching requests 401 with the body a hostile (or careless) Git host may
// send: "denied: <user>:<password>" from the request's basic auth, its raw Authorization header, and
// HostileBodyTail. go-git copies a 401 body into its error, so this is how a token would reach the
// plan output and the logs if the provider did not sanitize what the remote says.
func EchoCredentials(match Match, hits *Counter) func(http.Handler) http.Handler {
	return onMatch(match, hits, func(_ http.Handler, w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		user, pass, _ := r.BasicAuth()
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, "denied: "+user+":"+pass+"\nAuthorization: "+r.Header.Get("Authorization")+"\n"+HostileBodyTail)
	})
}
