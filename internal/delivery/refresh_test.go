// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// TestRefresh_PullRequest runs against a real bare repository and the mock of GitHub's REST API: while the
// pull request is open, a refresh compares the head branch (the content Terraform proposed); once merged
// or closed, the base branch.
func TestRefresh_PullRequest(t *testing.T) {
	t.Parallel()
	const token = "ghp_refreshTEST"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"clusters/a.yaml": "base\n"})
	gitserver.Git(t, "", nil, "--git-dir", repo, "branch", "kalypso/main", "main")
	gitserver.Commit(t, repo, "kalypso/main", "proposal", map[string]string{"clusters/a.yaml": "proposed\n"}, nil)
	gh := mockgithub.Start(t, token)
	github := func() (*githubpr.Service, error) {
		return githubpr.New(githubpr.Options{BaseURL: gh.BaseURL(), Token: token, LoopbackHTTP: true})
	}
	svc, _ := github()
	ctx := context.Background()
	if _, _, err := svc.Ensure(ctx, githubpr.EnsureRequest{Owner: "org", Repo: "fleet", Base: "main", Head: "kalypso/main", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	c := &gitrepo.Client{Rewrites: map[string]string{"https://github.com/org/": "file://" + root + "/"}}
	treeOf := func(content string) string {
		id, _ := Desired{Files: map[string][]byte{"a.yaml": []byte(content)}}.TreeID()
		return id
	}
	r := Resource{RepoURL: "https://github.com/org/fleet.git", Branch: "main", Path: "clusters", PullRequest: &PullRequest{}}

	got, err := Refresh(ctx, c, github, r.RefreshRequest(1))
	if err != nil || got.PullRequest == nil || got.PullRequest.State != githubpr.StateOpen || got.ManagedTree != treeOf("proposed\n") {
		t.Fatalf("open: %+v, %v; want the head branch's tree", got, err)
	}
	gh.SetState("org/fleet", 1, true)
	if got, err = Refresh(ctx, c, github, r.RefreshRequest(1)); err != nil || got.PullRequest.State != githubpr.StateMerged || got.ManagedTree != treeOf("base\n") {
		t.Fatalf("merged: %+v, %v; want the base branch's tree", got, err)
	}
	if got, err = Refresh(ctx, c, github, r.RefreshRequest(0)); err != nil || got.PullRequest != nil || got.ManagedTree != treeOf("base\n") {
		t.Fatalf("no pull request recorded: %+v, %v", got, err)
	}
	var de *Error
	if _, err = Refresh(ctx, c, github, r.RefreshRequest(99)); !errors.As(err, &de) || de.Summary != "Cannot read the pull request" {
		t.Fatalf("a pull request GitHub does not have: %v", err)
	}
	if got, err = Refresh(ctx, c, github, Resource{RepoURL: r.RepoURL, Branch: "gone", Path: "clusters"}.RefreshRequest(0)); err != nil || got.Gone == nil {
		t.Fatalf("a deleted branch: %+v, %v", got, err)
	}
	if _, err = Refresh(ctx, c, github, Resource{RepoURL: "https://user:secret@github.com/org/fleet.git", Branch: "main", Path: "clusters"}.RefreshRequest(0)); !errors.As(err, &de) || de.Summary != "Cannot read the Git repository" || de.Hint == "" {
		t.Fatalf("a Git error: %#v", err)
	}
}

// A refresh and the plan that follows it in the same process (or the next one) read the branch once: they
// ask for the same inspection, so with an InspectionDir the plan of an unchanged branch needs no Git
// object, here proven by removing them all after the refresh.
func TestRefresh_ThePlanReusesTheRefreshsRead(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{"clusters/a.yaml": "a\n", MarkerPath("clusters"): string(MarkerContent("clusters")), "README.md": "r\n"})
	c := &gitrepo.Client{InspectionDir: t.TempDir()}
	r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", MaxDeletePercent: DefaultMaxDeletePercent}
	ctx := context.Background()
	got, err := Refresh(ctx, c, nil, r.RefreshRequest(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, "objects")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "objects", "pack"), 0o755); err != nil { // still a repository, without objects
		t.Fatal(err)
	}
	// The render was reused (RecordedTree): the plan needs the branch's managed tree and root files only.
	want := r.Desired(nil, got.ManagedTree, false)
	p, err := ReadBranch(ctx, c, r.PlanRequest(want, got.ManagedTree, ""))
	if err != nil {
		t.Fatalf("the plan read the branch again: %v", err)
	}
	if !p.Empty() || p.DesiredTree != got.ManagedTree {
		t.Fatalf("plan of the unchanged branch: %+v", p)
	}
}

// TestDeliver_RecordsTheNewCommitForTheNextRefresh: after a commit in direct mode, the refresh of the
// next plan finds the new commit in the inspection record the apply left, without reading a Git object.
func TestDeliver_RecordsTheNewCommitForTheNextRefresh(t *testing.T) {
	t.Parallel()
	for _, record := range []bool{true, false} {
		repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{"README.md": "r\n"})
		c := &gitrepo.Client{}
		if record {
			c.InspectionDir = t.TempDir()
		}
		r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", MaxDeletePercent: DefaultMaxDeletePercent, Message: DefaultCommitMessage}
		want := r.Desired(map[string][]byte{"drone/a.yaml": []byte("a: 1\n")}, "", false)
		ctx := context.Background()
		res, err := Deliver(ctx, c, nil, r.DeliverRequest(want, r.Message, nil, "", false))
		if err != nil || !res.Git.Changed {
			t.Fatalf("deliver: %+v, %v", res, err)
		}
		if err := os.RemoveAll(filepath.Join(repo, "objects")); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(repo, "objects", "pack"), 0o755); err != nil { // still a repository, without objects
			t.Fatal(err)
		}
		got, err := Refresh(ctx, c, nil, r.RefreshRequest(0))
		if !record {
			if err == nil {
				t.Fatal("without an inspection record the refresh read a repository without objects: the test does not remove them")
			}
			continue
		}
		if err != nil {
			t.Fatalf("the refresh after the apply read the branch again: %v", err)
		}
		if got.HeadSHA != res.Git.CommitSHA || got.ManagedTree == gitrepo.EmptyTreeID {
			t.Fatalf("the refresh after the apply found head %s, managed tree %s; the apply wrote %s", got.HeadSHA, got.ManagedTree, res.Git.CommitSHA)
		}
	}
}
