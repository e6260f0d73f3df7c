// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

// hostileGraphToken is what the test credential hands out: shaped like an Entra ID access token, so
// that both the recorded-token redaction and the JWT shape are exercised.
const hostileGraphToken = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL21hbmFnZW1lbnQuYXp1cmUuY29tIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"

type fixedCredential string

func (c fixedCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(c), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// graphPage writes one Resource Graph answer: rows, totalRecords and a $skipToken when skip is not "".
func graphPage(w http.ResponseWriter, total int, rows []map[string]any, skip string) {
	out := map[string]any{"totalRecords": total, "count": len(rows), "resultTruncated": "false", "data": rows}
	if skip != "" {
		out["$skipToken"] = skip
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// TestAzureResourceGraph_IsBounded_HostileServers: Resource Graph endpoints (azure_resource_graph.endpoint
// may name any host) that answer as a broken or hostile server would. Each read stops at its bound with
// an error that names it (and the attribute that raises it when there is one; never max_clusters for an
// endless $skipToken), after a bounded number of requests, and the bearer token reaches no other host
// and no error text.
func TestAzureResourceGraph_IsBounded_HostileServers(t *testing.T) {
	t.Parallel()
	limits := outbound.Limits{RequestTimeout: 300 * time.Millisecond, ReadTimeout: 3 * time.Second, MaxRetryAfter: time.Second, MaxBodyBytes: 1 << 20}
	cases := []struct {
		name     string
		serve    func(other *hostile.Server, calls *atomic.Int32) http.Handler
		wantKind error
		want     []string
		maxCalls int
	}{
		{name: "307 to another host", serve: func(o *hostile.Server, _ *atomic.Int32) http.Handler {
			return hostile.Redirect(o.URL, http.StatusTemporaryRedirect)
		}, wantKind: outbound.ErrRedirect, want: []string{"redirect to another host refused"}, maxCalls: 1},
		{name: "slow-loris body", serve: func(*hostile.Server, *atomic.Int32) http.Handler { return hostile.SlowLoris(20 * time.Millisecond) },
			wantKind: outbound.ErrTimeout, want: []string{"did not answer within 300ms", "api_request_timeout"}, maxCalls: 1},
		{name: "512 MiB answer", serve: func(*hostile.Server, *atomic.Int32) http.Handler {
			return hostile.HugeBody(`{"totalRecords":1,"count":1,"data":[{"id":"`, 512<<20, 'x', `"}]}`)
		}, wantKind: outbound.ErrTooLarge, want: []string{"more than 1048576 bytes"}, maxCalls: 1},
		{name: "429 with Retry-After: 55", serve: func(*hostile.Server, *atomic.Int32) http.Handler {
			return hostile.Throttle(http.StatusTooManyRequests, "55")
		}, wantKind: outbound.ErrThrottled, want: []string{"throttled: Azure Resource Graph answered 429 and asked to retry after 55s", "api_max_retry_after"}, maxCalls: 1},
		{name: "token echoed in a 401", serve: func(*hostile.Server, *atomic.Int32) http.Handler { return hostile.Echo(http.StatusUnauthorized) },
			wantKind: ErrResourceGraph, want: []string{"401", "REDACTED"}, maxCalls: 1},
		{name: "token echoed in a 500", serve: func(*hostile.Server, *atomic.Int32) http.Handler { return hostile.Echo(http.StatusInternalServerError) },
			wantKind: ErrResourceGraph, want: []string{"500", "REDACTED"}, maxCalls: 4},
		{name: "endless $skipToken, the same token", serve: func(_ *hostile.Server, calls *atomic.Int32) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := calls.Add(1)
				graphPage(w, 100, []map[string]any{fluxConfig(fmt.Sprintf("c%d", n), "Compliant", "dev/"+strings.Repeat("a", 40))}, "again")
			})
		}, wantKind: ErrMalformedAnswer, want: []string{"$skipToken it had already given"}, maxCalls: 2},
		{name: "endless $skipToken, the same row", serve: func(_ *hostile.Server, calls *atomic.Int32) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := calls.Add(1)
				graphPage(w, 100, []map[string]any{fluxConfig("c", "Compliant", "dev/"+strings.Repeat("a", 40))}, fmt.Sprintf("t%d", n))
			})
		}, wantKind: ErrMalformedAnswer, want: []string{"which an earlier row already held"}, maxCalls: 2},
		{name: "endless $skipToken, new rows beyond totalRecords", serve: func(_ *hostile.Server, calls *atomic.Int32) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := calls.Add(1)
				graphPage(w, 3, []map[string]any{fluxConfig(fmt.Sprintf("c%d", n), "Compliant", "dev/"+strings.Repeat("a", 40))}, fmt.Sprintf("t%d", n))
			})
		}, wantKind: ErrMalformedAnswer, want: []string{"returned 4 rows by page 4 but announced 3"}, maxCalls: 4},
		{name: "endless $skipToken, new rows, no totalRecords", serve: func(_ *hostile.Server, calls *atomic.Int32) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"count": 1, "$skipToken": fmt.Sprintf("t%d", n),
					"data": []map[string]any{fluxConfig(fmt.Sprintf("c%d", n), "Compliant", "dev/"+strings.Repeat("a", 40))}})
			})
		}, wantKind: ErrTooManyClusters, want: []string{"more than 200 Flux configurations"}, maxCalls: 201},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := hostile.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { graphPage(w, 0, nil, "") }))
			var calls atomic.Int32
			api := hostile.StartTLS(t, tc.serve(other, &calls))
			tokens := &TokenRecorder{TokenCredential: fixedCredential(hostileGraphToken)}
			client, err := NewResourceGraphClient(tokens, api.URL, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
				Transport: api.Client(),
				Retry:     policy.RetryOptions{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond},
			}}, limits)
			if err != nil {
				t.Fatal(err)
			}
			src := &AzureResourceGraph{Client: client, RepoURL: "https://github.com/org/gitops", Branch: "dev", Limit: 200, Limits: limits, Tokens: tokens}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = src.Reports(context.Background(), []string{strings.Repeat("a", 40)})
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, tc.wantKind) {
				t.Errorf("error %q is not %v", err, tc.wantKind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "max_clusters") && errors.Is(err, ErrMalformedAnswer) {
				t.Errorf("a malformed answer advises max_clusters: %q", err)
			}
			if n := len(api.Requests()); n == 0 || n > tc.maxCalls {
				t.Errorf("%d requests, want 1..%d", n, tc.maxCalls)
			}
			if got := other.Authorizations(); len(got) > 0 {
				t.Errorf("the other host received credentials: %q", got)
			}
			if strings.Contains(err.Error(), hostileGraphToken) || strings.Contains(err.Error(), "c2lnbmF0dXJl") {
				t.Errorf("the error holds the token: %q", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the read allocated %d MiB", grew>>20)
			}
		})
	}
}
