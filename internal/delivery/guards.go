// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// CheckMassDeletion refuses a change that deletes more than maxPercent of the current files under the
// path, when there are at least MassDeletionMinFiles. maxPercent 100 disables the guard.
func CheckMassDeletion(current, deleted, maxPercent int) error {
	if maxPercent >= 100 || current < MassDeletionMinFiles || deleted*100 <= current*maxPercent {
		return nil
	}
	return fmt.Errorf("the change deletes %d of the %d files under the path (%d%%, more than max_delete_percent = %d). "+
		"Clusters prune what is deleted from their folders, so this usually means a mistake in the input: a mistyped environment name "+
		"(render.environment is case-sensitive and an unknown environment renders nothing), a selector or scheduling policy that no longer "+
		"matches, or the wrong path or branch. Check the changes in the plan; if the deletion is intended, set max_delete_percent = 100 "+
		"for this apply", deleted, current, deleted*100/current, maxPercent)
}

// CheckOverlap refuses a path when markers (gitrepo.Inspection.Markers) show another resource's path above
// or below it on the same branch.
func CheckOverlap(path string, markers []string) error {
	if len(markers) == 0 {
		return nil
	}
	return fmt.Errorf("path %q overlaps the path %s of another kalypso_gitops_commit on this branch (recorded by its %s file). "+
		"Two resources whose paths contain one another undo each other's changes on every apply. Give each resource its own "+
		"directory (for example clusters/a and clusters/b), or merge them into one resource",
		displayPath(path), quoteAll(markers), OwnerMarker)
}

// CheckHeadBranch refuses a pull request's head branch that the resource may not write: the base branch,
// the repository's default branch, or an existing branch whose head commit the resource did not write
// (it does not carry HeadMarker).
func CheckHeadBranch(base, head string, tip gitrepo.Tip) error {
	switch {
	case head == base:
		return fmt.Errorf("the head branch %q is the base branch: the pull request would propose nothing and the commit would land on %q "+
			"without review. Set pull_request.head_branch to a branch of its own, or remove it for the default %q", head, base, HeadBranch(base, ""))
	case head == tip.DefaultBranch:
		return fmt.Errorf("the head branch %q is the repository's default branch. The provider moves its head branch to each new "+
			"proposal, which would drop the commits on %q. Set pull_request.head_branch to a branch of its own, such as %q", head, head, HeadBranch(base, ""))
	case tip.Exists && !gitrepo.HasTrailer(tip.Message, HeadMarker(head)):
		return fmt.Errorf("branch %q exists and its head commit %s was not written by this resource (its message has no %q line). "+
			"The provider moves its head branch to each new proposal, which would drop that commit. Set pull_request.head_branch to a "+
			"branch that does not exist yet (the provider creates it), or remove the commits others pushed to it", head, shortSHA(tip.SHA), HeadMarker(head))
	}
	return nil
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// MissingBranch explains a branch that does not exist.
func MissingBranch(branch string, existing []string) error {
	list := "the repository has no branches"
	if len(existing) > 0 {
		shown := existing
		if len(shown) > 20 {
			shown = shown[:20]
		}
		list = "the branches are " + quoteAll(shown)
		if len(existing) > len(shown) {
			list += fmt.Sprintf(" and %d more", len(existing)-len(shown))
		}
	}
	return fmt.Errorf("branch %q does not exist (%s). Check the branch name; to create it as a new branch that holds only this resource's files, set create_branch = true", branch, list)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}
