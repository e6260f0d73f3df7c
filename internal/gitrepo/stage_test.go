// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
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

// objectFiles counts the loose objects and the packs (with their index) of a bare repository.
func objectFiles(t *testing.T, repo string) (loose, packs, indexes int) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(repo, "objects"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		dir := filepath.Base(filepath.Dir(p))
		switch {
		case dir == "pack" && strings.HasSuffix(p, ".pack"):
			packs++
		case dir == "pack" && strings.HasSuffix(p, ".idx"):
			indexes++
		case len(dir) == 2:
			loose++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return loose, packs, indexes
}

// A large apply writes its objects as one pack with its index, like git's receive-pack, instead of
// hundreds of loose objects; a small one writes loose objects. Either way git reads every file back, the
// repository passes git fsck, and later applies build on the packed objects.
func TestApply_LargeChangesArePackedSmallOnesLoose(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"README.md": "outside"})
			// The server checks every object it receives, as GitHub does, and refuses the push on any fault.
			gitserver.Git(t, "", nil, "--git-dir", repo, "config", "receive.fsckObjects", "true")
			looseBefore, packsBefore, _ := objectFiles(t, repo)
			files := map[string]string{}
			for i := 0; i < 300; i++ {
				files[fmt.Sprintf("ct-%d/target-%d/namespace.yaml", i%7, i)] = fmt.Sprintf("name: ns-%d\n", i)
			}
			ctx := context.Background()
			// Over smart HTTP, the push sends the pack the apply wrote as it is; a small change is encoded.
			var sent []any
			tg.client.Debug = func(_ context.Context, msg string, fields map[string]any) {
				if msg == "git push" {
					sent = append(sent, fields["pack"])
				}
			}
			defer func() { tg.client.Debug = nil }()
			req := gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", Path: "gitops", Files: fixtures.Bytes(files), Message: "large"}
			if _, err := tg.client.Apply(ctx, req); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"README.md": "outside"}
			for p, c := range files {
				want["gitops/"+p] = c
			}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
				t.Fatalf("after the large apply: %d files, want %d", len(got), len(want))
			}
			gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict")
			loose, packs, indexes := objectFiles(t, repo)
			// 300 blobs, 300 + 7 + 1 trees, a root tree and a commit: far more than the threshold.
			if tg.name == "file" && (packs != packsBefore+1 || indexes != packs || loose != looseBefore) {
				t.Errorf("after the large apply: %d loose objects (%d before), %d packs (%d before), %d indexes; want the new objects in one pack", loose, looseBefore, packs, packsBefore, indexes)
			}

			// One file changed: a blob, four trees (target-3, ct-3, gitops, the root) and a commit, written loose.
			files["ct-3/target-3/namespace.yaml"] = "name: changed\n"
			req.Files = fixtures.Bytes(files)
			res, err := tg.client.Apply(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Changes.Modified, []string{"ct-3/target-3/namespace.yaml"}) {
				t.Errorf("changes %+v", res.Changes)
			}
			if got := gitserver.Files(t, repo, "main")["gitops/ct-3/target-3/namespace.yaml"]; got != "name: changed\n" {
				t.Errorf("changed file reads %q", got)
			}
			gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict")
			if loose2, packs2, _ := objectFiles(t, repo); tg.name == "file" && (packs2 != packs || loose2 != loose+6) {
				t.Errorf("after the small apply: %d loose objects (%d before), %d packs (%d before); want 6 new loose objects", loose2, loose, packs2, packs)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 3 {
				t.Errorf("%d commits, want 3", n)
			}
			if want := []any{"the apply's pack", "encoded"}; tg.name == "smart-http" && !reflect.DeepEqual(sent, want) {
				t.Errorf("pushes sent %v, want %v", sent, want)
			} else if tg.name == "file" && len(sent) != 0 {
				t.Errorf("a local repository was pushed to: %v", sent)
			}
		})
	}
}
