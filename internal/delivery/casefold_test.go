// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// Two resources of one plan whose paths differ only in letter case, or whose one path lies in the other's
// case twin, are refused with their own message; a path that differs in more than case is not.
func TestLocations_CaseFoldedPathsCollide(t *testing.T) {
	t.Parallel()
	var l Locations
	if err := l.Claim("repo", "main", "clusters", "repo//clusters?ref=main"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"Clusters", "CLUSTERS/dev", "clustersX"} {
		err := l.Claim("repo", "main", path, "repo//"+path+"?ref=main")
		if path == "clustersX" {
			if err != nil {
				t.Errorf("%q: %v", path, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "differ only in letter case") || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("%q: %v", path, err)
		}
	}
}

// A path that differs from a directory (or a parent directory, or a file) on the branch only in letter
// case is refused at plan, naming both spellings; nothing is read beyond the branch and nothing written.
func TestReadBranch_CaseTwinOnTheBranch(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{
		"Clusters/drone/a.yaml": "a\n", MarkerPath("Clusters"): string(MarkerContent("Clusters")), "envs/Dev": "a file\n", "README.md": "r\n",
	})
	head := gitserver.Head(t, repo, "main")
	c := &gitrepo.Client{InspectionDir: t.TempDir()}
	ctx := context.Background()
	for _, c2 := range []struct{ path, twin string }{{"clusters", "Clusters"}, {"CLUSTERS/dev", "Clusters"}, {"envs/dev/x", "envs/Dev"}, {"readme.md", "README.md"}} {
		r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: c2.path, MaxDeletePercent: DefaultMaxDeletePercent}
		for range 2 { // the second read comes from the inspection record
			_, err := PlanAgainstBranch(ctx, c, r.PlanRequest(r.Desired(map[string][]byte{"a.yaml": []byte("a\n")}, "", false), "", ""))
			var de *Error
			if !errors.As(err, &de) || de.Summary != "Paths that differ only in letter case" || de.Attribute != "path" ||
				!strings.Contains(de.Err.Error(), `and "`+c2.twin+`" on branch "main" differ only in letter case`) {
				t.Errorf("path %q: %v", c2.path, err)
			}
		}
	}
	r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "Clusters", MaxDeletePercent: DefaultMaxDeletePercent}
	if _, err := PlanAgainstBranch(ctx, c, r.PlanRequest(r.Desired(map[string][]byte{"drone/a.yaml": []byte("a\n")}, "", false), "", "")); err != nil {
		t.Errorf("the spelling the branch has: %v", err)
	}
	// A move from Clusters to clusters on this branch empties the old spelling in the same commit: a rename.
	r = Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", MaxDeletePercent: DefaultMaxDeletePercent}
	req := r.PlanRequest(r.Desired(map[string][]byte{"drone/a.yaml": []byte("a\n")}, "", false), "", "")
	req.Vacating = "Clusters"
	if _, err := PlanAgainstBranch(ctx, c, req); err != nil {
		t.Errorf("a rename by letter case: %v", err)
	}
	if gitserver.Head(t, repo, "main") != head {
		t.Error("a plan wrote")
	}
}
