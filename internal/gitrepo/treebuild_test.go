// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestNewTreeFromFilesMatchesGitAcrossManyDirectories: the desired tree, whose top-level directories are
// built side by side, has the id git gives the same files: many top-level directories of nested
// folders, files at the top level beside them, names that sort around a directory's ("a.yaml" < "a/" <
// "a0"), and an empty file.
func TestNewTreeFromFilesMatchesGitAcrossManyDirectories(t *testing.T) {
	t.Parallel()
	seed := map[string]string{"README.md": "outside"}
	files := map[string][]byte{}
	add := func(name, content string) {
		files[name] = []byte(content)
		seed["gitops/"+name] = content
	}
	for ct := range 40 {
		add(fmt.Sprintf("ct-%02d/README.md", ct), "readme\n")
		for target := range 5 {
			for _, f := range []string{"reconciler.yaml", "namespace.yaml", "platform-config.yaml"} {
				add(fmt.Sprintf("ct-%02d/app-%d/%s", ct, target, f), fmt.Sprintf("kind: %s # %d %d\n", f, ct, target))
			}
		}
	}
	add("a.yaml", "beside a\n")
	add("a/x.yaml", "in a\n")
	add("a0", "after a\n")
	add("ct-00.yaml", "beside ct-00\n")
	add("empty.yaml", "")
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "r.git", "main", seed)
	want := gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main:gitops")
	for range 5 { // map order varies between builds
		tree, err := gitrepo.NewTreeFromFiles(files)
		if err != nil {
			t.Fatal(err)
		}
		if tree.ID() != want || tree.Len() != len(files) {
			t.Fatalf("tree %s of %d files, git has %s for %d", tree.ID(), tree.Len(), want, len(files))
		}
	}

	// Against a path the branch does not have, the diff lists every file as new, in path order, as it does
	// against any other branch (wantDeltas, sorted).
	ins, err := (&gitrepo.Client{CacheDir: t.TempDir()}).Inspect(context.Background(), gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	desired := map[string]string{}
	for name, content := range files {
		desired[name] = string(content)
	}
	got, err := ins.Diff(desiredTree(t, desired))
	if err != nil {
		t.Fatal(err)
	}
	if w := wantDeltas(nil, desired); !reflect.DeepEqual(got, w) {
		t.Fatalf("diff against a missing path: %d deltas, want %d (first %v, want %v)", len(got), len(w), got[:min(3, len(got))], w[:3])
	}
}
