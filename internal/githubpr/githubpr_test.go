// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// The GitHub API is a mock (mockgithub) because github.com is unreachable from the test machines.
func TestEnsure_MockGitHubAPI_CreateUpdateInPlaceLabelsMerged(t *testing.T) {
	t.Parallel()
	srv := mockgithub.Start(t, "gh-token")
	svc, err := githubpr.New(githubpr.Options{BaseURL: srv.BaseURL(), Token: "gh-token", LoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := githubpr.EnsureRequest{Owner: "org", Repo: "fleet", Base: "main", Head: "kalypso/main", Title: "t1", Body: "b1", Labels: []string{"kalypso"}}
	pr, created, err := svc.Ensure(ctx, req)
	if err != nil || !created || pr.Number != 1 || pr.State != githubpr.StateOpen || !reflect.DeepEqual(pr.Labels, []string{"kalypso"}) {
		t.Fatalf("create: %+v created=%v err=%v", pr, created, err)
	}
	if !strings.HasSuffix(pr.URL, "/org/fleet/pull/1") {
		t.Errorf("url %s", pr.URL)
	}

	// Update in place: same number, new title/body, promoted label added, no second PR.
	req.Title, req.Body, req.Labels = "t2", "b2", []string{"kalypso", githubpr.LabelPromoted}
	pr, created, err = svc.Ensure(ctx, req)
	if err != nil || created || pr.Number != 1 {
		t.Fatalf("update: %+v created=%v err=%v", pr, created, err)
	}
	prs := srv.PRs("org/fleet")
	if len(prs) != 1 || prs[0].Title != "t2" || prs[0].Body != "b2" || !reflect.DeepEqual(prs[0].Labels, []string{"kalypso", "promoted"}) {
		t.Fatalf("server state: %+v", prs)
	}
	if srv.CallCount("PATCH /api/v3/repos/org/fleet/pulls/1") != 1 || srv.CallCount("POST /api/v3/repos/org/fleet/pulls") != 1 {
		t.Errorf("calls: %v", srv.Calls)
	}

	// Nothing changed: no PATCH, no label call.
	before := len(srv.Calls)
	if _, _, err := svc.Ensure(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls[before:]; len(got) != 1 || !strings.HasPrefix(got[0], "GET ") {
		t.Errorf("unchanged ensure must only list: %v", got)
	}

	// Merged: Get reports it, and the next Ensure opens a new PR.
	srv.SetState("org/fleet", 1, true)
	got, err := svc.Get(ctx, "org", "fleet", 1)
	if err != nil || got.State != githubpr.StateMerged {
		t.Fatalf("get merged: %+v %v", got, err)
	}
	pr, created, err = svc.Ensure(ctx, req)
	if err != nil || !created || pr.Number != 2 {
		t.Fatalf("after merge: %+v %v %v", pr, created, err)
	}
	srv.SetState("org/fleet", 2, false)
	if got, _ := svc.Get(ctx, "org", "fleet", 2); got.State != githubpr.StateClosed {
		t.Fatalf("closed: %+v", got)
	}
	if _, err := svc.Get(ctx, "org", "fleet", 99); !errors.Is(err, githubpr.ErrNotFound) {
		t.Errorf("missing PR: %v", err)
	}
}

func TestEnsure_MockGitHubAPI_BadTokenFails(t *testing.T) {
	t.Parallel()
	srv := mockgithub.Start(t, "right")
	svc, _ := githubpr.New(githubpr.Options{BaseURL: srv.BaseURL(), Token: "wrong", LoopbackHTTP: true})
	_, _, err := svc.Ensure(context.Background(), githubpr.EnsureRequest{Owner: "o", Repo: "r", Base: "main", Head: "kalypso/main", Title: "t"})
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseRepo(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://github.com/org/fleet.git": "org/fleet",
		"https://ghe.example/org/fleet":    "org/fleet",
		"git@github.com:org/fleet.git":     "org/fleet",
		"ssh://git@github.com/org/fleet":   "org/fleet",
	} {
		o, r, err := githubpr.ParseRepo(in)
		if err != nil || o+"/"+r != want {
			t.Errorf("ParseRepo(%q) = %s/%s, %v", in, o, r, err)
		}
	}
	if _, _, err := githubpr.ParseRepo("https://github.com/"); err == nil {
		t.Error("expected an error")
	}
}

func TestDescribe_CountsPerClusterType(t *testing.T) {
	t.Parallel()
	title, body := githubpr.Describe(githubpr.Summary{
		Base: "main", Path: "gitops",
		Added:            []string{"drone/t1/ns.yaml", "drone/t1/reconciler.yaml", "large/README.md"},
		Modified:         []string{"drone/README.md"},
		Removed:          []string{"small/t9/ns.yaml"},
		PromotedCommitID: "abc", PromotedChanged: true,
	})
	if title != "Kalypso: update main (3 cluster types, 5 files)" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{"| drone | 2 | 1 | 0 |", "| large | 1 | 0 | 0 |", "| small | 0 | 0 | 1 |", "Promoted commit: `abc` (changed)"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}

func TestDescribe_MoveOnOneBranch(t *testing.T) {
	t.Parallel()
	title, body := githubpr.Describe(githubpr.Summary{
		Base: "main", Path: "envs/dev", Added: []string{"drone/a.yaml", "large/b.yaml"},
		MovedFrom: "clusters", Vacated: []string{"drone/a.yaml", "large/b.yaml"},
	})
	if title != "Kalypso: move clusters to envs/dev on main (4 files)" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{"moves from `clusters` to `envs/dev` on `main`", "removes 2 files from the old one", "| drone | 1 | 0 | 0 |"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}

// The GitHub API is a mock (mockgithub). Close withdraws an open proposal with the reason in its body,
// leaves a closed one alone, and refuses a merged one with ErrMerged.
func TestClose_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	srv := mockgithub.Start(t, "gh-token")
	svc, err := githubpr.New(githubpr.Options{BaseURL: srv.BaseURL(), Token: "gh-token", LoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := githubpr.EnsureRequest{Owner: "org", Repo: "fleet", Base: "main", Head: "kalypso/main", Title: "t", Body: "b"}
	pr, _, err := svc.Ensure(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.Close(ctx, "org", "fleet", pr.Number, "Closed: nothing left to propose.")
	if err != nil || got.State != githubpr.StateClosed {
		t.Fatalf("close: %+v, %v", got, err)
	}
	if prs := srv.PRs("org/fleet"); len(prs) != 1 || prs[0].State != "closed" || prs[0].Merged || prs[0].Body != "b\n\n---\nClosed: nothing left to propose.\n" {
		t.Fatalf("server state: %+v", prs)
	}
	patches := srv.CallCount("PATCH ")
	if got, err := svc.Close(ctx, "org", "fleet", pr.Number, "again"); err != nil || got.State != githubpr.StateClosed || srv.CallCount("PATCH ") != patches {
		t.Fatalf("closing a closed pull request: %+v, %v, %d PATCH", got, err, srv.CallCount("PATCH ")-patches)
	}
	pr, _, _ = svc.Ensure(ctx, req)
	srv.SetState("org/fleet", pr.Number, true)
	if got, err := svc.Close(ctx, "org", "fleet", pr.Number, "x"); !errors.Is(err, githubpr.ErrMerged) || got.State != githubpr.StateMerged {
		t.Fatalf("closing a merged pull request: %+v, %v", got, err)
	}
	if _, err := svc.Close(ctx, "org", "fleet", 99, "x"); !errors.Is(err, githubpr.ErrNotFound) {
		t.Fatalf("closing a missing pull request: %v", err)
	}
}
