// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestDebugEventsNameTargetsTimingsAndRetriesButNoSecret: what a user sees with TF_LOG=debug. A fetch and
// a push over smart HTTP with a token, through a URL rewrite, one push rejected by a concurrent writer:
// each event names the repository as written and as rewritten, the branch or ref, its duration and
// outcome; the retry is reported with its attempt; the token appears nowhere.
func TestDebugEventsNameTargetsTimingsAndRetriesButNoSecret(t *testing.T) {
	t.Parallel()
	const token = "tok-debug-SECRET-4711"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"apps/a.yaml": "a"})
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})
	rec := &debugrec.Recorder{}
	c := &gitrepo.Client{
		CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}, Debug: rec.Record,
		Rewrites: map[string]string{"https://github.com/org/": strings.TrimSuffix(srv.RepoURL("fleet.git"), "fleet.git")},
	}
	const written = "https://github.com/org/fleet.git"
	rewritten := srv.RepoURL("fleet.git")

	if _, _, err := c.ReadTree(context.Background(), written, "main", "apps"); err != nil {
		t.Fatal(err)
	}
	gitrepo.SetHookBeforeUpdate(c, func(attempt int) {
		if attempt == 1 {
			gitserver.Commit(t, repo, "main", "someone else", map[string]string{"apps/b.yaml": "b"}, nil)
		}
	})
	res, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: written, Branch: "main", Path: "gitops", Files: fixtures.Bytes(map[string]string{"x.yaml": "x"})})
	if err != nil || res.Attempts != 2 {
		t.Fatalf("apply: attempts %d, err %v", res.Attempts, err)
	}

	fetches := rec.Find("git fetch")
	if len(fetches) == 0 {
		t.Fatalf("no git fetch event in %v", rec.Events())
	}
	for _, e := range fetches {
		if e.Fields["repository"] != written || e.Fields["url"] != rewritten || e.Fields["branch"] != "main" {
			t.Errorf("git fetch fields %v: want repository %q, url %q, branch main", e.Fields, written, rewritten)
		}
		if _, ok := e.Fields["duration_ms"].(int64); !ok {
			t.Errorf("git fetch without duration_ms: %v", e.Fields)
		}
	}
	pushes := rec.Find("git push")
	if len(pushes) != 2 {
		t.Fatalf("%d git push events, want 2 (rejected, then accepted): %v", len(pushes), rec.Events())
	}
	if _, failed := pushes[0].Fields["error"]; !failed {
		t.Errorf("first push was rejected but its event has no error: %v", pushes[0].Fields)
	}
	if _, failed := pushes[1].Fields["error"]; failed || pushes[1].Fields["ref"] != "refs/heads/main" || pushes[1].Fields["new"] != res.CommitSHA {
		t.Errorf("second push event %v: want ref refs/heads/main, new %s, no error", pushes[1].Fields, res.CommitSHA)
	}
	retries := rec.Find("git push rejected: the branch moved; re-applying on its new head")
	if len(retries) != 1 || retries[0].Fields["attempt"] != 1 || retries[0].Fields["branch"] != "main" {
		t.Errorf("retry events %v: want one, for attempt 1 on main", retries)
	}
	for _, leak := range rec.Leaks(token) {
		t.Errorf("debug event holds the token: %s", leak)
	}
}
