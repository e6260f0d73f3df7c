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
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// gitDirs lists the Git directories below dir (a client's cache: one per remote).
func gitDirs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, "objects")); err == nil {
			if _, err := os.Stat(filepath.Join(p, "HEAD")); err == nil {
				out = append(out, p)
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// assertCleanObjects fails when gitDir holds an object no commit points to or a second copy of one.
func assertCleanObjects(t *testing.T, step, gitDir string) {
	t.Helper()
	if out := gitserver.StrayObjects(t, gitDir); out != "" {
		t.Errorf("%s: stray objects in %s:\n%s", step, gitDir, out)
	}
}

// An apply, a second apply that rewrites the root files (an ownership record and the promoted commit, as
// kalypso_gitops_commit writes them), one that changes a file, and a removal (what a destroy delivers)
// leave no object behind that no commit points to, and write no object twice: not in the repository, and
// over smart HTTP not in the client's cache either. Small applies (loose objects) and large ones (a pack)
// both.
func TestApply_LeavesNoUnreachableOrDuplicateObjects(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, size := range []int{3, 150} {
		for _, tg := range targets(t, root) {
			t.Run(fmt.Sprintf("%s/%d-files", tg.name, size), func(t *testing.T) {
				name := fmt.Sprintf("%s-%d.git", tg.name, size)
				repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"README.md": "outside"})
				files := map[string]string{}
				for i := 0; i < size; i++ {
					files[fmt.Sprintf("ct-%d/target-%d/namespace.yaml", i%3, i)] = fmt.Sprintf("name: ns-%d\n", i)
				}
				marker := "gitops/.kalypso-gitops-commit"
				promoted := ".github/tracking/Promoted_Commit_Id"
				req := gitrepo.ApplyRequest{
					RepoURL: tg.url(name), Branch: "main", Path: "gitops", Files: fixtures.Bytes(files), Message: "apply",
					RootFiles: map[string][]byte{marker: []byte("path: gitops\n"), promoted: []byte("0123")},
				}
				check := func(step string) {
					t.Helper()
					assertCleanObjects(t, step, repo)
					if tg.name == "smart-http" {
						for _, d := range gitDirs(t, tg.client.CacheDir) {
							assertCleanObjects(t, step+" (cache)", d)
						}
					}
				}
				ctx := context.Background()
				if _, err := tg.client.Apply(ctx, req); err != nil {
					t.Fatal(err)
				}
				check("first apply")
				req.RootFiles[promoted] = []byte("4567")
				if _, err := tg.client.Apply(ctx, req); err != nil {
					t.Fatal(err)
				}
				check("new promoted commit")
				files["ct-1/target-1/namespace.yaml"] = "name: changed\n"
				req.Files = fixtures.Bytes(files)
				if _, err := tg.client.Apply(ctx, req); err != nil {
					t.Fatal(err)
				}
				check("one file changed")
				req.Files, req.RootFiles, req.DeleteRootFiles = nil, nil, []string{marker, promoted}
				res, err := tg.client.Apply(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if got := gitserver.Files(t, repo, "main"); len(got) != 1 || res.CommitSHA != gitserver.Head(t, repo, "main") {
					t.Fatalf("after the removal the branch holds %v", got)
				}
				check("removal")
			})
		}
	}
}
