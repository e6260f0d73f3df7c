// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Settings are the configured values checked before anything is read; nil means not known yet (or unset).
type Settings struct {
	RepoURL, Branch, HeadBranch, PromotedCommitID, Path *string
	PullRequest                                         bool
}

// Problem is a setting that cannot work: the attribute ("pull_request.head_branch" names a nested one),
// a summary, and what was found and what to do.
type Problem struct {
	Attribute, Summary, Detail string
}

// CheckSettings finds the settings that cannot work, without contacting any repository.
func CheckSettings(s Settings) []Problem {
	var out []Problem
	add := func(attr, summary, format string, args ...any) {
		out = append(out, Problem{attr, summary, fmt.Sprintf(format, args...)})
	}
	if s.RepoURL != nil {
		if err := gitrepo.ValidateURL(*s.RepoURL); err != nil {
			add("repository_url", "Invalid repository_url", "%s. Use file://, a local path, https://, ssh:// or user@host:path, without credentials; configure the token or ssh key in the provider.", err)
		} else if s.PullRequest {
			if err := ValidatePullRequestURL(*s.RepoURL); err != nil {
				add("repository_url", "Pull-request mode needs a GitHub repository URL", "%s. Pull requests are opened through the GitHub API, so repository_url must be "+
					"https://<host>/<owner>/<repo>.git or git@<host>:<owner>/<repo>.git (git_url_rewrites may point it elsewhere); remove pull_request to push directly.", err)
			}
		}
	}
	if s.Branch != nil {
		if err := ValidateBranchName(*s.Branch); err != nil {
			add("branch", "Invalid branch", "%s. Use a name git accepts, such as \"dev\" or \"envs/dev\".", err)
		}
	}
	if s.HeadBranch != nil {
		if err := ValidateBranchName(*s.HeadBranch); err != nil {
			add("pull_request.head_branch", "Invalid head_branch", "%s. Use a name git accepts, such as \"kalypso/dev\".", err)
		} else if s.Branch != nil {
			if err := CheckHeadBranch(*s.Branch, *s.HeadBranch, gitrepo.Tip{}); err != nil {
				add("pull_request.head_branch", "Head branch not allowed", "%s. Nothing was written.", err)
			}
		}
	}
	if s.PromotedCommitID != nil {
		if err := ValidatePromotedCommitID(*s.PromotedCommitID); err != nil {
			add("promoted_commit_id", "Invalid promoted_commit_id", "%s. Omit the attribute to write no promoted-commit file.", err)
		}
	}
	if s.Path != nil {
		if _, err := gitrepo.CleanPath(*s.Path); err != nil {
			add("path", "Invalid path", "%s. Use a relative directory such as \"clusters\" or \".\".", err)
		}
	}
	return out
}
