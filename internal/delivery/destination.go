// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
)

// planDestination reads the new location of a move before the move is planned: a repository that does
// not exist (a mistyped repository_url), credentials it refuses, or a branch that does not exist and is
// not to be created are named as such. Before, the move's own guards ran first and reported the old
// location's files ("The move deletes files at the old location"), which sent the user to
// deletion_protection instead of the URL. A location that is no move is read by the inspect step, which
// names the same errors.
func planDestination(ctx context.Context, p *Planning) error {
	to := p.Config.Resource
	if p.Prior == nil || p.ID == "" || p.Git == nil || !Moved(p.Prior.Resource, to, p.repoKey) {
		return nil
	}
	ins, err := p.Git.Inspect(ctx, branchInspection(to.RepoURL, to.Branch, to.Path, false))
	if err != nil {
		return Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	if !ins.BranchExists && (!to.CreateBranch || to.PullRequest != nil) {
		return Explain(p.ID, missingBranch(to.Branch, ins.Branches, to.PullRequest != nil))
	}
	return nil
}
