// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

func packsIn(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestTreeStoreKeepsATreeForAnotherProcess: a tree put in the store is loaded by another TreeStore on the
// same directory (another process) with the same id, files and content, and an apply writes it to a real
// repository without its files in memory. A second tree that shares most objects adds one small pack. A
// store that lost a pack, or that holds a damaged object, reports ErrTreeNotStored.
func TestTreeStoreKeepsATreeForAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "trees")
	files := fixtures.Bytes(map[string]string{"large/README.md": "large\n", "large/app-web/reconciler.yaml": "kind: GitRepository\n", "small/app-web/namespace.yaml": "kind: Namespace\n", "empty.yaml": ""})
	want, err := gitrepo.NewTreeFromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gitrepo.NewTreeStore(dir).Tree(want.ID()); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Fatalf("an empty store: %v, want ErrTreeNotStored", err)
	}
	if err := gitrepo.NewTreeStore(dir).Put(want); err != nil {
		t.Fatal(err)
	}
	got, err := gitrepo.NewTreeStore(dir).Tree(want.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.ID() != want.ID() || got.Len() != len(files) {
		t.Fatalf("loaded tree %s with %d files, want %s with %d", got.ID(), got.Len(), want.ID(), len(files))
	}
	for name, content := range files {
		if b, err := got.File(name); err != nil || string(b) != string(content) {
			t.Errorf("%s: %q, %v; want %q", name, b, err, content)
		}
	}

	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "# fleet\n", "clusters/old/x.yaml": "old\n"})
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	if _, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", Tree: got, Message: "m",
		Author: gitrepo.Signature{Name: "Bot", Email: "bot@example.com"}}); err != nil {
		t.Fatal(err)
	}
	wantFiles := map[string]string{"README.md": "# fleet\n"}
	for name, content := range files {
		wantFiles["clusters/"+name] = string(content)
	}
	if f := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(f, wantFiles) {
		t.Errorf("after an apply of the stored tree:\n got %v\nwant %v", f, wantFiles)
	}
	if tree := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main:clusters"); tree != want.ID() {
		t.Errorf("the branch holds tree %s under clusters, want %s", tree, want.ID())
	}

	files["large/app-api/reconciler.yaml"] = []byte("kind: Kustomization\n")
	next, err := gitrepo.NewTreeFromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := gitrepo.NewTreeStore(dir).Put(next); err != nil {
		t.Fatal(err)
	}
	if err := gitrepo.NewTreeStore(dir).Put(next); err != nil {
		t.Fatal(err)
	}
	if n := packsIn(t, dir); n != 2 {
		t.Errorf("after two trees and a repeated put the store holds %d packs, want 2", n)
	}
	for _, id := range []string{want.ID(), next.ID()} {
		if _, err := gitrepo.NewTreeStore(dir).Tree(id); err != nil {
			t.Errorf("tree %s: %v", id, err)
		}
	}

	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*"))
	for _, p := range packs {
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The second pack holds the new objects only: without it the second tree is incomplete, the first is not.
	newest, newestTime := "", int64(0)
	for _, p := range packs {
		if fi, _ := os.Stat(p); strings.HasSuffix(p, ".pack") && fi.ModTime().UnixNano() >= newestTime {
			newest, newestTime = p, fi.ModTime().UnixNano()
		}
	}
	for _, ext := range []string{".pack", ".idx"} {
		if err := os.Remove(strings.TrimSuffix(newest, ".pack") + ext); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := gitrepo.NewTreeStore(dir).Tree(next.ID()); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("a tree whose pack is gone: %v, want ErrTreeNotStored", err)
	}
	if _, err := gitrepo.NewTreeStore(dir).Tree("not a tree id"); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("an invalid id: %v, want ErrTreeNotStored", err)
	}
}
