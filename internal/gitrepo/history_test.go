// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// historyRepo is a bare repository whose main has three commits (v1, v2, v3 of a.yaml, each with its
// Promoted_Commit_Id p1..p3) and a branch "other" with a commit main never had.
func historyRepo(t *testing.T) (root, bare string, commits []string, other string) {
	t.Helper()
	root = t.TempDir()
	bare = gitserver.NewBareRepo(t, root, "cp.git", "main")
	for i, v := range []string{"v1", "v2", "v3"} {
		commits = append(commits, gitserver.Commit(t, bare, "main", v, map[string]string{
			"cp/a.yaml": "version: " + v + "\n", ".github/tracking/Promoted_Commit_Id": "p" + string(rune('1'+i)),
		}, nil))
	}
	gitserver.Git(t, bare, nil, "branch", "other", commits[0])
	other = gitserver.Commit(t, bare, "other", "elsewhere", map[string]string{"cp/a.yaml": "version: other\n"}, nil)
	return root, bare, commits, other
}

// Over smart HTTP the cache starts shallow (depth 1), so reading an older commit must deepen it; a file://
// repository is read in place. Both must give the same answers.
func TestReadTreeAt_PinnedCommitOnBranch(t *testing.T) {
	t.Parallel()
	root, bare, commits, other := historyRepo(t)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for name, url := range map[string]string{"file": "file://" + bare, "http": srv.RepoURL(filepath.Base(bare))} {
		t.Run(name, func(t *testing.T) {
			c := &gitrepo.Client{CacheDir: t.TempDir()}
			ctx := context.Background()
			// Read the head first, as a plan of the environment would: the HTTP cache is now shallow.
			head, files, err := c.ReadTreeAt(ctx, url, "main", "", "cp")
			if err != nil || head != commits[2] || string(files["a.yaml"]) != "version: v3\n" {
				t.Fatalf("head read = %s %q %v", head, files, err)
			}
			sha, files, err := c.ReadTreeAt(ctx, url, "main", commits[0][:7], "cp")
			if err != nil {
				t.Fatal(err)
			}
			if sha != commits[0] || string(files["a.yaml"]) != "version: v1\n" {
				t.Errorf("pinned read = %s %q, want %s and v1 (never the head's v3)", sha, files, commits[0])
			}
			_, _, err = c.ReadTreeAt(ctx, url, "main", other, "cp")
			if !errors.Is(err, gitrepo.ErrCommitNotOnBranch) || !strings.Contains(err.Error(), other) {
				t.Errorf("commit of another branch: err = %v, want ErrCommitNotOnBranch naming it", err)
			}
			_, _, err = c.ReadTreeAt(ctx, url, "main", "not-a-sha", "cp")
			if !errors.Is(err, gitrepo.ErrInvalidInput) {
				t.Errorf("malformed commit: err = %v, want ErrInvalidInput", err)
			}
			hint, attr := gitrepo.Hint(func() error { _, _, err := c.ReadTreeAt(ctx, url, "main", other, "cp"); return err }(),
				gitrepo.Fields{Repo: "git.repo", Branch: "git.branch", Commit: "git.commit"})
			if attr != "git.commit" || !strings.Contains(hint, "ancestors") {
				t.Errorf("hint = %q on %q, want advice on git.commit", hint, attr)
			}

			is, err := c.IsAncestor(ctx, url, "main", commits[0], commits[2])
			if err != nil || !is {
				t.Errorf("IsAncestor(v1, v3) = %v, %v; want true", is, err)
			}
			is, err = c.IsAncestor(ctx, url, "main", commits[2], commits[1])
			if err != nil || is {
				t.Errorf("IsAncestor(v3, v2) = %v, %v; want false", is, err)
			}
			if _, err := c.IsAncestor(ctx, url, "main", other, commits[2]); !errors.Is(err, gitrepo.ErrCommitNotOnBranch) {
				t.Errorf("IsAncestor(other, v3): err = %v, want ErrCommitNotOnBranch", err)
			}
		})
	}
}

func TestLog_FirstParentWithFile(t *testing.T) {
	t.Parallel()
	root, bare, commits, _ := historyRepo(t)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for name, url := range map[string]string{"file": "file://" + bare, "http": srv.RepoURL(filepath.Base(bare))} {
		t.Run(name, func(t *testing.T) {
			c := &gitrepo.Client{CacheDir: t.TempDir()}
			if _, _, err := c.ReadTree(context.Background(), url, "main", ""); err != nil { // a shallow cache first
				t.Fatal(err)
			}
			log, err := c.Log(context.Background(), url, "main", 2, ".github/tracking/Promoted_Commit_Id")
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != 2 || log[0].Commit != commits[2] || log[1].Commit != commits[1] ||
				string(log[0].File) != "p3" || string(log[1].File) != "p2" || log[0].Time.IsZero() {
				t.Errorf("log = %+v, want v3 (p3) then v2 (p2)", log)
			}
			all, err := c.Log(context.Background(), url, "main", 10, "missing")
			if err != nil || len(all) != 3 || all[2].Commit != commits[0] || all[0].File != nil {
				t.Errorf("whole log = %+v, %v; want 3 commits without the file", all, err)
			}
		})
	}
}

// A shallow fetch of a branch whose history runs through the pinned commit leaves a cache that names the
// commit (as a parent) without holding it; the read must deepen, not fail with "object not found".
func TestReadTreeAt_ShallowCacheNamesThePinWithoutHoldingIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare, pinned := fixtures.ControlPlanePinnedRepo(t, root)
	srv := gitserver.Start(t, root, gitserver.Options{})
	url := srv.RepoURL(filepath.Base(bare))
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	if _, _, err := c.ReadTree(context.Background(), url, "dev", ""); err != nil {
		t.Fatal(err)
	}
	sha, files, err := c.ReadTreeAt(context.Background(), url, "main", pinned, "templates")
	if err != nil || sha != pinned || strings.Contains(string(files["scheduler_v1alpha1_template_namespace.yaml"]), fixtures.Unpromoted) {
		t.Fatalf("ReadTreeAt(main@pin) = %s, %v; want %s without the unpromoted change", sha, err, pinned)
	}
}
