// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// damage writes a loose object that is not zlib data for id into every cache entry under cache: go-git
// reads loose objects before packs, so every later read of id fails with "zlib: invalid header".
func damage(t *testing.T, cache, id string) {
	t.Helper()
	dirs := gitDirs(t, cache)
	if len(dirs) == 0 {
		t.Fatal("no cache entry")
	}
	for _, d := range dirs {
		p := filepath.Join(d, "objects", id[:2], id[2:])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("not a zlib stream"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCache_DamagedObjectIsRefetched: a damaged object in the cache of a remote makes the read discard
// that repository's cache entry and fetch again, once, with a debug line; the plan-side read, the
// pull-request tip read and the apply all succeed, and the apply writes one commit.
func TestCache_DamagedObjectIsRefetched(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const token = "tok-123"
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})
	repo := gitserver.NewSeededRepo(t, root, "r.git", "main", map[string]string{"clusters/a.yaml": "a", "README.md": "x"})
	cache := t.TempDir()
	var rec debugrec.Recorder
	c := &gitrepo.Client{CacheDir: cache, Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}, Debug: rec.Record}
	ctx := context.Background()
	url := srv.RepoURL("r.git")
	req := gitrepo.InspectRequest{RepoURL: url, Branch: "main", Path: "clusters"}
	before, err := c.Inspect(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"inspect", func() error {
			got, err := c.Inspect(ctx, req)
			if err == nil && got.ManagedTree != before.ManagedTree {
				err = fmt.Errorf("managed tree %s, want %s", got.ManagedTree, before.ManagedTree)
			}
			return err
		}},
		{"tip", func() error { _, err := c.ReadTip(ctx, url, "main"); return err }},
		{"read tree", func() error { _, files, err := c.ReadTree(ctx, url, "main", "clusters"); _ = files; return err }},
		{"apply", func() error {
			_, err := c.Apply(ctx, gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "clusters", Files: fixtures.Bytes(map[string]string{"a.yaml": "a", "b.yaml": "b"})})
			return err
		}},
		{"read tree at a commit", func() error {
			_, files, err := c.ReadTreeAt(ctx, url, "main", gitserver.Head(t, repo, "main"), "clusters")
			if err == nil && string(files["b.yaml"]) != "b" {
				err = fmt.Errorf("read %v", files)
			}
			return err
		}},
		{"is ancestor", func() error {
			head := gitserver.Head(t, repo, "main")
			is, err := c.IsAncestor(ctx, url, "main", head, head)
			if err == nil && !is {
				err = errors.New("a commit is its own ancestor")
			}
			return err
		}},
		{"log", func() error {
			entries, err := c.Log(ctx, url, "main", 1, "README.md")
			if err == nil && (len(entries) != 1 || string(entries[0].File) != "x") {
				err = fmt.Errorf("log %+v", entries)
			}
			return err
		}},
	}
	for i, st := range steps {
		damage(t, cache, gitserver.Head(t, repo, "main"))
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if n := len(rec.Find("git cache damaged: discarding this repository's cache entry and fetching again")); n != i+1 {
			t.Fatalf("%s: %d debug lines about the damaged cache, want %d", st.name, n, i+1)
		}
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 2 {
		t.Fatalf("%d commits, want the seed and one apply", n)
	}
	if got := gitserver.Files(t, repo, "main"); got["clusters/b.yaml"] != "b" {
		t.Fatalf("%v", got)
	}
}

// TestCache_DamagedBlobIsDiscardedForTheNextPlan: ReadBlobs (the content of the plan's diffs) knows no
// branch to fetch again, so a damaged blob discards the cache entry and is reported as this machine's
// damaged cache, never as the remote; the next Inspect fetches again and the blob reads.
func TestCache_DamagedBlobIsDiscardedForTheNextPlan(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	srv := gitserver.Start(t, root, gitserver.Options{})
	gitserver.NewSeededRepo(t, root, "r.git", "main", map[string]string{"clusters/a.yaml": "a"})
	cache := t.TempDir()
	c := &gitrepo.Client{CacheDir: cache}
	ctx := context.Background()
	url := srv.RepoURL("r.git")
	req := gitrepo.InspectRequest{RepoURL: url, Branch: "main", Path: "clusters"}
	if _, err := c.Inspect(ctx, req); err != nil {
		t.Fatal(err)
	}
	id := gitrepo.BlobID([]byte("a"))
	damage(t, cache, id)
	_, err := c.ReadBlobs(url, []string{id})
	if !errors.Is(err, gitrepo.ErrCorruptCache) || !strings.Contains(err.Error(), "the next plan fetches it again") {
		t.Fatalf("ReadBlobs of a damaged blob: %v", err)
	}
	if hint, _ := gitrepo.Hint(err, gitrepo.Fields{Repo: "repository_url"}); strings.Contains(hint, "unreachable") {
		t.Fatalf("hint blames the remote: %q", hint)
	}
	if _, err := c.Inspect(ctx, req); err != nil {
		t.Fatal(err)
	}
	blobs, err := c.ReadBlobs(url, []string{id})
	if err != nil || string(blobs[id]) != "a" {
		t.Fatalf("after the refetch: %q %v", blobs[id], err)
	}
}

// TestHint_CorruptCacheIsNotTheRemote: a cache that stays damaged is reported as this machine's fault.
func TestHint_CorruptCacheIsNotTheRemote(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("read: %w", gitrepo.ErrCorruptCache)
	hint, attr := gitrepo.Hint(err, gitrepo.Fields{Repo: "repository_url"})
	if attr != "" || !strings.Contains(hint, "This machine's copy of the repository is damaged") || strings.Contains(hint, "unreachable") {
		t.Fatalf("%q %q", hint, attr)
	}
	if !errors.Is(err, gitrepo.ErrCorruptCache) {
		t.Fatal("class")
	}
}
