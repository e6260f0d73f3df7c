// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
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

// TestTreeStoreRefusesADamagedEntry: a pack whose tree entry, blob or end is damaged on disk is not loaded
// as the tree: loading the tree (or, for a blob, reading the file) reports ErrTreeNotStored.
func TestTreeStoreRefusesADamagedEntry(t *testing.T) {
	t.Parallel()
	files := fixtures.Bytes(map[string]string{"ct/app/reconciler.yaml": "kind: GitRepository\n", "ct/app/namespace.yaml": "kind: Namespace\n"})
	want, err := gitrepo.NewTreeFromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func(pack []byte) []byte
		inTree bool // the damage shows when the tree loads, not only when a file is read
	}{
		{"a tree's entry name", func(p []byte) []byte {
			return bytes.Replace(p, []byte("reconciler.yaml"), []byte("reconcilex.yaml"), 1)
		}, true},
		{"a blob's content", func(p []byte) []byte {
			return bytes.Replace(p, []byte("kind: Namespace"), []byte("kind: Namespacf"), 1)
		}, false},
		{"a pack cut short", func(p []byte) []byte { return p[:len(p)-30] }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "trees")
			if err := gitrepo.NewTreeStore(dir).Put(want); err != nil {
				t.Fatal(err)
			}
			packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
			if len(packs) != 1 {
				t.Fatalf("%d packs, want 1", len(packs))
			}
			b, err := os.ReadFile(packs[0])
			if err != nil {
				t.Fatal(err)
			}
			damaged := tc.damage(bytes.Clone(b))
			if bytes.Equal(damaged, b) {
				t.Fatal("the damage changed nothing: the pack does not hold the text it replaces")
			}
			if err := os.Chmod(packs[0], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(packs[0], damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := gitrepo.NewTreeStore(dir).Tree(want.ID())
			if tc.inTree {
				if !errors.Is(err, gitrepo.ErrTreeNotStored) {
					t.Fatalf("Tree: %v, want ErrTreeNotStored", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := got.File("ct/app/namespace.yaml"); !errors.Is(err, gitrepo.ErrTreeNotStored) {
				t.Errorf("File of the damaged blob: %v, want ErrTreeNotStored", err)
			}
			if b, err := got.File("ct/app/reconciler.yaml"); err != nil || string(b) != "kind: GitRepository\n" {
				t.Errorf("File of an intact blob: %q, %v", b, err)
			}
		})
	}
}

// TestApplyOfAStoredTreeWithADamagedBlob: an apply of a tree loaded from the store reads its blobs when it
// writes them (as loose objects for a small change, in the pack writer's goroutines for a large one): a
// damaged blob fails the apply with ErrTreeNotStored, and the branch keeps its commit.
func TestApplyOfAStoredTreeWithADamagedBlob(t *testing.T) {
	t.Parallel()
	for _, extra := range []int{0, 150} {
		t.Run(fmt.Sprintf("%d more files", extra), func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"ct/app/namespace.yaml": "kind: Namespace\n"}
			for i := range extra {
				files[fmt.Sprintf("ct/app-%03d/reconciler.yaml", i)] = fmt.Sprintf("kind: GitRepository # %d\n", i)
			}
			want, err := gitrepo.NewTreeFromFiles(fixtures.Bytes(files))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "trees")
			if err := gitrepo.NewTreeStore(dir).Put(want); err != nil {
				t.Fatal(err)
			}
			packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
			if len(packs) != 1 {
				t.Fatalf("%d packs, want 1", len(packs))
			}
			b, err := os.ReadFile(packs[0])
			if err != nil {
				t.Fatal(err)
			}
			damaged := bytes.Replace(b, []byte("kind: Namespace"), []byte("kind: Namespacf"), 1)
			if bytes.Equal(damaged, b) {
				t.Fatal("the pack does not hold the blob's text")
			}
			if err := os.Chmod(packs[0], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(packs[0], damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := gitrepo.NewTreeStore(dir).Tree(want.ID())
			if err != nil {
				t.Fatal(err)
			}
			repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "# fleet\n"})
			before := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main")
			c := &gitrepo.Client{CacheDir: t.TempDir()}
			_, err = c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", Tree: got, Message: "m",
				Author: gitrepo.Signature{Name: "Bot", Email: "bot@example.com"}})
			if !errors.Is(err, gitrepo.ErrTreeNotStored) {
				t.Errorf("Apply: %v, want ErrTreeNotStored", err)
			}
			if after := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main"); after != before {
				t.Errorf("the failed apply moved main from %s to %s", before, after)
			}
		})
	}
}

// TestInflateStored: the store's own decoder reads the uncompressed zlib streams Put writes (one block and
// several), and declines, for zlib to read or refuse, a compressed stream, a damaged checksum, a stream
// cut short and one of another length than the object's.
func TestInflateStored(t *testing.T) {
	t.Parallel()
	deflate := func(content []byte, level int) []byte {
		var buf bytes.Buffer
		w, err := zlib.NewWriterLevel(&buf, level)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(content); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, content := range [][]byte{{}, []byte("100644 a.yaml\x00"), bytes.Repeat([]byte("kind: ConfigMap\n"), 10000)} {
		stored := deflate(content, zlib.NoCompression)
		out := make([]byte, len(content))
		if !gitrepo.InflateStored(stored, out) || !bytes.Equal(out, content) {
			t.Errorf("%d bytes stored: not read back", len(content))
		}
		if len(content) == 0 {
			continue
		}
		// (flate stores a short input that does not compress, which the decoder then reads, rightly.)
		if len(content) > 1000 && gitrepo.InflateStored(deflate(content, zlib.BestSpeed), make([]byte, len(content))) {
			t.Errorf("%d bytes compressed: read as stored", len(content))
		}
		damaged := bytes.Clone(stored)
		damaged[len(damaged)-1] ^= 1
		if gitrepo.InflateStored(damaged, make([]byte, len(content))) {
			t.Errorf("%d bytes with a damaged checksum: accepted", len(content))
		}
		if gitrepo.InflateStored(stored[:len(stored)-5], make([]byte, len(content))) {
			t.Errorf("%d bytes cut short: accepted", len(content))
		}
		if gitrepo.InflateStored(stored, make([]byte, len(content)+1)) || gitrepo.InflateStored(stored, make([]byte, len(content)-1)) {
			t.Errorf("%d bytes: accepted for another length", len(content))
		}
	}
}

// One store, used by one process for many plans: after it starts afresh (past its pack bound) it loads a
// tree it keeps again, although it had read a pack it since removed.
func TestTreeStoreLoadsAfterStartingAfresh(t *testing.T) {
	t.Parallel()
	ts := gitrepo.NewTreeStore(filepath.Join(t.TempDir(), "trees"))
	tree := func(i int) *gitrepo.Tree {
		t.Helper()
		tr, err := gitrepo.NewTreeFromFiles(map[string][]byte{"ct/app/reconciler.yaml": []byte(fmt.Sprintf("n: %d\n", i)), "ct/README.md": []byte("ct\n")})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	first := tree(0)
	if err := ts.Put(first); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Tree(first.ID()); err != nil {
		t.Fatal(err)
	}
	// Each Put of a new tree adds a pack; past the bound the store removes everything and starts afresh.
	for i := 1; i <= 40; i++ {
		if err := ts.Put(tree(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.Put(first); err != nil {
		t.Fatal(err)
	}
	got, err := ts.Tree(first.ID())
	if err != nil {
		t.Fatalf("loading a kept tree after the store started afresh: %v", err)
	}
	if b, err := got.File("ct/app/reconciler.yaml"); err != nil || string(b) != "n: 0\n" {
		t.Fatalf("reconciler.yaml: %q, %v", b, err)
	}
}
