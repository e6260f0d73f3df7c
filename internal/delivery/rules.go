// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

const (
	// PromotedCommitFile is where upstream Kalypso records the promoted commit, at the repository root.
	PromotedCommitFile = model.PromotedCommitFile
	// OwnerMarker is the ownership record written at the root of a resource's path (see the package doc).
	OwnerMarker = ".kalypso-gitops-commit"
	// LabelPromoted is added to a pull request that changes the promoted commit, as upstream does.
	LabelPromoted = "promoted"
	// DefaultMaxDeletePercent is the share of the files under path one change may delete by default.
	DefaultMaxDeletePercent = 50
	// MassDeletionMinFiles is the number of files under path below which the mass-deletion guard is off.
	MassDeletionMinFiles = 10
)

// MarkerContent is the content of the ownership record of path (root-relative, "." for the root).
func MarkerContent(path string) []byte {
	return []byte("# Written by terraform-provider-kalypso: kalypso_gitops_commit manages the files under this directory.\n" +
		"# Another kalypso_gitops_commit on this branch may not use a path above or below it.\npath: " + path + "\n")
}

// MarkerPath is the root-relative path of the ownership record of path.
func MarkerPath(path string) string { return join(path, OwnerMarker) }

var commitID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// ValidatePromotedCommitID accepts a full commit id: 40 hexadecimal digits (SHA-1) or 64 (SHA-256),
// lower case, as upstream's BaseRepo spec.commit and `git rev-parse` give it.
func ValidatePromotedCommitID(id string) error {
	if !commitID.MatchString(id) {
		return fmt.Errorf("%q is not a full commit id; use the 40 lower-case hexadecimal digits of `git rev-parse HEAD` (64 in a SHA-256 repository), not a short id, a branch or an empty string", id)
	}
	return nil
}

// HeadBranch is the pull request's head branch: the configured one, or kalypso/<base>.
func HeadBranch(base, configured string) string {
	if configured != "" {
		return configured
	}
	return "kalypso/" + base
}

// HeadMarker is the trailer written into every commit of the head branch head: the proof that the branch
// is the provider's to move (gitrepo.ApplyRequest.HeadMarker).
func HeadMarker(head string) string { return "Kalypso-Head-Branch: " + head }

// Labels are the pull request's labels: the configured ones, plus LabelPromoted when the change moves the
// promoted commit.
func Labels(configured []string, promotedChanged bool) []string {
	out := append([]string(nil), configured...)
	if promotedChanged {
		for _, l := range out {
			if l == LabelPromoted {
				return out
			}
		}
		out = append(out, LabelPromoted)
	}
	return out
}

// join makes a root-relative path of a path-relative name; dir "" or "." is the root.
func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// ValidatePullRequestURL checks that a repository URL can name a GitHub repository: pull requests are opened
// through the GitHub API, which a file:// URL or a local path cannot reach (git_url_rewrites may still point
// the Git traffic of a GitHub URL elsewhere).
func ValidatePullRequestURL(repoURL string) error {
	u := strings.TrimSpace(repoURL)
	lower := strings.ToLower(u)
	switch {
	case strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "ssh://"):
	case !strings.Contains(u, "://") && strings.Contains(u, "@") && strings.Contains(u, ":"): // scp-style git@host:owner/repo
	default:
		return fmt.Errorf("%q is not a GitHub repository URL (file:// URLs and local paths have no pull requests)", repoURL)
	}
	rest := u[strings.Index(u, ":")+1:]
	if i := strings.Index(u, "://"); i >= 0 {
		rest = u[i+3:]
		if j := strings.Index(rest, "/"); j >= 0 {
			rest = rest[j+1:]
		} else {
			rest = ""
		}
	}
	parts := strings.Split(strings.TrimSuffix(strings.Trim(rest, "/"), ".git"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return fmt.Errorf("%q does not name a GitHub repository as <owner>/<repo>", repoURL)
	}
	return nil
}
