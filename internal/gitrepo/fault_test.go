// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// faultOutside is content outside the managed path, and a dot-entry at its root; no fault may change it.
var faultOutside = map[string]string{
	"README.md":             "# fleet\n",
	"apps/team-a/app.yaml":  "kind: Deployment\n",
	"clusters/.sops.yaml":   "creation_rules: []\n",
	"clusters/old/file.txt": "managed, removed by the first apply\n",
}

// TestApply_GitFaultsOverSmartHTTP injects faults into a real git http-backend and checks, after each one:
// the error is classified and names the repository, the branch holds no partial commit (same head, same
// commit count), nothing outside path changed, the token is not in the error, and once the fault is gone
// the same Apply converges with exactly one new commit whose only parent is the previous head.
func TestApply_GitFaultsOverSmartHTTP(t *testing.T) {
	t.Parallel()
	const token = "ghp_FAULTtoken0123456789abcdef"
	v1 := map[string]string{"drone/README.md": "drone", "drone/t1/namespace.yaml": "kind: Namespace\n"}
	v2 := map[string]string{"drone/README.md": "drone v2", "large/README.md": "large"}

	type fault struct {
		name    string
		timeout time.Duration
		// arm installs the fault; it returns what the failed Apply's error must satisfy.
		arm     func(t *testing.T, srv *gitserver.Server, repo string) func(error) bool
		disarm  func(t *testing.T, srv *gitserver.Server)
		pushed  bool // the fault hides a push that did land (the next Apply has nothing to do)
		fresh   bool // the faulted Apply starts from an empty cache, so that it must download a pack
		minHits int64
	}
	var hits gitserver.Counter
	isText := func(s string) func(error) bool {
		return func(err error) bool { return strings.Contains(err.Error(), s) }
	}
	faults := []fault{
		{
			name: "500 on receive-pack",
			arm: func(_ *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				srv.SetWrap(gitserver.Status(gitserver.ReceivePack, http.StatusInternalServerError, &hits))
				return isText("500")
			},
		},
		{
			name: "connection cut mid-pack on receive-pack",
			arm: func(_ *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				srv.SetWrap(gitserver.CutRequest(gitserver.ReceivePack, 64, &hits))
				return func(err error) bool { return err != nil }
			},
		},
		{
			name: "connection cut mid-pack on upload-pack (fetch)",
			arm: func(_ *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				srv.SetWrap(gitserver.CutResponse(gitserver.UploadPack, 40, &hits))
				return func(err error) bool { return err != nil }
			},
			fresh: true,
		},
		{
			name: "auth revoked",
			arm: func(_ *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				srv.SetToken("rotated-elsewhere")
				return func(err error) bool { return errors.Is(err, gitrepo.ErrAuth) }
			},
			disarm:  func(_ *testing.T, srv *gitserver.Server) { srv.SetToken(token) },
			minHits: -1,
		},
		{
			name:    "slow server beyond the configured timeout",
			timeout: 5 * time.Second, // generous: the fetch before the push must fit in it on a loaded machine
			arm: func(t *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				release := make(chan struct{})
				t.Cleanup(func() { close(release) }) // never released during the Apply: only the timeout ends it
				srv.SetWrap(gitserver.Block(gitserver.ReceivePack, release, nil, nil, &hits))
				return func(err error) bool { return errors.Is(err, gitrepo.ErrTimeout) }
			},
		},
		{
			name: "500 after the push landed (lost answer)",
			arm: func(_ *testing.T, srv *gitserver.Server, _ string) func(error) bool {
				srv.SetWrap(gitserver.StatusAfter(gitserver.ReceivePack, http.StatusBadGateway, &hits))
				return isText("502")
			},
			pushed: true,
		},
	}

	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			root := t.TempDir()
			repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", faultOutside)
			srv := gitserver.Start(t, root, gitserver.Options{Token: token})
			c := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}}
			ctx := context.Background()
			req := gitrepo.ApplyRequest{RepoURL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: fixtures.Bytes(v1), Message: "v1"}
			if _, err := c.Apply(ctx, req); err != nil {
				t.Fatal(err)
			}
			outsideAfterV1 := map[string]string{"README.md": faultOutside["README.md"], "apps/team-a/app.yaml": faultOutside["apps/team-a/app.yaml"], "clusters/.sops.yaml": faultOutside["clusters/.sops.yaml"]}
			wantV1 := fixtures.Merge(outsideAfterV1, fixtures.Prefixed("clusters/", v1))
			headV1 := gitserver.Head(t, repo, "main")
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, wantV1) {
				t.Fatalf("after v1: %v", got)
			}

			before := hits.N()
			check := f.arm(t, srv, repo)
			req.Files, req.Message = fixtures.Bytes(v2), "v2"
			// The faulted Apply shares the cache (unless fresh) but has the fault's timeout.
			faulted := &gitrepo.Client{CacheDir: c.CacheDir, Auth: c.Auth, Timeout: f.timeout}
			if f.fresh {
				faulted.CacheDir = t.TempDir()
			}
			_, err := faulted.Apply(ctx, req)
			if err == nil {
				t.Fatalf("Apply succeeded despite the fault")
			}
			if !check(err) {
				t.Errorf("error not classified as expected: %v", err)
			}
			if f.minHits >= 0 && hits.N() == before {
				t.Errorf("the fault was never triggered (error %v)", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error echoes the token: %v", err)
			}
			if !strings.Contains(err.Error(), srv.RepoURL("fleet.git")) || !strings.Contains(err.Error(), `branch "main"`) {
				t.Errorf("the error does not name the repository and branch: %v", err)
			}

			// No partial commit: either the branch did not move, or (lost answer) it holds exactly our commit.
			wantV2 := fixtures.Merge(outsideAfterV1, fixtures.Prefixed("clusters/", v2))
			if f.pushed {
				if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, wantV2) {
					t.Errorf("after the hidden push: %v", got)
				}
				if n := gitserver.CommitCount(t, repo, "main"); n != 3 {
					t.Errorf("commit count %d, want 3", n)
				}
			} else {
				if head := gitserver.Head(t, repo, "main"); head != headV1 {
					t.Errorf("the branch moved to %s despite the failed push", head)
				}
				if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, wantV1) {
					t.Errorf("tree changed by the failed push: %v", got)
				}
				if n := gitserver.CommitCount(t, repo, "main"); n != 2 {
					t.Errorf("commit count %d, want 2", n)
				}
			}
			// Refresh (a read through the same cache) reports the remote as it is.
			srv.SetWrap(nil)
			if f.disarm != nil {
				f.disarm(t, srv)
			}
			_, files, err := c.ReadManaged(ctx, srv.RepoURL("fleet.git"), "main", "clusters")
			if err != nil {
				t.Fatal(err)
			}
			want := v1
			if f.pushed {
				want = v2
			}
			if got := fixtures.Strings(files); !reflect.DeepEqual(got, want) {
				t.Errorf("read after the fault: %v, want %v", got, want)
			}

			// The same Apply converges.
			res, err := c.Apply(ctx, req)
			if err != nil {
				t.Fatalf("Apply after the fault: %v", err)
			}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, wantV2) {
				t.Errorf("after the retry: %v", got)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 3 {
				t.Errorf("commit count %d, want 3 (one commit for v2)", n)
			}
			if f.pushed {
				if res.Pushed || res.Changed {
					t.Errorf("nothing left to push, but %+v", res)
				}
			} else {
				if !res.Pushed || gitserver.ParentCount(t, repo, "main") != 1 || gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main^") != headV1 {
					t.Errorf("retry did not add one commit on top of v1: %+v", res)
				}
			}
			if res.CommitSHA != gitserver.Head(t, repo, "main") {
				t.Errorf("CommitSHA %s, head %s", res.CommitSHA, gitserver.Head(t, repo, "main"))
			}
		})
	}
}

// TestApply_ForcePushRewritesBranch: another writer force-pushes a rewritten history (dropping our
// commit and changing a file outside path and one inside it) after we read the branch, and once more
// while our push is on the wire. Apply builds on the rewritten head each time, keeps every file the
// other writer left outside path, never resurrects the dropped commit, and lands exactly one commit.
func TestApply_ForcePushRewritesBranch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", faultOutside)
	srv := gitserver.Start(t, root, gitserver.Options{})
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	ctx := context.Background()
	url := srv.RepoURL("fleet.git")
	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2"}
	req := gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "clusters", Files: fixtures.Bytes(v1), Message: "v1"}
	if _, err := c.Apply(ctx, req); err != nil {
		t.Fatal(err)
	}
	seed := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main^")
	// Read (plan) sees v1.
	if _, files, err := c.ReadManaged(ctx, url, "main", "clusters"); err != nil || !reflect.DeepEqual(fixtures.Strings(files), v1) {
		t.Fatalf("read: %v %v", files, err)
	}

	// rewrite force-moves main to a new commit on top of the seed (our v1 commit is dropped).
	rewrite := func(tag string) string {
		gitserver.Git(t, "", nil, "--git-dir", repo, "branch", "-f", "rewrite-"+tag, seed)
		sha := gitserver.Commit(t, repo, "rewrite-"+tag, "rewrite "+tag, map[string]string{
			"README.md":             "# fleet, rewritten " + tag + "\n",
			"clusters/drone/x.yaml": "written by the other writer " + tag + "\n",
		}, nil)
		gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", sha)
		return sha
	}
	rewritten1 := rewrite("before-apply")

	// And once more when our push reaches the server: the compare-and-swap fails and Apply retries.
	var hits gitserver.Counter
	var rewritten2 string
	srv.SetWrap(gitserver.Before(gitserver.ReceivePack, func() { rewritten2 = rewrite("during-push") }, &hits))

	req.Files, req.Message = fixtures.Bytes(v2), "v2"
	res, err := c.Apply(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if hits.N() != 1 || res.Attempts < 2 {
		t.Errorf("the concurrent force-push was not exercised: hits %d, attempts %d", hits.N(), res.Attempts)
	}
	if parent := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main^"); parent != rewritten2 || gitserver.ParentCount(t, repo, "main") != 1 {
		t.Errorf("our commit's parent is %s, want the rewritten head %s (first rewrite %s)", parent, rewritten2, rewritten1)
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 3 { // seed, rewrite, ours
		t.Errorf("commit count %d, want 3", n)
	}
	want := map[string]string{
		"README.md":                "# fleet, rewritten during-push\n",
		"apps/team-a/app.yaml":     faultOutside["apps/team-a/app.yaml"],
		"clusters/.sops.yaml":      faultOutside["clusters/.sops.yaml"],
		"clusters/drone/README.md": "drone v2",
	}
	if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
		t.Errorf("tree:\n got %v\nwant %v", got, want)
	}
}
