// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

func TestMoved(t *testing.T) {
	t.Parallel()
	key := gitrepo.RepositoryKey
	base := Resource{RepoURL: "file:///srv/fleet.git", Branch: "main", Path: "clusters"}
	respelled := Resource{RepoURL: "/srv/fleet.git/", Branch: "main", Path: "clusters"}
	if Moved(base, respelled, key) || !SameBranch(base, respelled, key) {
		t.Error("a respelled URL is the same location")
	}
	for _, to := range []Resource{
		{RepoURL: base.RepoURL, Branch: "dev", Path: "clusters"}, {RepoURL: base.RepoURL, Branch: "main", Path: "envs"}, {RepoURL: "file:///srv/other.git", Branch: "main", Path: "clusters"},
	} {
		if !Moved(base, to, key) {
			t.Errorf("%+v is a move", to)
		}
	}
	if OldKey(base, true, true, "a/b.yaml") != "clusters/a/b.yaml" || OldKey(base, false, true, "a/b.yaml") != "main:clusters/a/b.yaml" ||
		OldKey(base, false, false, "a/b.yaml") != "file:///srv/fleet.git@main:clusters/a/b.yaml" {
		t.Error("old keys")
	}
}

// The old side of a move is counted in full and listed with its content, deletions first, the ownership
// record included, up to the cap; on one branch the promoted-commit file is the new side's.
func TestMove_ChangesAndGuards(t *testing.T) {
	t.Parallel()
	from := Resource{RepoURL: "file:///srv/fleet.git", Branch: "main", Path: "clusters"}
	old := &RemovalPlan{Branch: "main", Path: "clusters", Files: 3, ByDirectory: map[string]int{"drone": 3}, RootFiles: []string{PromotedCommitFile, "clusters/" + OwnerMarker},
		RootContent: map[string]string{"clusters/" + OwnerMarker: "record", PromotedCommitFile: "abc"},
		Tree:        "t", Listed: map[string]string{"drone/a.yaml": "a", "drone/b.yaml": "b", "drone/c.yaml": "c"}, Names: []string{"drone/a.yaml", "drone/b.yaml", "drone/c.yaml"}}
	p := &Plan{Changes: map[string]Change{"envs/drone/a.yaml": {Action: ActionCreate, Diff: "a"}}, Counts: Counts{Create: 1}}
	sameBranch := &MovePlan{Old: old, From: from, SameBranch: true, SameRepo: true}
	got := p.WithMove(sameBranch, 3, 0)
	if got.Counts != (Counts{Create: 1, Delete: 4}) || len(got.Changes) != 3 || got.Omitted != 2 || got.Changes["clusters/"+OwnerMarker] != (Change{Action: ActionDelete, Diff: "record"}) ||
		got.Changes["clusters/drone/a.yaml"] != (Change{Action: ActionDelete, Diff: "a"}) || got.Changes["clusters/drone/b.yaml"].Action != ActionDelete {
		t.Errorf("cut at 3: deletions first, %+v", got)
	}
	if all := p.WithMove(sameBranch, 100, 0); len(all.Changes) != 5 || all.Omitted != 0 || all.Changes["envs/drone/a.yaml"].Action != ActionCreate {
		t.Errorf("every change listed: %+v", all)
	}
	otherBranch := &MovePlan{Old: old, From: from, SameRepo: true}
	if got := p.WithMove(otherBranch, 100, 0); got.Counts.Delete != 5 || got.Changes["main:"+PromotedCommitFile] != (Change{Action: ActionDelete, Diff: "abc"}) ||
		got.Changes["main:clusters/"+OwnerMarker].Action != ActionDelete || got.Changes["main:clusters/drone/c.yaml"].Action != ActionDelete {
		t.Errorf("another branch: %+v", got)
	}
	if len(p.Changes) != 1 || p.WithMove(&MovePlan{Old: old, Retain: true}, 3, 0) != p {
		t.Error("WithMove changed its receiver, or a retained move lists deletions")
	}
	if d := DecideMove(old, "x//envs?ref=main", false, true); d.Refusal == nil || !strings.Contains(d.Refusal.Error(), "moving the resource to x//envs?ref=main deletes 3 files") ||
		!strings.Contains(d.Refusal.Error(), "then apply the move") || strings.Contains(d.Refusal.Error(), "then destroy") {
		t.Errorf("protected: %+v", d)
	}
	if d := DecideMove(old, "x", true, true); d.Refusal != nil {
		t.Errorf("retained: %+v", d)
	}
	big := &RemovalPlan{Branch: "main", Path: "clusters", Files: 12, ByDirectory: map[string]int{"drone": 12}}
	for i := 0; i < 12; i++ {
		big.Names = append(big.Names, fmt.Sprintf("drone/%02d.yaml", i))
	}
	all := func(string) bool { return true }
	none := func(string) bool { return false }
	if err := CheckMoveDeletion(big, "x", all, 50); err != nil {
		t.Errorf("every file written again: %v", err)
	}
	if err := CheckMoveDeletion(big, "x", none, 50); err == nil || !strings.Contains(err.Error(), "deletes 12 of the 12 files") || !strings.Contains(err.Error(), "max_delete_percent = 100") {
		t.Errorf("nothing written again: %v", err)
	}
	if err := CheckMoveDeletion(big, "x", none, 100); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if rec := ParseMoveRecord(MoveRecord{Tree: "t"}.Marshal()); rec == nil || rec.Tree != "t" || ParseMoveRecord(nil) != nil || (MoveRecord{}).Marshal() != nil {
		t.Error("move record")
	}
}

// TestMoveInOneCommit: a move on one branch empties the old path in the apply's own commit, removes the
// old ownership record and the promoted-commit file the old side wrote unless the new side writes it,
// and describes itself as a move whatever commit_message holds.
func TestMoveInOneCommit(t *testing.T) {
	t.Parallel()
	id := "0123456789abcdef0123456789abcdef01234567"
	from := Resource{RepoURL: "file:///srv/fleet.git", Branch: "main", Path: "clusters", PromotedCommitID: &id}
	for _, tc := range []struct {
		promoted    *string
		wantDeletes []string
	}{
		{&id, []string{MarkerPath("clusters")}},
		{nil, []string{PromotedCommitFile, MarkerPath("clusters")}},
	} {
		to := Resource{RepoURL: from.RepoURL, Branch: "main", Path: "envs/dev", Message: "my message", PromotedCommitID: tc.promoted}
		req := to.MoveInOneCommit(to.DeliverRequest(to.Desired(nil, "", true), to.Message, &id, "", false), from, "tree-id")
		if req.Apply.Vacate != "clusters" || req.Apply.VacateExpectedTree != "tree-id" || strings.Join(req.Apply.DeleteRootFiles, ",") != strings.Join(tc.wantDeletes, ",") {
			t.Errorf("promoted %v: vacate %q %q, root deletes %v, want %v", tc.promoted != nil, req.Apply.Vacate, req.Apply.VacateExpectedTree, req.Apply.DeleteRootFiles, tc.wantDeletes)
		}
		msg := req.Apply.Describe(gitrepo.Changes{Added: []string{"drone/a.yaml"}, Vacated: []string{"drone/a.yaml", "large/b.yaml"}})
		if want := "Move clusters to envs/dev on branch main: 1 added, 2 removed\n\nFolders: drone (1 added)\nRemoved from clusters: drone (1 removed), large (1 removed)\n"; !strings.HasPrefix(msg, want) {
			t.Errorf("message:\n%s\nwant prefix\n%s", msg, want)
		}
	}
}
