// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// objectsBytes is the size of the files under a bare repository's objects directory.
func objectsBytes(t *testing.T, repo string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(filepath.Join(repo, "objects"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A path move on one branch (ApplyRequest.Vacate) writes the same files at the new path: every blob and
// every folder below it is on the remote already, under the old path of the branch's head. The push sends
// only what is new: the new path's own tree (its ownership record differs), the trees above it, the
// commit. Before, it sent the whole tree again (issue 35: 22,751 of 22,756 objects were on the remote, and
// the remote's pack doubled). Counted over smart HTTP: the objects of the push (its debug event) and the
// bytes the remote's object store grew by.
func TestApply_PathMovePushesOnlyNewObjects(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for ct := range 20 {
		for tg := range 10 {
			files[fmt.Sprintf("ct%02d/target%02d/reconciler.yaml", ct, tg)] = fmt.Sprintf("kind: GitRepository\nmetadata:\n  name: ct%02d-target%02d\n", ct, tg)
		}
		files[fmt.Sprintf("ct%02d/README.md", ct)] = "This folder contains deployment targets scheduled on the cluster type"
	}
	root := t.TempDir()
	seed := map[string]string{"README.md": "fleet\n"}
	for p, c := range files {
		seed["clusters/"+p] = c
	}
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	srv := gitserver.Start(t, root, gitserver.Options{})
	rec := &debugrec.Recorder{}
	c := &gitrepo.Client{CacheDir: t.TempDir(), Debug: rec.Record}
	before := objectsBytes(t, repo)
	res, err := c.Apply(context.Background(), gitrepo.ApplyRequest{
		RepoURL: srv.RepoURL("fleet.git"), Branch: "main", Path: "envs/dev", Files: toBytes(files), Vacate: "clusters",
		RootFiles: map[string][]byte{"envs/dev/.owner": []byte("envs/dev\n")}, Message: "move",
	})
	if err != nil || !res.Pushed || len(res.Changes.Added) != len(files) || len(res.Changes.Vacated) != len(files) {
		t.Fatalf("move: %+v, %v", res.Changes, err)
	}
	pushes := rec.Find("git push")
	if len(pushes) != 1 {
		t.Fatalf("pushes: %+v", pushes)
	}
	objects, grown := pushes[0].Fields["objects"], objectsBytes(t, repo)-before
	t.Logf("a path move of %d files pushed %v objects; the remote's objects grew by %d bytes", len(files), objects, grown)
	// New: the new path's tree, envs, the root tree, the ownership record's blob, the commit.
	if n, _ := objects.(int); n > 6 {
		t.Errorf("the move pushed %d objects; only the new path's own tree, the trees above it, the ownership record and the commit are new", n)
	}
	if got := gitserver.Files(t, repo, "main"); got["envs/dev/ct07/target03/reconciler.yaml"] != files["ct07/target03/reconciler.yaml"] || got["clusters/ct07/README.md"] != "" {
		t.Errorf("the branch after the move: %d files", len(got))
	}
	if out := gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict", "--no-dangling"); out != "" {
		t.Errorf("git fsck: %s", out)
	}
}

// A move to another branch of the same repository (ApplyRequest.ReuseBranch) refers to the old branch's
// trees and blobs, which the remote has, instead of sending them again.
func TestApply_BranchMovePushesOnlyNewObjects(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for ct := range 10 {
		for tg := range 10 {
			files[fmt.Sprintf("ct%02d/target%02d/namespace.yaml", ct, tg)] = fmt.Sprintf("kind: Namespace\nmetadata:\n  name: ct%02d-target%02d\n", ct, tg)
		}
	}
	root := t.TempDir()
	seed := map[string]string{"README.md": "fleet\n"}
	for p, c := range files {
		seed["clusters/"+p] = c
	}
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	gitserver.Commit(t, repo, "dev", "dev", map[string]string{"README.md": "dev\n"}, nil)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for _, reuse := range []bool{false, true} {
		rec := &debugrec.Recorder{}
		c := &gitrepo.Client{CacheDir: t.TempDir(), Debug: rec.Record}
		req := gitrepo.ApplyRequest{RepoURL: srv.RepoURL("fleet.git"), Branch: "dev", Path: fmt.Sprintf("envs/%v", reuse), Files: toBytes(files), Message: "move"}
		if reuse {
			req.ReuseBranch, req.ReusePath = "main", "clusters"
		}
		before := objectsBytes(t, repo)
		if res, err := c.Apply(context.Background(), req); err != nil || len(res.Changes.Added) != len(files) {
			t.Fatalf("move (reuse %v): %+v, %v", reuse, res.Changes, err)
		}
		pushes := rec.Find("git push")
		if len(pushes) != 1 {
			t.Fatalf("pushes: %+v", pushes)
		}
		n, _ := pushes[0].Fields["objects"].(int)
		t.Logf("reuse %v: a move of %d files to another branch pushed %d objects; the remote's objects grew by %d bytes", reuse, len(files), n, objectsBytes(t, repo)-before)
		if reuse && n > 4 {
			t.Errorf("the move pushed %d objects; only the trees above the path and the commit are new", n)
		}
		if !reuse && n < len(files) {
			t.Errorf("without ReuseBranch the move pushed only %d objects: the test does not measure what it claims", n)
		}
	}
	if out := gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict", "--no-dangling"); out != "" {
		t.Errorf("git fsck: %s", out)
	}
	if got := gitserver.Files(t, repo, "dev"); got["envs/true/ct03/target04/namespace.yaml"] != files["ct03/target04/namespace.yaml"] {
		t.Errorf("the branch after the move: %d files", len(got))
	}
}

func toBytes(m map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}
