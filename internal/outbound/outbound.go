// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package outbound bounds what the provider accepts from the HTTP APIs it reads but does not control:
// GitHub's REST API, Azure Resource Graph and Entra ID's token endpoint. A hostile or broken server may
// answer slowly (a slow-loris that sends one byte a second), answer without end (a body of gigabytes),
// redirect to another host (where a credential added by a transport would follow), or throttle for
// minutes. Every client built here has a deadline per attempt that covers the body, a cap on the body,
// refuses a redirect that leaves the origin it was made for, sends its credential only to that origin
// (https, or plain http to loopback when the caller allows it), and honours Retry-After only up to a
// bound, after which the error says "throttled". Each error names the limit and the provider attribute
// that raises it. The package is free of Terraform types.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of the limits, and the provider attributes that raise them.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultReadTimeout    = 5 * time.Minute
	DefaultMaxRetryAfter  = 30 * time.Second
	// DefaultMaxBodyBytes bounds one answer. A page of 100 GitHub statuses or 1000 Resource Graph rows
	// is well under 1 MiB.
	DefaultMaxBodyBytes = 16 << 20
	// MaxThrottleRetries bounds the retries after throttling answers within one request.
	MaxThrottleRetries = 3

	AttrRequestTimeout = "api_request_timeout"
	AttrReadTimeout    = "api_read_timeout"
	AttrMaxRetryAfter  = "api_max_retry_after"
)

var (
	// ErrThrottled means the API asked to wait longer than the provider waits, or kept throttling.
	ErrThrottled = errors.New("throttled")
	// ErrTooLarge means an answer's body was larger than the cap.
	ErrTooLarge = errors.New("answer too large")
	// ErrRedirect means the API redirected to another origin (scheme, host or port).
	ErrRedirect = errors.New("redirect to another host refused")
	// ErrTimeout means one request, or the whole read, took longer than its limit.
	ErrTimeout = errors.New("timed out")
)

// Error is a bound that stopped a request. It matches its kind (ErrThrottled, ErrTooLarge, ErrRedirect,
// ErrTimeout) with errors.Is, and marks itself not worth retrying (azcore's retry policy asks for
// NonRetriable), so that no SDK multiplies a bound by its own retries.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// NonRetriable tells azcore's retry policy not to retry.
func (e *Error) NonRetriable() {}

func bound(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: kind.Error() + ": " + fmt.Sprintf(format, args...)}
}

// Limits bound one API. Zero fields take the defaults.
type Limits struct {
	// RequestTimeout bounds one attempt: connecting, the headers and reading the whole body.
	RequestTimeout time.Duration
	// ReadTimeout bounds one read of a source: every page, retry and throttling wait together. The
	// caller applies it with ReadContext.
	ReadTimeout time.Duration
	// MaxRetryAfter is the longest Retry-After (or rate-limit reset) the client waits out.
	MaxRetryAfter time.Duration
	// MaxBodyBytes caps one answer's body.
	MaxBodyBytes int64
}

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultRequestTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.MaxRetryAfter <= 0 {
		l.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return l
}

// Credential adds a credential to a request. The client calls it only for requests to its origin.
type Credential func(*http.Request)

// Options build a Client.
type Options struct {
	// API names the service in errors ("the GitHub API").
	API string
	// Origin is the URL whose scheme, host and port receive Credential. Empty: no credential is added.
	// Redirects are followed only within the first request's origin, whatever Origin is.
	Origin string
	// Credential, when set, is added to requests to Origin over https, or over plain http to a loopback
	// host when LoopbackHTTP is true; never anywhere else.
	Credential Credential
	// LoopbackHTTP allows the credential over plain http to 127.0.0.0/8, ::1 and localhost.
	LoopbackHTTP bool
	Limits       Limits
	// Base is the transport below (nil: a clone of http.DefaultTransport).
	Base http.RoundTripper
}

// NewClient returns an http.Client bounded as the package describes. Its Timeout is zero: the
// deadline is per attempt (a throttling wait is not an attempt) and covers reading the body.
func NewClient(o Options) *http.Client {
	o.Limits = o.Limits.WithDefaults()
	if o.API == "" {
		o.API = "the API"
	}
	base := o.Base
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // net/http's default is a *http.Transport
	}
	origin, _ := url.Parse(o.Origin)
	rt := base
	if o.Credential != nil && origin != nil && origin.Host != "" {
		rt = &credentialTransport{next: rt, origin: origin, add: o.Credential, loopbackHTTP: o.LoopbackHTTP}
	}
	rt = &attemptTransport{next: rt, api: o.API, limits: o.Limits}
	rt = &throttleTransport{next: rt, api: o.API, max: o.Limits.MaxRetryAfter}
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return fmt.Errorf("%s redirected more than 10 times", o.API)
			}
			if !SameOrigin(via[0].URL, req.URL) {
				return bound(ErrRedirect, "%s at %s answered with a redirect to %s; the provider follows no redirect to another host, so that no credential is sent there", o.API, originOf(via[0].URL), originOf(req.URL))
			}
			return nil
		},
	}
}

// SameOrigin reports whether a and b have the same scheme, host and port.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

func originOf(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + u.Host }

// IsLoopback reports whether host (without port) is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// credentialTransport adds the credential to requests for its origin only.
type credentialTransport struct {
	next         http.RoundTripper
	origin       *url.URL
	add          Credential
	loopbackHTTP bool
}

func (t *credentialTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if SameOrigin(t.origin, req.URL) && (strings.EqualFold(req.URL.Scheme, "https") || (t.loopbackHTTP && IsLoopback(req.URL.Hostname()))) {
		req = req.Clone(req.Context())
		t.add(req)
	}
	return t.next.RoundTrip(req)
}

// attemptTransport gives each attempt its own deadline, which covers the body, and caps the body.
type attemptTransport struct {
	next   http.RoundTripper
	api    string
	limits Limits
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, t.limits.RequestTimeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, t.timeoutError(ctx, parent, err)
	}
	resp.Body = &boundedBody{rc: resp.Body, cancel: cancel, t: t, ctx: ctx, parent: parent}
	return resp, nil
}

// timeoutError names the limit when the attempt's own deadline ended it.
func (t *attemptTransport) timeoutError(ctx, parent context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return bound(ErrTimeout, "%s did not answer within %s (%s); check that it is reachable, or raise %s", t.api, t.limits.RequestTimeout, AttrRequestTimeout, AttrRequestTimeout)
	}
	return err
}

type boundedBody struct {
	rc          io.ReadCloser
	cancel      context.CancelFunc
	read        int64
	err         error
	t           *attemptTransport
	ctx, parent context.Context
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	limit := b.t.limits.MaxBodyBytes
	// One byte past the cap tells a body that ends exactly at the cap from one that goes on.
	if room := limit - b.read + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if b.read > limit {
		b.err = bound(ErrTooLarge, "%s answered with more than %d bytes (the provider's cap on one answer, which has no setting); the server is broken or hostile", b.t.api, limit)
		return n - int(b.read-limit), b.err
	}
	if err != nil {
		// Also on io.EOF: a body cut by the deadline may end as if it were whole.
		err = b.t.timeoutError(b.ctx, b.parent, err)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// throttleTransport waits out a throttling answer (429, or 403/503 with Retry-After or an exhausted
// GitHub rate limit) when the wait is within max, at most MaxThrottleRetries times.
type throttleTransport struct {
	next http.RoundTripper
	api  string
	max  time.Duration
}

func (t *throttleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for retry := 0; ; retry++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		wait, throttled := throttleWait(resp, time.Now())
		if !throttled {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		if wait > t.max {
			return nil, bound(ErrThrottled, "%s answered %d and asked to retry after %s, longer than the provider waits (%s, %s); wait and plan again, or raise %s", t.api, resp.StatusCode, wait.Round(time.Second), t.max, AttrMaxRetryAfter, AttrMaxRetryAfter)
		}
		if retry >= MaxThrottleRetries {
			return nil, bound(ErrThrottled, "%s still answered %d after %d retries; wait and plan again", t.api, resp.StatusCode, retry)
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, bound(ErrThrottled, "%s answered %d and the request cannot be sent again; wait and plan again", t.api, resp.StatusCode)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, bound(ErrThrottled, "%s answered %d; waiting %s for it: %v", t.api, resp.StatusCode, wait.Round(time.Second), req.Context().Err())
		case <-timer.C:
		}
	}
}

// throttleWait reads how long a throttling answer asks to wait.
func throttleWait(resp *http.Response, now time.Time) (time.Duration, bool) {
	ra := strings.TrimSpace(resp.Header.Get("Retry-After"))
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
	case http.StatusForbidden, http.StatusServiceUnavailable:
		if ra == "" && !(resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0") {
			return 0, false
		}
	default:
		return 0, false
	}
	if ra != "" {
		if s, err := strconv.ParseInt(ra, 10, 64); err == nil {
			if s < 0 {
				s = 0
			}
			if s > int64(365*24*time.Hour/time.Second) {
				s = int64(365 * 24 * time.Hour / time.Second)
			}
			return time.Duration(s) * time.Second, true
		}
		if at, err := http.ParseTime(ra); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil && resp.Header.Get("X-RateLimit-Remaining") == "0" {
		return max(time.Unix(reset, 0).Sub(now), 0), true
	}
	// A 429 without a hint: a short wait, as clients do.
	return time.Second, true
}

// ReadContext bounds one read of a source by limits.ReadTimeout. Wrap the read's error with
// ReadError, so that the deadline is named.
func ReadContext(ctx context.Context, l Limits) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, l.WithDefaults().ReadTimeout)
}

// ReadError names the read deadline when it ended err (ctx is ReadContext's, parent the caller's).
func ReadError(ctx, parent context.Context, err error, api string, l Limits) error {
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil && !errors.Is(err, ErrTimeout) && !errors.Is(err, ErrThrottled) {
		return bound(ErrTimeout, "reading %s took longer than %s (%s), every page and retry together; check that it is reachable, or raise %s (%v)", api, l.WithDefaults().ReadTimeout, AttrReadTimeout, AttrReadTimeout, err)
	}
	return err
}
