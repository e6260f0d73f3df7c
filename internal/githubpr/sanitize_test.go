// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
)

// TestGitHubAnswersAreSanitized: a mock of GitHub's REST API (or a proxy in front of it) that answers
// 401 with the request's token and terminal escapes in its JSON message. The error says what failed and
// keeps the message's printable text; neither it nor a debug event holds the token or an escape.
func TestGitHubAnswersAreSanitized(t *testing.T) {
	t.Parallel()
	const token = "configured-gh-token-value"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg := "Bad credentials: " + r.Header.Get("Authorization") + " \x1b[2J\x1b[32mApply complete!\x1b[0m"
		_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
	}))
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var events []string
	svc, err := githubpr.New(githubpr.Options{BaseURL: srv.URL + "/api/v3/", Token: token, LoopbackHTTP: true, Debug: func(_ context.Context, msg string, fields map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprint(msg, fields))
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Get(context.Background(), "org", "fleet", 7)
	if err == nil {
		t.Fatal("want an error")
	}
	want := "read pull request #7 of org/fleet: GET " + srv.URL + "/api/v3/repos/org/fleet/pulls/7: 401 Bad credentials: Bearer REDACTED Apply complete! []"
	if got := err.Error(); got != want {
		t.Errorf("error:\n got %q\nwant %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) == 0 {
		t.Fatal("no debug event")
	}
	for _, e := range events {
		if strings.Contains(e, token) || strings.ContainsAny(e, "\x1b") {
			t.Errorf("debug event holds the token or an escape: %q", e)
		}
	}
}
