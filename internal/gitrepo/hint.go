// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"io/fs"
	"strings"
)

// Fields names where the user sets each input of a Git operation, in the words of the caller's
// configuration, so that a hint says which attribute to fix: "repository_url" for kalypso_gitops_commit,
// "source.repo" for a workload registration, "git.repo" for the control-plane data source.
type Fields struct {
	Repo, Branch, Path string
	// Commit names the attribute that pins a commit of Branch ("git.commit"), if any.
	Commit string
	// HeadBranch names the pull request's head branch, for ErrForeignBranch ("" where there is none).
	HeadBranch string
	// Names is what names paths or files in the input, for ErrInvalidInput (Path when empty).
	Names string
	// Credentials names the caller's own credential attributes besides the provider's
	// ("token or ssh_private_key"); empty when only the provider's apply.
	Credentials string
	// Writes is true when the operation pushes: the credentials must allow it, and a failure wrote nothing.
	Writes bool
}

// classes are the sentinel errors in the order Class tests them.
var classes = []error{ErrCredentialsInURL, ErrLocalContent, ErrAuth, ErrRepositoryNotFound, ErrBranchNotFound, ErrPathNotFound,
	ErrCommitNotOnBranch, ErrStale, ErrConflict, ErrForeignBranch, ErrCorruptCache, ErrTimeout, ErrInvalidInput}

// Class returns the sentinel error err wraps (ErrAuth, ErrBranchNotFound, ...), or nil for none.
func Class(err error) error {
	for _, c := range classes {
		if errors.Is(err, c) {
			return c
		}
	}
	return nil
}

// Problem is the summary of an error of this package that names what is wrong, for the classes whose
// cause a user fixes in different places: a missing repository, a failed authentication, a missing
// branch. It is "" for the others, whose caller says what failed instead. Hint says what to do.
func Problem(err error) string {
	switch Class(err) {
	case ErrRepositoryNotFound:
		return "Git repository not found"
	case ErrAuth:
		return "Git authentication failed"
	case ErrBranchNotFound:
		return "Git branch does not exist"
	}
	return ""
}

// Hint says what to do about an error of this package and names the field it concerns ("" when the
// provider's configuration, the server or the machine is at fault). It is the one map from Git errors to
// advice: every resource and data source that reads or writes Git words its errors with it.
func Hint(err error, f Fields) (hint, attribute string) {
	switch Class(err) {
	case ErrCredentialsInURL:
		return "Remove credentials from " + f.Repo + " (and from the provider's git_url_rewrites) and set the provider's git_token " +
			"(or GIT_TOKEN/GITHUB_TOKEN) or ssh_private_key" + own(f) + " instead.", f.Repo
	case ErrAuth:
		may := "read"
		if f.Writes {
			may = "read and push"
		}
		attribute := ""
		if f.Credentials != "" {
			attribute = f.Repo // the resource's own credentials for that repository may be the ones at fault
		}
		return "Check the provider's git_token (GIT_TOKEN/GITHUB_TOKEN) for https, or ssh_private_key and ssh_known_hosts for ssh" + own(f) +
			", and that they may " + may + " the repository. The token goes only over https (over plain http only to a loopback host, with the provider's " +
			"allow_loopback_http), and to a URL that comes from repository content (a BaseRepo or WorkloadRegistration) only when git_url_rewrites maps it " +
			"or its host is in the provider's git_credential_hosts.", attribute
	case ErrLocalContent:
		return "Nothing was read. A repository URL in a control plane or Workload (" + f.Repo + ") may name a local repository (file:// or a path) " +
			"only when the provider sets allow_local_repositories_from_content = true, or when git_url_rewrites maps it; use an https or ssh URL.", f.Repo
	case ErrRepositoryNotFound:
		return "Check " + f.Repo + " and the provider's git_url_rewrites. The provider does not create repositories: create it first " +
			"(an empty one will do). A private repository the credentials may not read looks missing too (GitHub answers 404): " +
			"check that they can see it.", f.Repo
	case ErrBranchNotFound:
		return "Check " + f.Branch + ": it must name a branch that exists in the repository.", f.Branch
	case ErrPathNotFound:
		return "Check " + f.Path + ": it must be a directory on the branch head.", f.Path
	case ErrCommitNotOnBranch:
		what := f.Commit
		if what == "" {
			what = "the pinned commit"
		}
		return "Check " + what + ": it must be the head of " + f.Branch + " or one of its ancestors (a full SHA, or an unambiguous prefix of at least 7 hex digits). " +
			"A commit that exists only on another branch, or that a force-push removed, cannot be read.", f.Commit
	case ErrStale:
		return "Someone changed files under " + f.Path + " after the plan was made, so the plan no longer shows what the apply would do. " +
			"Nothing was written; run terraform plan (or apply) again and review the new changes.", ""
	case ErrConflict:
		return "Other writers kept updating the branch while this apply pushed; nothing was written. Apply again.", ""
	case ErrCorruptCache:
		return "This machine's copy of the repository is damaged (a disk or file-system fault, or another program writing to the provider's " +
			"cache_dir), not the remote. Remove the repository's directory under cache_dir, or all of cache_dir, and run again; check the disk.", ""
	case ErrForeignBranch:
		return "Nothing was written. Set " + f.HeadBranch + " to a branch that does not exist yet (the provider creates it), " +
			"or remove the commits others pushed to it.", f.HeadBranch
	case ErrTimeout:
		written := ""
		if f.Writes {
			written = "; nothing was written"
		}
		return "The Git server did not answer within the provider's git_timeout" + written +
			". Raise git_timeout (or KALYPSO_GIT_TIMEOUT) for slow or large remotes, or check the server.", ""
	case ErrInvalidInput:
		names := f.Names
		if names == "" {
			names = f.Path
		}
		return "Fix " + names + ".", ""
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "The provider process may not read or write the repository or its cache_dir on this machine: " +
			"check the file permissions of the local repository and of cache_dir.", ""
	case strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		return "TLS verification of the Git server failed (it is always on). For a server whose certificate comes from a private CA, " +
			"put that CA's PEM certificate in the provider's ca_certificates.", ""
	}
	// A host that does not resolve or answer: the URL is what the user checks first, so the error sits on it.
	return "The remote may be unreachable from this machine: check " + f.Repo + " (its host and port, and the provider's git_url_rewrites), then the network, and retry.", f.Repo
}

func own(f Fields) string {
	if f.Credentials == "" {
		return ""
	}
	return ", or this resource's " + f.Credentials
}
