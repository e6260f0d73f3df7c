// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// maxMessageFolders is how many folders a generated commit message names; the rest are counted.
const maxMessageFolders = 10

// CommitMessage generates the commit message of a resource whose commit_message is the default: the
// message says what the commit changes, so that `git log` tells three different applies apart. It is
// computed from the change the commit makes (gitrepo.ApplyRequest.Describe), not from the plan, so a
// re-apply on a moved branch still describes its own commit.
type CommitMessage struct {
	// Verb opens the subject: "Update" when empty (a destroy can say "Remove").
	Verb string
	// Path is the managed directory (cleaned: "" for the root), Branch the branch the change is for.
	Path, Branch string
	// Render is true when the folders under Path are cluster types (render mode).
	Render bool
	// PromotedCommitID is the promoted commit the resource writes ("" for none).
	PromotedCommitID string
	// Removal is true for the commit of a destroy: "Remove clusters from branch main (resource destroyed): 8 removed".
	Removal bool
	// MovedTo, for a removal, names the location the resource moved to: "(moved to envs/dev on branch main)".
	MovedTo string
	// MovedFrom is the old path of a move on one branch, emptied by the same commit (gitrepo.Changes.Vacated):
	// "Move clusters to envs/dev on branch main: 2 added, 2 removed".
	MovedFrom string
}

// Describe is the message of the commit that makes ch:
//
//	Update clusters on main: 2 added, 1 modified, 1 removed; promote 0123456789ab
//
//	Cluster types: drone (1 added, 1 modified), large (1 added, 1 removed)
//	Promoted commit: 0123456789abcdef0123456789abcdef01234567
//	Root files: .github/tracking/Promoted_Commit_Id
//
//	Written by kalypso_gitops_commit (terraform-provider-kalypso).
func (m CommitMessage) Describe(ch gitrepo.Changes) string {
	verb := m.Verb
	if verb == "" {
		verb = "Update"
	}
	subject := fmt.Sprintf("%s %s on %s: %s", verb, displayPath(m.Path), m.Branch, countPhrase(len(ch.Added), len(ch.Modified), len(ch.Removed), "no file changed"))
	if m.Removal {
		why := "resource destroyed"
		if m.MovedTo != "" {
			why = "moved to " + m.MovedTo
		}
		subject = fmt.Sprintf("Remove %s from branch %s (%s): %s", displayPath(m.Path), m.Branch, why, countPhrase(len(ch.Added), len(ch.Modified), len(ch.Removed), "no file changed"))
	}
	if m.MovedFrom != "" {
		subject = fmt.Sprintf("Move %s to %s on branch %s: %s", displayPath(m.MovedFrom), displayPath(m.Path), m.Branch,
			countPhrase(len(ch.Added), len(ch.Modified), len(ch.Removed)+len(ch.Vacated), "no file changed"))
	}
	promotedWritten := m.PromotedCommitID != "" && slices.Contains(ch.Root, PromotedCommitFile)
	if promotedWritten {
		subject += "; promote " + shortID(m.PromotedCommitID)
	}
	var body []string
	if folders := folderCounts(ch); len(folders) > 0 {
		noun := "Folders"
		if m.Render {
			noun = "Cluster types"
		}
		body = append(body, noun+": "+strings.Join(folders, ", "))
	}
	if vacated := folderCounts(gitrepo.Changes{Removed: ch.Vacated}); len(vacated) > 0 {
		body = append(body, "Removed from "+displayPath(m.MovedFrom)+": "+strings.Join(vacated, ", "))
	}
	switch {
	case promotedWritten:
		body = append(body, "Promoted commit: "+m.PromotedCommitID)
	case slices.Contains(ch.Root, PromotedCommitFile):
		body = append(body, "Promoted commit: removed")
	}
	if len(ch.Root) > 0 {
		root := append([]string(nil), ch.Root...)
		sort.Strings(root)
		body = append(body, "Root files: "+strings.Join(root, ", "))
	}
	return subject + "\n\n" + strings.Join(append(body, "", "Written by kalypso_gitops_commit (terraform-provider-kalypso)."), "\n")
}

// countPhrase is "2 added, 1 modified" without the zero counts, or none when all are zero.
func countPhrase(added, modified, removed int, none string) string {
	var parts []string
	for _, c := range []struct {
		n    int
		verb string
	}{{added, "added"}, {modified, "modified"}, {removed, "removed"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.verb))
		}
	}
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, ", ")
}

// folderCounts is "name (counts)" for each top-level folder under the path the change touches, in name
// order, the first maxMessageFolders of them. Files directly under the path count as "(path root)".
func folderCounts(ch gitrepo.Changes) []string {
	type counts struct{ added, modified, removed int }
	by := map[string]*counts{}
	add := func(paths []string, f func(*counts)) {
		for _, p := range paths {
			top, _, nested := strings.Cut(p, "/")
			if !nested {
				top = "(path root)"
			}
			c := by[top]
			if c == nil {
				c = &counts{}
				by[top] = c
			}
			f(c)
		}
	}
	add(ch.Added, func(c *counts) { c.added++ })
	add(ch.Modified, func(c *counts) { c.modified++ })
	add(ch.Removed, func(c *counts) { c.removed++ })
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, min(len(names), maxMessageFolders+1))
	for i, n := range names {
		if i == maxMessageFolders {
			out = append(out, fmt.Sprintf("and %d more", len(names)-maxMessageFolders))
			break
		}
		c := by[n]
		out = append(out, fmt.Sprintf("%s (%s)", n, countPhrase(c.added, c.modified, c.removed, "")))
	}
	return out
}

// shortID is the first 12 digits of a commit id, as the change set and `git log --abbrev=12` show it.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
