// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package mockresourcegraph is a local HTTPS server that implements the documented contract of Azure
// Resource Graph's POST /providers/Microsoft.ResourceGraph/resources (api-version 2024-04-01), for the
// tests of kalypso_rollout's azure_resource_graph source: Azure is unreachable from the test machines.
// The request is a JSON body with query, subscriptions and options ($top, $skipToken, resultFormat);
// the answer has totalRecords, count, resultTruncated, data (an object array) and $skipToken while
// rows remain. It does not run the Kusto query: it serves the rows it holds, PageSize at a time.
package mockresourcegraph

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Token is the bearer token the server accepts; Credential always has it.
const Token = "graph-token"

// Credential stands in for Entra ID, which a test cannot reach: it always has Token.
type Credential struct{}

func (Credential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: Token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// Server is the mock. Fields may be set before the first request.
type Server struct {
	*httptest.Server
	// PageSize is how many rows one answer holds (2 by default, so that a few rows page).
	PageSize int
	// Throttle is how many requests are answered 429 with Retry-After: 0 before rows are served.
	Throttle int
	// Answer, when set, sees each authenticated request first and answers it when it returns true:
	// tests use it for malformed answers and refusals.
	Answer func(w http.ResponseWriter) bool

	mu       sync.Mutex
	rows     []map[string]any
	requests []map[string]any
}

// Start serves rows over HTTPS until the test ends; Client() trusts its certificate.
func Start(t testing.TB, rows []map[string]any) *Server {
	s := &Server{rows: rows, PageSize: 2}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetRows replaces the rows served from the next request on.
func (s *Server) SetRows(rows []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = rows
}

// Requests returns the request bodies received, oldest first.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/providers/Microsoft.ResourceGraph/resources" || r.URL.Query().Get("api-version") == "" {
		http.Error(w, `{"error":{"code":"NotFound","message":"no such operation"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Token {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"code":"AuthenticationFailed","message":"bad token"}}`))
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"code":"BadRequest"}}`, http.StatusBadRequest)
		return
	}
	s.requests = append(s.requests, body)
	if s.Throttle > 0 {
		s.Throttle--
		w.Header().Set("Retry-After", "0")
		w.Header().Set("x-ms-user-quota-remaining", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"code":"RateLimiting","message":"Please provide below info when asking for support"}}`))
		return
	}
	if s.Answer != nil && s.Answer(w) {
		return
	}
	opts, _ := body["options"].(map[string]any)
	from := 0
	if tok, _ := opts["$skipToken"].(string); tok != "" {
		_, _ = fmt.Sscanf(tok, "row-%d", &from)
	}
	from = min(from, len(s.rows))
	to := min(from+max(s.PageSize, 1), len(s.rows))
	page := s.rows[from:to]
	out := map[string]any{"totalRecords": len(s.rows), "count": len(page), "resultTruncated": "false", "data": page}
	if to < len(s.rows) {
		out["$skipToken"] = fmt.Sprintf("row-%d", to)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// FluxConfiguration is one row as the source's query projects it: a Flux configuration named name on
// the Arc-enabled cluster, its complianceState, its sourceSyncedCommitId ("<branch>/<sha>" or
// "<branch>@sha1:<sha>") and when its status changed.
func FluxConfiguration(cluster, name, state, synced string, updated time.Time) map[string]any {
	return map[string]any{
		"id":              "/subscriptions/0000/resourceGroups/fleet/providers/Microsoft.Kubernetes/connectedClusters/" + cluster + "/providers/Microsoft.KubernetesConfiguration/fluxConfigurations/" + name,
		"name":            name,
		"complianceState": state,
		"commit":          synced,
		"statusUpdatedAt": updated.UTC().Format("2006-01-02T15:04:05.000000+00:00"),
		"errorMessage":    "",
	}
}
