// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

const hostileToken = "ghp_hostileCaseToken0123456789abcdef"

// statusPage is one page of GitHub's commit statuses of a reference with n contexts starting at from,
// and a Link to the next page when next > 0.
func statusPage(w http.ResponseWriter, r *http.Request, from, n, next int) {
	var statuses []map[string]any
	for i := from; i < from+n; i++ {
		statuses = append(statuses, map[string]any{"context": "kustomization/flux-system/c" + strconv.Itoa(i), "state": "success",
			"updated_at": "2026-01-02T11:00:00Z"})
	}
	if next > 0 {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(next))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.RequestURI()))
	}
	w.Header().Set("Content-Type", "application/json")
	if statuses == nil {
		statuses = []map[string]any{}
	}
	_ = json.NewEncoder(w).Encode(statuses)
}

// TestStatusReadsAreBounded_HostileServers: GitHub's status API, or a proxy or GHES instance in front of
// it, answering as a broken or hostile server would. Each read stops at the bound the case names, with
// an error that names it (and the attribute that raises it, when there is one), after a bounded number
// of requests, and neither the error nor a debug event (TF_LOG) holds the token in any form.
func TestStatusReadsAreBounded_HostileServers(t *testing.T) {
	t.Parallel()
	fast := outbound.Limits{RequestTimeout: 300 * time.Millisecond, ReadTimeout: 2 * time.Second, MaxRetryAfter: time.Second, MaxBodyBytes: 1 << 20}
	type rig struct {
		api, other *hostile.Server
	}
	cases := []struct {
		name string
		// serve answers the API's requests; other is a second host (a redirect's target).
		serve     func(rig) http.Handler
		limits    outbound.Limits
		limit     int
		wantKind  error
		want      []string
		maxCalls  int
		wantOther int // requests the other host may see (without credentials)
	}{
		{name: "302 to another host", serve: func(r rig) http.Handler { return hostile.Redirect(r.other.URL, http.StatusFound) },
			wantKind: outbound.ErrRedirect, want: []string{"redirect to another host refused", "the provider follows no redirect to another host"}, maxCalls: 1},
		{name: "307 to another host", serve: func(r rig) http.Handler { return hostile.Redirect(r.other.URL, http.StatusTemporaryRedirect) },
			wantKind: outbound.ErrRedirect, want: []string{"redirect to another host refused"}, maxCalls: 1},
		{name: "slow-loris body", serve: func(rig) http.Handler { return hostile.SlowLoris(20 * time.Millisecond) },
			wantKind: outbound.ErrTimeout, want: []string{"did not answer within 300ms", "api_request_timeout"}, maxCalls: 1},
		{name: "endless pages without statuses", serve: func(rig) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p, _ := strconv.Atoi(r.URL.Query().Get("page"))
				statusPage(w, r, 0, 0, max(p, 1)+1)
			})
		}, wantKind: githubpr.ErrEndlessPages, want: []string{"page 1 holds no status but links page 2", "this limit has no setting"}, maxCalls: 1},
		{name: "endless pages of new statuses", limit: 2000, serve: func(rig) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p, _ := strconv.Atoi(r.URL.Query().Get("page"))
				p = max(p, 1)
				statusPage(w, r, p, 1, p+1)
			})
		}, wantKind: githubpr.ErrEndlessPages, want: []string{"still linked a next page after 22 pages (22 statuses)", "this limit has no setting"}, maxCalls: 22},
		{name: "512 MiB description", serve: func(rig) http.Handler {
			return hostile.HugeBody(`[{"context":"kustomization/a/b","state":"success","description":"`, 512<<20, 'x', `"}]`)
		}, wantKind: outbound.ErrTooLarge, want: []string{"answered with more than 1048576 bytes"}, maxCalls: 1},
		{name: "429 with Retry-After: 55", serve: func(rig) http.Handler { return hostile.Throttle(http.StatusTooManyRequests, "55") },
			wantKind: outbound.ErrThrottled, want: []string{"throttled: the GitHub API answered 429 and asked to retry after 55s", "api_max_retry_after"}, maxCalls: 1},
		{name: "403 secondary rate limit, Retry-After: 0, four times", serve: func(rig) http.Handler { return hostile.Throttle(http.StatusForbidden, "0") },
			wantKind: outbound.ErrThrottled, want: []string{"throttled: the GitHub API still answered 403 after 3 retries"}, maxCalls: 4},
		{name: "token echoed in body, header and status line", serve: func(rig) http.Handler { return hostile.Echo(http.StatusUnauthorized) },
			want: []string{"401", "REDACTED"}, maxCalls: 1},
		{name: "token echoed in X-GitHub-Request-Id of a good answer", serve: func(rig) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-GitHub-Request-Id", "REQ "+r.Header.Get("Authorization"))
				statusPage(w, r, 0, 1, 0)
			})
		}, maxCalls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rig{other: hostile.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { statusPage(w, r, 0, 1, 0) }))}
			r.api = hostile.Start(t, http.NotFoundHandler())
			r.api.SetHandler(tc.serve(r))
			limits := fast
			if tc.limits != (outbound.Limits{}) {
				limits = tc.limits
			}
			limit := tc.limit
			if limit == 0 {
				limit = 100
			}
			rec := &debugrec.Recorder{}
			svc, err := githubpr.New(githubpr.Options{BaseURL: r.api.URL + "/api/v3/", Token: hostileToken, LoopbackHTTP: true, Debug: rec.Record, Limits: limits})
			if err != nil {
				t.Fatal(err)
			}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = svc.ListStatuses(context.Background(), "org", "gitops", strings.Repeat("a", 40), limit, limit)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if tc.want == nil && tc.wantKind == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				if err == nil {
					t.Fatal("want an error")
				}
				if tc.wantKind != nil && !errors.Is(err, tc.wantKind) {
					t.Errorf("error %q is not %v", err, tc.wantKind)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			}
			if n := len(r.api.Requests()); n > tc.maxCalls || n == 0 {
				t.Errorf("%d requests to the API, want 1..%d", n, tc.maxCalls)
			}
			if got := r.other.Authorizations(); len(got) > 0 {
				t.Errorf("the other host received credentials: %q", got)
			}
			if a := r.api.Authorizations(); len(a) == 0 || a[0] != "Bearer "+hostileToken {
				t.Errorf("the API received %q, want its token", a)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the read allocated %d MiB", grew>>20)
			}
			text := fmt.Sprint(err)
			for _, e := range rec.Events() {
				text += "\n" + e.Msg + fmt.Sprint(e.Fields)
			}
			for _, secret := range []string{hostileToken, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + hostileToken))} {
				if strings.Contains(text, secret) {
					t.Errorf("the error or a debug event holds the token:\n%s", text)
				}
			}
		})
	}
}

// TestStatusReadWaitsOutShortThrottling: a 429 with Retry-After: 0 is waited out and the read goes on.
func TestStatusReadWaitsOutShortThrottling(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	api := hostile.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			hostile.Throttle(http.StatusTooManyRequests, "0").ServeHTTP(w, r)
			return
		}
		statusPage(w, r, 0, 1, 0)
	}))
	svc, err := githubpr.New(githubpr.Options{BaseURL: api.URL + "/api/v3/", Token: hostileToken, LoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.ListStatuses(context.Background(), "org", "gitops", strings.Repeat("a", 40), 10, 10)
	if err != nil || len(got) != 1 || calls.Load() != 2 {
		t.Fatalf("got %v, %v after %d requests; want one status after two", got, err, calls.Load())
	}
}

// TestTokenScope: the token goes to the API's own origin over https, or over plain http to loopback
// only when allowed; never to plain http elsewhere.
func TestTokenScope(t *testing.T) {
	t.Parallel()
	api := hostile.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { statusPage(w, r, 0, 1, 0) }))
	svc, err := githubpr.New(githubpr.Options{BaseURL: api.URL + "/api/v3/", Token: hostileToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ListStatuses(context.Background(), "org", "gitops", strings.Repeat("a", 40), 10, 10); err != nil {
		t.Fatal(err)
	}
	if got := api.Authorizations(); len(got) != 0 {
		t.Errorf("plain http to loopback without LoopbackHTTP received %q", got)
	}
	tls := hostile.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { statusPage(w, r, 0, 1, 0) }))
	svc, err = githubpr.New(githubpr.Options{HTTPClient: tls.Client(), BaseURL: tls.URL + "/api/v3/", Token: hostileToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ListStatuses(context.Background(), "org", "gitops", strings.Repeat("a", 40), 10, 10); err != nil {
		t.Fatal(err)
	}
	if got := tls.Authorizations(); len(got) != 1 || got[0] != "Bearer "+hostileToken {
		t.Errorf("https received %q, want the token", got)
	}
}
