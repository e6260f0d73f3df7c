// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// maxDirectoriesShown is how many directories a destroy warning or refusal names; the rest are counted.
const maxDirectoriesShown = 20

// RemovalPlan is what destroying (or replacing) the resource would delete from its branch: the files under
// its path, per top-level directory, and the root files it wrote. Clusters prune what leaves their
// folders, so the plan says this before the apply does it.
type RemovalPlan struct {
	// RepoURL, Branch and Path (cleaned, "" for the root) are the location read.
	RepoURL, Branch, Path string
	// Files is the number of files under Path (dot-entries at its root excluded).
	Files int
	// ByDirectory counts Files per top-level directory under Path; files directly under it count as "(path root)".
	ByDirectory map[string]int
	// RootFiles are the root-relative files the resource wrote that the removal deletes (its ownership
	// record, the promoted-commit file).
	RootFiles []string
	// Gone is true when the repository or the branch no longer exists: nothing is left to delete.
	Gone bool
	// Tree is the managed tree id under Path (PlanMove fills it, with Listed: the first files by name,
	// relative to Path, with their content; Names: every file by name; RootContent: the content of
	// RootFiles).
	Tree        string
	Listed      map[string]string
	Names       []string
	RootContent map[string]string
}

// PlanRemoval reads what a removal of r would delete. It never writes to the repository.
func PlanRemoval(ctx context.Context, c *gitrepo.Client, r Resource) (*RemovalPlan, error) {
	out := &RemovalPlan{RepoURL: r.RepoURL, Branch: r.Branch, Path: r.Path, ByDirectory: map[string]int{}}
	want := r.Removal()
	ins, err := c.Inspect(ctx, gitrepo.InspectRequest{RepoURL: r.RepoURL, Branch: r.Branch, Path: r.Path, RootFiles: want.DeleteRootFiles, ListFiles: true})
	if errors.Is(err, gitrepo.ErrRepositoryNotFound) || errors.Is(err, gitrepo.ErrBranchNotFound) || (err == nil && !ins.BranchExists) {
		out.Gone = true
		return out, nil
	}
	if err != nil {
		return nil, gitError("Cannot read the Git repository", err)
	}
	out.count(ins)
	return out, nil
}

// count fills the counts from an inspection that listed the files.
func (m *RemovalPlan) count(ins *gitrepo.Inspection) {
	for name := range ins.Managed {
		top, _, nested := strings.Cut(name, "/")
		if !nested {
			top = "(path root)"
		}
		m.ByDirectory[top]++
		m.Files++
	}
	for name := range ins.RootFiles {
		m.RootFiles = append(m.RootFiles, name)
	}
	sort.Strings(m.RootFiles)
}

// Directories is "drone (3), large (5)", the first maxDirectoriesShown directories by name.
func (m *RemovalPlan) Directories() string {
	names := make([]string, 0, len(m.ByDirectory))
	for n := range m.ByDirectory {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, min(len(names), maxDirectoriesShown+1))
	for i, n := range names {
		if i == maxDirectoriesShown {
			parts = append(parts, fmt.Sprintf("and %d more directories", len(names)-maxDirectoriesShown))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", n, m.ByDirectory[n]))
	}
	return strings.Join(parts, ", ")
}

// what is "deletes 8 files under path "clusters" on branch "main" of <repo>: drone (3), large (5)".
func (m *RemovalPlan) what() string {
	s := fmt.Sprintf("deletes %d file%s under path %q on branch %q of %s", m.Files, plural(m.Files), displayPath(m.Path), m.Branch, m.RepoURL)
	if m.Files > 0 {
		s += ": " + m.Directories()
	}
	if len(m.RootFiles) > 0 {
		s += fmt.Sprintf("; and the root file%s %s", plural(len(m.RootFiles)), quoteAll(m.RootFiles))
	}
	return s
}

// DestroyDecision is what a plan says about a destroy (or the removal side of a replacement): a warning
// that states what the apply deletes, or the refusal when deletion_protection is on and files would go.
type DestroyDecision struct {
	// Warning is the plan warning ("" for none), Refusal the plan error (nil when the destroy may go ahead).
	Warning string
	Refusal error
}

// DecideDestroy applies retain_on_destroy and deletion_protection to what a removal would delete. why
// names the operation ("destroying the resource", "replacing the resource").
func DecideDestroy(m *RemovalPlan, why string, retain, protection bool) DestroyDecision {
	switch {
	case retain:
		return DestroyDecision{Warning: fmt.Sprintf("retain_on_destroy = true: %s keeps the files under path %q on branch %q; nothing is deleted from the repository",
			why, displayPath(m.Path), m.Branch)}
	case m.Gone:
		return DestroyDecision{Warning: fmt.Sprintf("%s deletes nothing: branch %q of %s no longer exists", why, m.Branch, m.RepoURL)}
	case protection && m.Files > 0:
		return DestroyDecision{Refusal: fmt.Errorf("deletion_protection is on, and %s %s. Clusters prune what leaves their folders. "+
			"Nothing was written. To keep the files in the repository, set retain_on_destroy = true and apply it first; "+
			"to allow the deletion, set deletion_protection = false and apply it first, then destroy", why, m.what())}
	}
	return DestroyDecision{Warning: fmt.Sprintf("%s %s, in one commit (a pull request in pull-request mode). Clusters prune what leaves their folders",
		why, m.what())}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
