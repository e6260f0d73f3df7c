// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

func TestOwnerRecord(t *testing.T) {
	t.Parallel()
	if string(OwnerRecord("clusters", "")) != string(MarkerContent("clusters")) || AdoptedFrom(MarkerContent("clusters")) != "" {
		t.Error("the first claim's record is the record as it always was")
	}
	rec := OwnerRecord("clusters", "0123abc")
	if !strings.HasSuffix(string(rec), "path: clusters\nadopted_from: 0123abc\n") || AdoptedFrom(rec) != "0123abc" {
		t.Errorf("%q", rec)
	}
}

// FindClaim names the commit that wrote the record's current content, not a later commit that left it.
func TestFindClaim(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "x"})
	name := MarkerPath("clusters")
	first := gitserver.Commit(t, repo, "main", "claim", map[string]string{name: string(MarkerContent("clusters"))}, nil)
	gitserver.Commit(t, repo, "main", "other", map[string]string{"README.md": "y"}, nil)
	got, err := FindClaim(context.Background(), &gitrepo.Client{}, "file://"+repo, "main", name, MarkerContent("clusters"))
	if err != nil || got.Commit != first || got.Earlier || !strings.HasPrefix(got.describe(), "commit "+first+" of 20") {
		t.Errorf("%+v %v", got, err)
	}
	adopted := gitserver.Commit(t, repo, "main", "adopt", map[string]string{name: string(OwnerRecord("clusters", first))}, nil)
	if got, _ := FindClaim(context.Background(), &gitrepo.Client{}, "file://"+repo, "main", name, OwnerRecord("clusters", first)); got.Commit != adopted {
		t.Errorf("after the adoption: %+v, want %s", got, adopted)
	}
	if (Claim{}).describe() != "a commit the history does not show" {
		t.Error("no claim")
	}
}

// The ownership step over a real branch: a create on a path another resource claimed is refused, naming
// the claim; with adopt it takes the path over and the change set rewrites the record; the state's own
// record passes, and a record rewritten by another resource does not.
func TestPlanOwnership_AcrossStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "x"})
	claim := gitserver.Commit(t, repo, "main", "claim", map[string]string{"clusters/a.yaml": "a", MarkerPath("clusters"): string(MarkerContent("clusters"))}, nil)
	plan := func(p *Planning) (*Planning, error) {
		t.Helper()
		p.Rendered = files(map[string]string{"b.yaml": "b"})
		_ = planIdentity(ctx, p)
		if err := planInspect(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p, planOwnership(ctx, p)
	}
	_, err := plan(planning(repo, "clusters", nil))
	refusal(t, err, "path", `path "clusters" on branch "main" of file://`+repo+` is owned by another kalypso_gitops_commit`, "written by commit "+claim, "Nothing was written", "adopt = true")

	adopting := planning(repo, "clusters", nil)
	adopting.Config.Resource.Adopt = true
	p, err := plan(adopting)
	if err != nil || p.Config.Resource.AdoptedFrom != claim || len(p.Warnings) != 1 || p.Warnings[0].Summary != "The resource takes the path over" {
		t.Fatalf("adopt: %v %+v", err, p.Warnings)
	}
	if c := p.Changes.Changes[MarkerPath("clusters")]; c.Action != ActionUpdate || !strings.Contains(c.Diff, "+adopted_from: "+claim) {
		t.Errorf("the record's rewrite: %+v", c)
	}

	own := planning(repo, "clusters", nil)
	own.Prior = prior(repo, "clusters", false)
	if _, err := plan(own); err != nil {
		t.Errorf("the state's own record: %v", err)
	}
	gitserver.Commit(t, repo, "main", "adopted elsewhere", map[string]string{MarkerPath("clusters"): string(OwnerRecord("clusters", claim))}, nil)
	stale := planning(repo, "clusters", nil)
	stale.Prior = prior(repo, "clusters", false)
	_, err = plan(stale)
	refusal(t, err, "path", "which took the path over from the record of commit "+claim)

	// A replacement in place takes its own object's record over, and tells the apply's plan through the store.
	store := NewRenderStore(t.TempDir())
	replacing := planning(repo, "clusters", nil)
	replacing.Store, replacing.Replaces = store, &Prior{ID: ID("file://"+repo, "clusters", "main"), Resource: Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", AdoptedFrom: claim}}
	if _, err := plan(replacing); err != nil {
		t.Fatalf("replacement in place: %v", err)
	}
	again := planning(repo, "clusters", nil)
	again.Store = store
	again.Config.Resource.AdoptedFrom = claim
	if _, err := plan(again); err != nil {
		t.Errorf("the apply's plan of the replacement: %v", err)
	}
	DropTakeOver(store, again.ID, again.Config.Resource)
	again = planning(repo, "clusters", nil)
	again.Store = store
	_, err = plan(again)
	refusal(t, err, "path", "is owned by another kalypso_gitops_commit")
}
