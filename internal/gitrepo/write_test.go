// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// target is one way of reaching a bare repository: in place, or over smart HTTP.
type target struct {
	name   string
	client *gitrepo.Client
	url    func(repo string) string
}

func targets(t *testing.T, root string) []target {
	const token = "tok-123"
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})
	return []target{
		{"file", &gitrepo.Client{CacheDir: t.TempDir()}, func(repo string) string { return "file://" + root + "/" + repo }},
		{"smart-http", &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}}, srv.RepoURL},
	}
}

func TestApply_FirstUpdateNoopDelete(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{
				"README.md":              "outside",
				"other/app.yaml":         "outside too",
				"gitops/.sops.yaml":      "dot entry at root of path",
				"gitops/.flux/x.yaml":    "dot dir at root of path",
				"gitops/stale/file.yaml": "to be removed",
			})
			ctx := context.Background()
			req := gitrepo.ApplyRequest{
				RepoURL: tg.url(name), Branch: "main", Path: "gitops", Message: "kalypso: render",
				Author: gitrepo.Signature{Name: "Bot", Email: "bot@example.com"},
				Files:  fixtures.Bytes(map[string]string{"drone/README.md": "drone", "drone/t1/ns.yaml": "ns1", "large/README.md": "large"}),
			}
			res, err := tg.client.Apply(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || !res.Pushed || res.CommitSHA != gitserver.Head(t, repo, "main") {
				t.Fatalf("first apply: %+v", res)
			}
			if !reflect.DeepEqual(res.Changes.Removed, []string{"stale/file.yaml"}) || len(res.Changes.Added) != 3 {
				t.Errorf("changes: %+v", res.Changes)
			}
			want := map[string]string{
				"README.md": "outside", "other/app.yaml": "outside too",
				"gitops/.sops.yaml": "dot entry at root of path", "gitops/.flux/x.yaml": "dot dir at root of path",
				"gitops/drone/README.md": "drone", "gitops/drone/t1/ns.yaml": "ns1", "gitops/large/README.md": "large",
			}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
				t.Fatalf("tree after first apply:\n got %v\nwant %v", got, want)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 2 {
				t.Fatalf("commit count %d, want 2", n)
			}
			msg := gitserver.Git(t, "", nil, "--git-dir", repo, "log", "-1", "--format=%an <%ae> %s", "main")
			if msg != "Bot <bot@example.com> kalypso: render" {
				t.Errorf("commit: %q", msg)
			}

			// Re-apply: no commit.
			res, err = tg.client.Apply(ctx, req)
			if err != nil || res.Changed || res.Pushed || !res.Changes.Empty() {
				t.Fatalf("no-op apply: %+v %v", res, err)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 2 {
				t.Fatalf("no-op apply made a commit: %d", n)
			}

			// Change, add and remove, plus the promoted-commit tracking file.
			req.Files = fixtures.Bytes(map[string]string{"drone/README.md": "drone v2", "drone/t2/ns.yaml": "ns2", "large/README.md": "large"})
			req.RootFiles = map[string][]byte{".github/tracking/Promoted_Commit_Id": []byte("abc123")}
			res, err = tg.client.Apply(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			wantCh := gitrepo.Changes{Added: []string{"drone/t2/ns.yaml"}, Modified: []string{"drone/README.md"}, Removed: []string{"drone/t1/ns.yaml"}, Root: []string{".github/tracking/Promoted_Commit_Id"}}
			if !reflect.DeepEqual(res.Changes, wantCh) {
				t.Errorf("changes %+v, want %+v", res.Changes, wantCh)
			}
			got := gitserver.Files(t, repo, "main")
			if got["gitops/drone/README.md"] != "drone v2" || got["gitops/drone/t2/ns.yaml"] != "ns2" || got[".github/tracking/Promoted_Commit_Id"] != "abc123" {
				t.Errorf("update content: %v", got)
			}
			if _, ok := got["gitops/drone/t1/ns.yaml"]; ok {
				t.Error("removed file still present")
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 3 || gitserver.ParentCount(t, repo, "main") != 1 {
				t.Fatalf("commit count %d, want 3 (single-parent)", n)
			}

			// Drift read sees an out-of-band edit.
			gitserver.Commit(t, repo, "main", "hand edit", map[string]string{"gitops/large/README.md": "edited", "gitops/extra.yaml": "x"}, nil)
			_, drift, remote, err := tg.client.Diff(ctx, req.RepoURL, "main", "gitops", req.Files)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(drift, gitrepo.Changes{Modified: []string{"large/README.md"}, Removed: []string{"extra.yaml"}}) || string(remote["large/README.md"]) != "edited" {
				t.Errorf("drift %+v", drift)
			}

			// Delete everything managed: dot entries and outside files stay.
			req.Files = nil
			req.RootFiles = nil
			req.DeleteRootFiles = []string{".github/tracking/Promoted_Commit_Id"}
			if _, err := tg.client.Apply(ctx, req); err != nil {
				t.Fatal(err)
			}
			want = map[string]string{"README.md": "outside", "other/app.yaml": "outside too", "gitops/.sops.yaml": "dot entry at root of path", "gitops/.flux/x.yaml": "dot dir at root of path"}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
				t.Fatalf("after delete: %v", got)
			}
		})
	}
}

func TestApply_EmptyRepoOrphanAndBranchFromDefault(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			ctx := context.Background()
			empty := gitserver.NewBareRepo(t, root, tg.name+"-empty.git", "main")
			res, err := tg.client.Apply(ctx, gitrepo.ApplyRequest{RepoURL: tg.url(tg.name + "-empty.git"), Branch: "main", Files: fixtures.Bytes(map[string]string{"a/b.yaml": "b"})})
			if err != nil {
				t.Fatal(err)
			}
			if !res.BranchCreated || gitserver.CommitCount(t, empty, "main") != 1 || gitserver.ParentCount(t, empty, "main") != 0 {
				t.Fatalf("orphan: %+v", res)
			}

			seeded := gitserver.NewSeededRepo(t, root, tg.name+"-seeded.git", "main", map[string]string{"keep.txt": "k"})
			mainHead := gitserver.Head(t, seeded, "main")
			res, err = tg.client.Apply(ctx, gitrepo.ApplyRequest{RepoURL: tg.url(tg.name + "-seeded.git"), Branch: "dev", Path: "gitops", Files: fixtures.Bytes(map[string]string{"x.yaml": "x"})})
			if err != nil {
				t.Fatal(err)
			}
			parent := gitserver.Git(t, "", nil, "--git-dir", seeded, "rev-parse", "dev^")
			if !res.BranchCreated || parent != mainHead || gitserver.Head(t, seeded, "main") != mainHead {
				t.Fatalf("branch from default: %+v parent %s", res, parent)
			}
			if got := gitserver.Files(t, seeded, "dev"); !reflect.DeepEqual(got, map[string]string{"keep.txt": "k", "gitops/x.yaml": "x"}) {
				t.Fatalf("dev: %v", got)
			}
		})
	}
}

func TestApply_ConcurrentWriterIsRetriedAndKept(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"apps/a.yaml": "a"})
			c2 := &gitrepo.Client{CacheDir: tg.client.CacheDir, Auth: tg.client.Auth}
			writes := 0
			gitrepo.SetHookBeforeUpdate(c2, func(attempt int) {
				if attempt == 1 {
					writes++
					gitserver.Commit(t, repo, "main", "someone else", map[string]string{"apps/b.yaml": "b"}, nil)
				}
			})
			res, err := c2.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", Path: "gitops", Files: fixtures.Bytes(map[string]string{"x.yaml": "x"})})
			if err != nil {
				t.Fatal(err)
			}
			if res.Attempts != 2 || writes != 1 {
				t.Fatalf("attempts %d writes %d", res.Attempts, writes)
			}
			want := map[string]string{"apps/a.yaml": "a", "apps/b.yaml": "b", "gitops/x.yaml": "x"}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v", got)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 3 {
				t.Fatalf("commit count %d, want 3 (seed, other writer, ours)", n)
			}

			// A writer that never stops: bounded retries, ErrConflict, branch holds only the other writes.
			gitrepo.SetHookBeforeUpdate(c2, func(attempt int) {
				gitserver.Commit(t, repo, "main", "busy", map[string]string{fmt.Sprintf("apps/c%d.yaml", attempt): "c"}, nil)
			})
			_, err = c2.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", Path: "gitops", Files: fixtures.Bytes(map[string]string{"y.yaml": "y"})})
			if !errors.Is(err, gitrepo.ErrConflict) {
				t.Fatalf("err %v, want ErrConflict", err)
			}
			if got := gitserver.Files(t, repo, "main"); got["gitops/x.yaml"] != "x" || got["gitops/y.yaml"] != "" {
				t.Fatalf("a conflicting apply must not write: %v", got)
			}
		})
	}
}

func TestApply_PullRequestModeHeadBranch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"gitops/a.yaml": "a"})
			base := gitserver.Head(t, repo, "main")
			ctx := context.Background()
			req := gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", HeadBranch: "kalypso/main", HeadMarker: "Kalypso-Head-Branch: kalypso/main",
				Path: "gitops", Files: fixtures.Bytes(map[string]string{"a.yaml": "a"})}
			res, err := tg.client.Apply(ctx, req)
			if err != nil || res.Changed || res.Pushed || gitserver.Head(t, repo, "kalypso/main") != "" {
				t.Fatalf("no change must not create the head branch: %+v %v", res, err)
			}
			req.Files["b.yaml"] = []byte("b")
			res, err = tg.client.Apply(ctx, req)
			if err != nil || !res.Changed || !res.Pushed {
				t.Fatalf("%+v %v", res, err)
			}
			if gitserver.Head(t, repo, "main") != base || gitserver.Head(t, repo, "kalypso/main") != res.CommitSHA {
				t.Fatal("PR mode must only write the head branch")
			}
			first := res.CommitSHA
			res, err = tg.client.Apply(ctx, req)
			if err != nil || res.Pushed || res.CommitSHA != first {
				t.Fatalf("same proposal must be reused: %+v %v", res, err)
			}
			req.Files["c.yaml"] = []byte("c")
			res, err = tg.client.Apply(ctx, req)
			if err != nil || !res.Pushed || gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "kalypso/main^") != base {
				t.Fatalf("updated proposal must be one commit on the base: %+v %v", res, err)
			}
		})
	}
}

// TestApply_PullRequestHeadBranchIsNeverForced: every head-branch commit carries the marker trailer; a head
// branch whose head commit someone else wrote (on top of ours, or a branch that was never ours) fails with
// ErrForeignBranch and is left as it is; a head branch equal to the base is refused.
func TestApply_PullRequestHeadBranchIsNeverForced(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"gitops/a.yaml": "a"})
			base := gitserver.Head(t, repo, "main")
			ctx := context.Background()
			const marker = "Kalypso-Head-Branch: kalypso/main"
			req := gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", HeadBranch: "kalypso/main", HeadMarker: marker,
				Path: "gitops", Message: "proposal", Files: fixtures.Bytes(map[string]string{"a.yaml": "a", "b.yaml": "b"})}
			res, err := tg.client.Apply(ctx, req)
			if err != nil || !res.Pushed {
				t.Fatalf("%+v %v", res, err)
			}
			if msg := gitserver.Git(t, "", nil, "--git-dir", repo, "log", "-1", "--format=%B", "kalypso/main"); msg != "proposal\n\n"+marker {
				t.Fatalf("head-branch commit message %q, want the marker trailer", msg)
			}
			// A reviewer pushes a fix on top of the proposal: the next apply must not drop it.
			theirs := gitserver.Commit(t, repo, "kalypso/main", "reviewer fix", map[string]string{"gitops/fix.yaml": "fix"}, nil)
			req.Files["c.yaml"] = []byte("c")
			_, err = tg.client.Apply(ctx, req)
			if !errors.Is(err, gitrepo.ErrForeignBranch) || !strings.Contains(err.Error(), `the head branch "kalypso/main" is at commit `+theirs[:12]+", which this resource did not write") {
				t.Fatalf("err = %v, want ErrForeignBranch naming %s", err, theirs[:12])
			}
			if gitserver.Head(t, repo, "kalypso/main") != theirs || gitserver.Head(t, repo, "main") != base {
				t.Fatal("a refused apply must leave both branches as they were")
			}
			// A branch that was never the provider's.
			other := gitserver.Commit(t, repo, "feature", "their work", map[string]string{"x": "x"}, nil)
			req.HeadBranch, req.HeadMarker = "feature", "Kalypso-Head-Branch: feature"
			if _, err = tg.client.Apply(ctx, req); !errors.Is(err, gitrepo.ErrForeignBranch) || gitserver.Head(t, repo, "feature") != other {
				t.Fatalf("err = %v; feature must keep %s", err, other)
			}
			req.HeadBranch = "main"
			if _, err = tg.client.Apply(ctx, req); !errors.Is(err, gitrepo.ErrInvalidInput) || gitserver.Head(t, repo, "main") != base {
				t.Fatalf("head branch = base: err = %v", err)
			}
		})
	}
}

func TestApply_InvalidInputWritesNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "r.git", "main", map[string]string{"a": "a"})
	c := &gitrepo.Client{}
	for name, files := range map[string]map[string]string{
		"dot entry":          {".hidden": "x"},
		"escape":             {"../x": "x"},
		"absolute":           {"/etc/x": "x"},
		"git dir":            {"a/.git/config": "x"},
		"file and directory": {"a": "x", "a/b": "y"},
		"empty segment":      {"a//b": "x"},
	} {
		_, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: repo, Branch: "main", Path: "p", Files: fixtures.Bytes(files)})
		if !errors.Is(err, gitrepo.ErrInvalidInput) {
			t.Errorf("%s: err %v, want ErrInvalidInput", name, err)
		}
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 1 {
		t.Fatalf("invalid input committed: %d", n)
	}
}

func TestApply_RefusesCheckedOutBranchOfWorkingTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitserver.Git(t, "", nil, "init", "--quiet", "-b", "main", dir)
	gitserver.Git(t, dir, nil, "commit", "--quiet", "--allow-empty", "-m", "init")
	c := &gitrepo.Client{}
	_, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: dir, Branch: "main", Files: fixtures.Bytes(map[string]string{"a": "a"})})
	if !errors.Is(err, gitrepo.ErrInvalidInput) {
		t.Fatalf("err = %v, want ErrInvalidInput for the checked-out branch", err)
	}
	// Another branch of the same working-tree repository is fine, and so is reading.
	if _, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: dir, Branch: "gitops", Files: fixtures.Bytes(map[string]string{"a": "a"})}); err != nil {
		t.Fatal(err)
	}
	if _, files, err := c.ReadTree(context.Background(), "file://"+dir, "gitops", "."); err != nil || string(files["a"]) != "a" {
		t.Fatalf("read: %v %v", err, files)
	}
}

// TestApply_VacateMovesInOneCommit: a move on one branch writes the new path and empties the old one in
// one commit, keeping the old path's dot-entries at its root; it writes nothing when the old path no
// longer holds the planned tree, and refuses paths that contain one another.
func TestApply_VacateMovesInOneCommit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "move.git", "main", map[string]string{
		"README.md": "outside", "clusters/drone/a.yaml": "a", "clusters/large/b.yaml": "b", "clusters/.sops.yaml": "kept",
	})
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	ctx := context.Background()
	url := "file://" + repo
	ins, err := c.Inspect(ctx, gitrepo.InspectRequest{RepoURL: url, Branch: "main", Path: "clusters"})
	if err != nil {
		t.Fatal(err)
	}
	req := gitrepo.ApplyRequest{
		RepoURL: url, Branch: "main", Path: "envs/dev", Files: fixtures.Bytes(map[string]string{"drone/a.yaml": "a", "large/b.yaml": "b"}),
		Vacate: "clusters", VacateExpectedTree: ins.ManagedTree, DeleteRootFiles: []string{"clusters/.sops.yaml"},
	}

	stale := req
	stale.VacateExpectedTree = gitrepo.EmptyTreeID
	if _, err := c.Apply(ctx, stale); !errors.Is(err, gitrepo.ErrStale) {
		t.Fatalf("a changed old path: %v, want ErrStale", err)
	}
	for _, dirs := range [][2]string{{"clusters", "clusters"}, {"clusters/dev", "clusters"}, {"envs", "envs/dev"}, {"envs/dev", "."}} {
		bad := req
		bad.Path, bad.Vacate = dirs[0], dirs[1]
		if _, err := c.Apply(ctx, bad); !errors.Is(err, gitrepo.ErrInvalidInput) {
			t.Errorf("path %q, vacate %q: %v, want ErrInvalidInput", dirs[0], dirs[1], err)
		}
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 1 {
		t.Fatalf("refused applies wrote %d commits", n-1)
	}

	res, err := c.Apply(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"README.md": "outside", "envs/dev/drone/a.yaml": "a", "envs/dev/large/b.yaml": "b"}
	if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
		t.Errorf("tree after the move:\n got %v\nwant %v", got, want)
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 2 {
		t.Errorf("the move wrote %d commits, want 1", n-1)
	}
	if !reflect.DeepEqual(res.Changes.Added, []string{"drone/a.yaml", "large/b.yaml"}) || len(res.Changes.Removed) != 0 ||
		!reflect.DeepEqual(res.Changes.Vacated, []string{"drone/a.yaml", "large/b.yaml"}) || !reflect.DeepEqual(res.Changes.Root, []string{"clusters/.sops.yaml"}) {
		t.Errorf("changes %+v", res.Changes)
	}
}
