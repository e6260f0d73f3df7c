// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// TestDebugEventsNameRequestsTimingsButNoToken: what a user sees with TF_LOG=debug when a pull request is
// opened through the GitHub REST API (a mock: github.com is unreachable from the test machines). Every
// request is an event with its method, path, status and duration, in the order GitHub received them; the
// list request's query (head and base branches) is not in its path; a refused token shows as status 401;
// the outcome names the pull request and what was done; neither token appears anywhere.
func TestDebugEventsNameRequestsTimingsButNoToken(t *testing.T) {
	t.Parallel()
	const token, wrong = "gh-debug-SECRET-0815", "gh-debug-WRONG-4242"
	srv := mockgithub.Start(t, token)
	rec := &debugrec.Recorder{}
	svc, err := githubpr.New(githubpr.Options{BaseURL: srv.BaseURL(), Token: token, LoopbackHTTP: true, Debug: rec.Record})
	if err != nil {
		t.Fatal(err)
	}
	req := githubpr.EnsureRequest{Owner: "org", Repo: "fleet", Base: "main", Head: "kalypso/main", Title: "t", Body: "b", Labels: []string{"kalypso"}}
	if _, _, err := svc.Ensure(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	refused, err := githubpr.New(githubpr.Options{BaseURL: srv.BaseURL(), Token: wrong, LoopbackHTTP: true, Debug: rec.Record})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refused.Get(context.Background(), "org", "fleet", 1); err == nil {
		t.Fatal("a wrong token must be refused")
	}

	type request struct {
		method, path string
		status       int
	}
	want := []request{
		{http.MethodGet, "/api/v3/repos/org/fleet/pulls", http.StatusOK},
		{http.MethodPost, "/api/v3/repos/org/fleet/pulls", http.StatusCreated},
		{http.MethodPost, "/api/v3/repos/org/fleet/issues/1/labels", http.StatusOK},
		{http.MethodGet, "/api/v3/repos/org/fleet/pulls/1", http.StatusUnauthorized},
	}
	var got []request
	var outcomes []map[string]any
	for _, e := range rec.Events() {
		switch e.Msg {
		case "github request":
			got = append(got, request{fmt.Sprint(e.Fields["method"]), fmt.Sprint(e.Fields["path"]), e.Fields["status"].(int)}) //nolint:forcetypeassert // a missing status fails the test
			if _, ok := e.Fields["duration_ms"].(int64); !ok || e.Fields["host"] != strings.TrimPrefix(srv.URL, "http://") {
				t.Errorf("github request without duration_ms or host: %v", e.Fields)
			}
		case "github pull request":
			outcomes = append(outcomes, e.Fields)
		}
	}
	for _, leak := range rec.Leaks(token, wrong) {
		t.Errorf("debug event holds a token: %s", leak)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("github request events %+v, want %+v", got, want)
	}
	if len(srv.Calls) != len(want) {
		t.Errorf("the mock saw %d requests %v, the events name %d", len(srv.Calls), srv.Calls, len(got))
	}
	wantOutcome := map[string]any{"repository": "org/fleet", "base": "main", "head": "kalypso/main", "number": 1, "action": "created", "labels_added": []string{"kalypso"}}
	if len(outcomes) != 1 || !reflect.DeepEqual(outcomes[0], wantOutcome) {
		t.Errorf("github pull request events %v, want one: %v", outcomes, wantOutcome)
	}
}
