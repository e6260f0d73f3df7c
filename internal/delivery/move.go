// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// A change of repository_url (to another repository), branch or path is a move: the plan shows the
// changes at the new location and the deletions at the old one. On one branch the apply writes both in
// one commit (MoveInOneCommit); elsewhere it writes the new location first and removes the old one
// after, so that no path is emptied before its replacement exists.

// Moved reports whether to is another location than from: another repository (key gives a
// repository's key, gitrepo.Client.RepositoryKey), branch or path.
func Moved(from, to Resource, key func(string) string) bool {
	return key(from.RepoURL) != key(to.RepoURL) || from.Branch != to.Branch || from.Path != to.Path
}

// SameBranch reports whether two locations are on one branch of one repository.
func SameBranch(a, b Resource, key func(string) string) bool {
	return key(a.RepoURL) == key(b.RepoURL) && a.Branch == b.Branch
}

// MoveRecord is what the plan of a move keeps in the resource's planned private state for the apply: the
// managed tree of the old location the deletions were listed against. The apply removes the old files
// only while that location still holds exactly this tree.
type MoveRecord struct {
	Tree string `json:"tree"`
}

// Marshal encodes the record; nil when there is nothing to remove.
func (m MoveRecord) Marshal() []byte {
	if m.Tree == "" {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

// ParseMoveRecord decodes a record written by Marshal, nil when there is none.
func ParseMoveRecord(b []byte) *MoveRecord {
	var m MoveRecord
	if len(b) == 0 || json.Unmarshal(b, &m) != nil || m.Tree == "" {
		return nil
	}
	return &m
}

// PlanMove reads what moving from the old location deletes there, listing the first limit files with
// their content (the keys are those MoveChanges uses).
func PlanMove(ctx context.Context, c *gitrepo.Client, from Resource, limit int) (*RemovalPlan, error) {
	want := from.Removal()
	ins, err := c.Inspect(ctx, gitrepo.InspectRequest{RepoURL: from.RepoURL, Branch: from.Branch, Path: from.Path, RootFiles: want.DeleteRootFiles, ListFiles: true})
	out := &RemovalPlan{RepoURL: from.RepoURL, Branch: from.Branch, Path: from.Path, ByDirectory: map[string]int{}}
	if err == nil && !ins.BranchExists {
		out.Gone = true
		return out, nil
	}
	if err != nil {
		return nil, gitError("Cannot read the old location of the moved resource", err)
	}
	out.count(ins)
	out.Tree = ins.ManagedTree
	out.RootContent = make(map[string]string, len(ins.RootFiles))
	for name, content := range ins.RootFiles {
		out.RootContent[name] = string(content)
	}
	names := make([]string, 0, len(ins.Managed))
	for name := range ins.Managed {
		names = append(names, name)
	}
	sort.Strings(names)
	out.Names = names
	if len(names) > limit {
		names = names[:limit]
	}
	ids := make([]string, 0, len(names))
	for _, n := range names {
		ids = append(ids, ins.Managed[n].Hash)
	}
	blobs := map[string][]byte{}
	if len(ids) > 0 {
		if blobs, err = c.ReadBlobs(from.RepoURL, ids); err != nil {
			return nil, gitError("Cannot read the old location of the moved resource", err)
		}
	}
	out.Listed = make(map[string]string, len(names))
	for _, n := range names {
		out.Listed[n] = string(blobs[ins.Managed[n].Hash])
	}
	return out, nil
}

// DecideMove applies deletion_protection (as the state records it) and retain_on_destroy (the old files
// stay) to the old side of a move to the resource id to. The mass-deletion guard judges the move once the
// new location's files are known (CheckMoveDeletion). A refusal names the way out of a move.
func DecideMove(m *RemovalPlan, to string, retain, protection bool) DestroyDecision {
	why := "moving the resource to " + to
	if protection && !retain && !m.Gone && m.Files > 0 {
		return DestroyDecision{Refusal: fmt.Errorf("deletion_protection is on, and %s %s. Clusters that read the old location prune what leaves it. "+
			"Nothing was written. To move, set deletion_protection = false with the old location and apply that first (the apply writes nothing), "+
			"then apply the move: one apply writes the new location and empties the old one; to leave the old files where they are, "+
			"set retain_on_destroy = true the same way instead", why, m.what())}
	}
	return DecideDestroy(m, why, retain, protection)
}

// CheckMoveDeletion refuses a move that deletes more than maxPercent of the old location's files (when it
// holds at least MassDeletionMinFiles) without writing them again: written tells whether the new location
// writes a file of that name (relative to the path). A move that writes every file again deletes nothing
// from the environment's tree, wherever the clusters read it.
func CheckMoveDeletion(m *RemovalPlan, to string, written func(rel string) bool, maxPercent int) error {
	leaving := 0
	for _, n := range m.Names {
		if !written(n) {
			leaving++
		}
	}
	if maxPercent >= 100 || m.Files < MassDeletionMinFiles || leaving*100 <= m.Files*maxPercent {
		return nil
	}
	return fmt.Errorf("moving the resource to %s deletes %d of the %d files under path %q on branch %q that the new location does not write again "+
		"(%d%%, more than max_delete_percent = %d); files the new location writes again do not count. This usually means that the input changed "+
		"with the move (a mistyped environment name, a selector that no longer matches). Nothing was written. Check the changes in the plan; "+
		"if the deletion is intended, set max_delete_percent = 100 for this apply", to, leaving, m.Files, displayPath(m.Path), m.Branch, leaving*100/m.Files, maxPercent)
}

// OldKey is the key in changes of a file of the old location: its root-relative path when the old
// location is on the same branch as the new one, else prefixed with the old branch (and repository).
func OldKey(from Resource, sameBranch, sameRepo bool, rel string) string {
	p := join(from.Path, rel)
	switch {
	case sameBranch:
		return p
	case sameRepo:
		return from.Branch + ":" + p
	default:
		return from.RepoURL + "@" + from.Branch + ":" + p
	}
}

// WithMove adds the old side of a move to the change set p of the new location: every file the move
// deletes there is counted, and listed with its content before the new location's changes, the ownership
// record and the promoted-commit file included, up to maxChanges entries in all. On one branch the
// promoted-commit file is the new side's: written, or deleted in its own change set.
func (p *Plan) WithMove(m *MovePlan, maxChanges, maxDiffBytes int) *Plan {
	if m == nil || m.Retain || m.Old.Gone {
		return p
	}
	if maxChanges <= 0 {
		maxChanges = DefaultMaxChanges
	}
	if maxDiffBytes <= 0 {
		maxDiffBytes = DefaultMaxDiffBytes
	}
	deletions, removed := m.deletions()
	out := *p
	out.Counts.Delete += removed
	out.Changes = make(map[string]Change, min(maxChanges, len(p.Changes)+len(deletions)))
	for _, d := range deletions {
		if len(out.Changes) >= maxChanges {
			break
		}
		out.Changes[d.key] = Change{Action: ActionDelete, Diff: cut(d.content, maxDiffBytes, "deletes")}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Changes)) {
		if len(out.Changes) >= maxChanges {
			break
		}
		out.Changes[k] = p.Changes[k]
	}
	out.Omitted = out.Counts.Total() - len(out.Changes)
	return &out
}

// oldDeletion is a file of the old location with its key in changes and its content.
type oldDeletion struct{ key, content string }

// deletions are the old location's deletions to list, root files first, then the listed files by name,
// and the number of files the move deletes there. On one branch the promoted-commit file is the new side's.
func (m *MovePlan) deletions() ([]oldDeletion, int) {
	var out []oldDeletion
	for _, name := range m.Old.RootFiles {
		if !(m.SameBranch && name == PromotedCommitFile) {
			out = append(out, oldDeletion{m.RootKey(name), m.Old.RootContent[name]})
		}
	}
	removed := m.Old.Files + len(out)
	for _, n := range slices.Sorted(maps.Keys(m.Old.Listed)) {
		out = append(out, oldDeletion{m.Key(n), m.Old.Listed[n]})
	}
	return out, removed
}

// MoveRemovalRequest is the apply of the old side of a move: the removal of from's files, only while the
// old path holds the tree the plan listed, with a message that says where the files moved.
func (r Resource) MoveRemovalRequest(expectedTree, to string) DeliverRequest {
	req := r.RemovalRequest()
	req.Apply.ExpectedManagedTree = expectedTree
	req.Apply.Describe = CommitMessage{Path: r.Path, Branch: r.Branch, Render: r.Render, Removal: true, MovedTo: to}.Describe
	return req
}

// MoveInOneCommit makes req, the apply of the new location r of a move on the same branch as from
// (SameBranch), also empty the old location in the same commit, only while it holds expectedTree (the
// MoveRecord's): its files, its ownership record, and the promoted-commit file it wrote unless r writes
// it too. The commit says it is a move, whatever commit_message holds, as a removal's does.
func (r Resource) MoveInOneCommit(req DeliverRequest, from Resource, expectedTree string) DeliverRequest {
	req.Apply.Vacate, req.Apply.VacateExpectedTree = from.Path, expectedTree
	deletes := append([]string(nil), req.Apply.DeleteRootFiles...)
	for _, name := range from.Removal().DeleteRootFiles {
		if _, written := req.Apply.RootFiles[name]; !written && !slices.Contains(deletes, name) {
			deletes = append(deletes, name)
		}
	}
	req.Apply.DeleteRootFiles = deletes
	req.Apply.Describe = CommitMessage{Path: r.Path, Branch: r.Branch, Render: r.Render, PromotedCommitID: req.PromotedCommitID, MovedFrom: from.Path}.Describe
	return req
}
