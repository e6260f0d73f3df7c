// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// removeObjects deletes every object of a bare repository, keeping its refs: an Inspect that still
// answers read none of them.
func removeObjects(t *testing.T, repo string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repo, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "info" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(repo, "objects", e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// A second client with the same InspectionDir (the next provider process) answers an inspection of the
// same commit without reading any object, with the same result; a commit on the branch is read afresh;
// a damaged or foreign record and a listing request (ListFiles) are never answered from the memo.
func TestInspect_InspectionDirAnswersTheSameCommitWithoutObjects(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "r.git", "main", map[string]string{
		"README.md": "outside", "gitops/a/x.yaml": "x", "gitops/.flux/z.yaml": "dot", ".promoted-commit-id": "abc",
		"gitops/.kalypso-gitops-commit": "gitops",
	})
	memo := t.TempDir()
	req := gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: "gitops",
		RootFiles: []string{".promoted-commit-id", "gitops/.kalypso-gitops-commit"}, Marker: ".kalypso-gitops-commit"}
	inspect := func(c *gitrepo.Client, req gitrepo.InspectRequest) (*gitrepo.Inspection, error) {
		return c.Inspect(context.Background(), req)
	}
	first, err := inspect(&gitrepo.Client{InspectionDir: memo}, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.ManagedTree == gitrepo.EmptyTreeID || string(first.RootFiles[".promoted-commit-id"]) != "abc" || string(first.RootFiles["gitops/.kalypso-gitops-commit"]) != "gitops" {
		t.Fatalf("first inspection: %+v", first)
	}
	records, _ := filepath.Glob(filepath.Join(memo, "*.json"))
	if len(records) != 1 {
		t.Fatalf("records after one inspection: %v", records)
	}

	// A commit moves the branch: the memo's record is of another commit.
	gitserver.Commit(t, repo, "main", "edit", map[string]string{"gitops/a/x.yaml": "x2"}, nil)
	second, err := inspect(&gitrepo.Client{InspectionDir: memo}, req)
	if err != nil {
		t.Fatal(err)
	}
	if second.HeadSHA == first.HeadSHA || second.ManagedTree == first.ManagedTree {
		t.Fatalf("after a commit the inspection still shows the old one: %+v", second)
	}

	// The same commit again, from a new client, with no object left: only the memo can answer.
	removeObjects(t, repo)
	if _, err := inspect(&gitrepo.Client{}, req); err == nil {
		t.Fatal("without a memo an inspection of a repository without objects succeeded: the test does not remove them")
	}
	third, err := inspect(&gitrepo.Client{InspectionDir: memo}, req)
	if err != nil {
		t.Fatalf("inspection from the memo: %v", err)
	}
	if !reflect.DeepEqual(third.RootFiles, second.RootFiles) || third.ManagedTree != second.ManagedTree || third.HeadSHA != second.HeadSHA ||
		!reflect.DeepEqual(third.Markers, second.Markers) || third.PathFile != second.PathFile || !third.BranchExists {
		t.Fatalf("from the memo %+v, read %+v", third, second)
	}

	// Another request (other root files) has its own record, and a listing is never memoized.
	if _, err := inspect(&gitrepo.Client{InspectionDir: memo}, gitrepo.InspectRequest{RepoURL: req.RepoURL, Branch: "main", Path: "gitops"}); err == nil {
		t.Fatal("a request without a record was answered")
	}
	if _, err := inspect(&gitrepo.Client{InspectionDir: memo}, gitrepo.InspectRequest{RepoURL: req.RepoURL, Branch: "main", Path: "gitops", RootFiles: req.RootFiles, Marker: req.Marker, ListFiles: true}); err == nil {
		t.Fatal("a listing was answered from the memo")
	}

	// A damaged record is ignored: the objects are read (and here they are gone).
	records, _ = filepath.Glob(filepath.Join(memo, "*.json"))
	for _, r := range records {
		if err := os.WriteFile(r, []byte(`{"version":"1","commit":"`+second.HeadSHA+`","managed_tree":"not a tree"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := inspect(&gitrepo.Client{InspectionDir: memo}, req); err == nil {
		t.Fatal("a damaged record was trusted")
	}
}
