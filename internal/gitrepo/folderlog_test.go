// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// LogFolders tells which commit last changed each folder two levels under the path: a folder changed back
// to older content still changed where it did, a folder changed outside the history read is absent, and
// over smart HTTP the shallow cache is deepened to the history asked for.
func TestLogFolders_LastChangePerFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare := gitserver.NewBareRepo(t, root, "g.git", "dev")
	gitserver.Commit(t, bare, "dev", "all", map[string]string{"gitops/a/x/r.yaml": "1", "gitops/a/y/r.yaml": "1", "gitops/b/x/r.yaml": "1",
		"gitops/a/README.md": "r", "P": "p1"}, nil)
	c2 := gitserver.Commit(t, bare, "dev", "a/x", map[string]string{"gitops/a/x/r.yaml": "2", "P": "p2"}, nil)
	c3 := gitserver.Commit(t, bare, "dev", "a/x back, b/z new", map[string]string{"gitops/a/x/r.yaml": "1", "gitops/b/z/r.yaml": "1"}, nil)
	c4 := gitserver.Commit(t, bare, "dev", "readme only", map[string]string{"gitops/a/README.md": "s"}, nil)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for name, url := range map[string]string{"file": "file://" + bare, "http": srv.RepoURL(filepath.Base(bare))} {
		t.Run(name, func(t *testing.T) {
			c := &gitrepo.Client{CacheDir: t.TempDir()}
			if _, _, err := c.ReadTree(context.Background(), url, "dev", ""); err != nil {
				t.Fatal(err)
			}
			log, err := c.LogFolders(context.Background(), url, "dev", "gitops", 10, "P")
			if err != nil {
				t.Fatal(err)
			}
			if !log.Complete || len(log.Commits) != 4 || log.Commits[0].Commit != c4 || log.Commits[1].Commit != c3 || log.Commits[2].Commit != c2 ||
				string(log.Commits[2].File) != "p2" || string(log.Commits[0].File) != "p2" {
				t.Fatalf("commits %+v, complete %v", log.Commits, log.Complete)
			}
			want := map[string]int{"a/x": 1, "a/y": 3, "b/x": 3, "b/z": 1}
			if len(log.Changed) != len(want) || len(log.Folders) != len(want) {
				t.Fatalf("changed %v, folders %v", log.Changed, log.Folders)
			}
			for f, p := range want {
				if log.Changed[f] != p {
					t.Errorf("%s changed at %d, want %d", f, log.Changed[f], p)
				}
			}
			// Three commits read: a/y and b/x changed before them; two: nothing is known to have changed.
			short, err := c.LogFolders(context.Background(), url, "dev", "gitops", 3, "")
			if err != nil {
				t.Fatal(err)
			}
			if short.Complete || len(short.Changed) != 2 || short.Changed["a/x"] != 1 || short.Changed["b/z"] != 1 {
				t.Errorf("three commits: changed %v, complete %v", short.Changed, short.Complete)
			}
			if two, err := c.LogFolders(context.Background(), url, "dev", "gitops", 2, ""); err != nil || len(two.Changed) != 0 {
				t.Errorf("two commits: %v, %v", two, err)
			}
			if _, err := c.LogFolders(context.Background(), url, "nope", "gitops", 2, ""); !errors.Is(err, gitrepo.ErrBranchNotFound) {
				t.Errorf("unknown branch: %v", err)
			}
		})
	}
}

// ListTrees lists a folder's regular files by tree id, with blob ids that name their content; a path the
// head lacks is ErrPathNotFound for LogFolders.
func TestListTrees_FilesByTreeID(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare := gitserver.NewBareRepo(t, root, "g.git", "dev")
	gitserver.Commit(t, bare, "dev", "all", map[string]string{"gitops/a/x/r.yaml": "1", "gitops/a/x/sub/n.yaml": "n", "gitops/a/y/r.yaml": "1",
		"gitops/b/x/r.yaml": "2"}, nil)
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	log, err := c.LogFolders(context.Background(), bare, "dev", "gitops", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if log.Folders["a/x"] == log.Folders["a/y"] || log.Folders["a/y"] == log.Folders["b/x"] {
		t.Fatalf("folders %v", log.Folders)
	}
	trees, err := c.ListTrees(bare, []string{log.Folders["a/x"], log.Folders["a/y"], log.Folders["a/x"]})
	if err != nil {
		t.Fatal(err)
	}
	want := []gitrepo.TreeFile{{Path: "r.yaml", Blob: gitrepo.BlobID([]byte("1"))}, {Path: "sub/n.yaml", Blob: gitrepo.BlobID([]byte("n"))}}
	if got := trees[log.Folders["a/x"]]; len(trees) != 2 || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("trees %v", trees)
	}
	if got := trees[log.Folders["a/y"]]; len(got) != 1 || got[0] != want[0] {
		t.Errorf("a/y: %v", got)
	}
	if _, err := c.ListTrees(bare, []string{gitrepo.EmptyTreeID[:39] + "0"}); err == nil {
		t.Error("a tree the repository lacks: no error")
	}
	if _, err := c.LogFolders(context.Background(), bare, "dev", "nope", 10, ""); !errors.Is(err, gitrepo.ErrPathNotFound) {
		t.Errorf("missing path: %v", err)
	}
}
