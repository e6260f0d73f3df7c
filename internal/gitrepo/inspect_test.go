// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// A second inspection of the same branch sees the same files; after a commit changes the path, the new
// files; and a caller that modifies its Inspection does not change what the next one sees.
func TestInspect_RepeatedInspectionsSeeTheBranch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "r.git", "main", map[string]string{
		"README.md": "outside", "gitops/a/x.yaml": "x", "gitops/b/y.yaml": "y", "gitops/.flux/z.yaml": "dot",
	})
	client := &gitrepo.Client{CacheDir: t.TempDir()}
	req := gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: "gitops", ListFiles: true}
	inspect := func() map[string]string {
		t.Helper()
		ins, err := client.Inspect(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for p, e := range ins.Managed {
			out[p] = e.Hash
		}
		// Callers may change their own Inspection.
		ins.Managed["injected"] = gitrepo.Entry{Hash: "0"}
		delete(ins.Managed, "a/x.yaml")
		return out
	}
	first := inspect()
	if len(first) != 2 || first["a/x.yaml"] == "" || first["b/y.yaml"] == "" {
		t.Fatalf("first inspection: %v", first)
	}
	if second := inspect(); !reflect.DeepEqual(second, first) {
		t.Fatalf("second inspection %v, want %v", second, first)
	}
	gitserver.Commit(t, repo, "main", "edit", map[string]string{"gitops/a/x.yaml": "x2", "gitops/c/w.yaml": "w"}, nil)
	third := inspect()
	if len(third) != 3 || third["a/x.yaml"] == first["a/x.yaml"] || third["b/y.yaml"] != first["b/y.yaml"] || third["c/w.yaml"] == "" {
		t.Fatalf("after a commit: %v (before %v)", third, first)
	}
}

// A file where the path, or one of its parents, would be a directory is reported, not read as an empty path.
func TestInspect_PathFile(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{"clusters": "a file", "apps/team/x.yaml": "x"})
	c := &gitrepo.Client{}
	for dir, want := range map[string]string{"clusters": "clusters", "clusters/dev": "clusters", "apps/team/x.yaml": "apps/team/x.yaml", "apps/team/x.yaml/y": "apps/team/x.yaml", "apps": "", "new/dir": "", "apps/other": ""} {
		ins, err := c.Inspect(context.Background(), gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: dir})
		if err != nil || ins.PathFile != want {
			t.Errorf("path %q: PathFile %q, %v; want %q", dir, ins.PathFile, err, want)
		}
	}
}
