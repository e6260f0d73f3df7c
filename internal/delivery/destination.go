// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
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

// GoneWarning is the warning of a refresh that found the resource's repository or branch gone (Refreshed.Gone):
// the resource leaves the state. A repository that the credentials may not read looks gone too (GitHub
// answers 404), so that case says what to check before the next apply writes the files again.
func GoneWarning(gone error) (summary, detail string) {
	if errors.Is(gone, gitrepo.ErrRepositoryNotFound) {
		return "Git repository not found", "The resource is removed from state; the next apply delivers the files again. " +
			"If the repository still exists, the credentials can no longer read it (GitHub answers 404 for a private repository " +
			"a token may not see): check the provider's git_token before applying"
	}
	return "Git branch no longer exists", "The resource is removed from state; the next apply delivers the files again."
}
