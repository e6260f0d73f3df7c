// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// A refresh passes what it delivered; files whose blob hash matches must come back without their
// blob being read, and every other file must still be read from the repository.
func TestSnapshotKnown_ReadsOnlyChangedBlobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	dir := gitserver.NewBareRepo(t, root, "r.git", "main")
	url := "file://" + dir
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	delivered := map[string]string{"a/reconciler.yaml": "kind: A\n", "b/reconciler.yaml": "kind: B\n", "c.txt": "c"}
	files := map[string][]byte{}
	for p, v := range delivered {
		files[p] = []byte(v)
	}
	if _, err := c.Apply(ctx, gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "gitops", Files: files, Message: "deliver",
		Author: gitrepo.Signature{Name: "t", Email: "t@example.com"}}); err != nil {
		t.Fatal(err)
	}
	// Someone else changes one file and adds another.
	gitserver.Commit(t, dir, "main", "drift", map[string]string{"gitops/b/reconciler.yaml": "kind: Edited\n", "gitops/d.txt": "new"}, nil)

	want := map[string][]byte{"a/reconciler.yaml": []byte("kind: A\n"), "b/reconciler.yaml": []byte("kind: Edited\n"), "c.txt": []byte("c"), "d.txt": []byte("new")}
	full, err := c.Snapshot(ctx, url, "main", "gitops", nil)
	if err != nil || !reflect.DeepEqual(full.Files, want) {
		t.Fatalf("Snapshot = %v, %v; want %v", full, err, want)
	}
	known, err := c.SnapshotKnown(ctx, url, "main", "gitops", nil, delivered)
	if err != nil || !reflect.DeepEqual(known.Files, want) || known.CommitSHA != full.CommitSHA {
		t.Fatalf("SnapshotKnown = %v, %v; want %v", known, err, want)
	}

	// Remove the unchanged file's blob from the object store: only a read that skips it can succeed.
	blob := plumbing.ComputeHash(plumbing.BlobObject, []byte("kind: A\n")).String()
	loose := filepath.Join(dir, "objects", blob[:2], blob[2:])
	if err := os.Remove(loose); err != nil {
		t.Fatalf("the blob was not a loose object, so the test cannot remove it: %v", err)
	}
	if _, err := c.Snapshot(ctx, url, "main", "gitops", nil); err == nil {
		t.Fatalf("Snapshot read a tree with a missing blob without error; the test proves nothing")
	}
	known, err = c.SnapshotKnown(ctx, url, "main", "gitops", nil, delivered)
	if err != nil || !reflect.DeepEqual(known.Files, want) {
		t.Errorf("SnapshotKnown read a blob it already knew: %v, %v", known, err)
	}
	// Known content that does not match is not trusted.
	if _, err := c.SnapshotKnown(ctx, url, "main", "gitops", nil, map[string]string{"a/reconciler.yaml": "kind: Other\n"}); err == nil {
		t.Errorf("SnapshotKnown used known content whose hash differs from the tree's blob")
	}
}
