// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// PlanRequest is what a plan needs to compute the change set against a branch.
type PlanRequest struct {
	RepoURL string
	// Branch is the branch written (the pull request's base in PR mode).
	Branch string
	// ReadBranch is the branch whose tree the change set is computed against: Branch, or in PR mode the
	// head branch of an open pull request (Branch when that head branch is gone).
	ReadBranch   string
	CreateBranch bool
	PullRequest  bool
	// HeadBranch is the pull request's head branch in pull-request mode, checked by CheckHeadBranch.
	HeadBranch string
	Desired    Desired
	// LastTree is the managed tree id the refreshed state recorded ("" when there is no state): a branch that
	// holds anything else changed between the refresh and this plan.
	LastTree         string
	MaxChanges       int
	MaxDeletePercent int
	// Vacating is the old path of a move on this branch, which the same commit empties: a path that differs
	// from it only in letter case is a rename, not a collision.
	Vacating string
}

// Error is a refused plan or a failed apply: the attribute it concerns ("" for none), a summary, what was
// found, and for Git errors what to do (Hint).
type Error struct {
	Attribute string
	Summary   string
	Err       error
	Hint      string
}

func (e *Error) Error() string { return e.Summary + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// gitError wraps a Git error with its hint and attribute. summary says what failed; a missing
// repository, a failed authentication and a missing branch are named instead (gitrepo.Problem).
func gitError(summary string, err error) *Error {
	hint, attr := ErrorHint(err)
	if p := gitrepo.Problem(err); p != "" {
		summary = p
	}
	return &Error{Attribute: attr, Summary: summary, Err: err, Hint: hint}
}

// ReadBranch reads the branch and computes the change set, refusing what makes it meaningless: a head
// branch the resource may not write, a branch changed since the refresh, a path that is a file, a
// missing branch. Plan.Markers lists every other resource's ownership record above or below the path.
// It never writes to the repository.
func ReadBranch(ctx context.Context, c *gitrepo.Client, req PlanRequest) (*Plan, error) {
	inspect := func(branch string) (*gitrepo.Inspection, error) {
		return c.Inspect(ctx, branchInspection(req.RepoURL, branch, req.Desired.Path, false))
	}
	if req.PullRequest {
		if err := checkHead(ctx, c, req); err != nil {
			return nil, err
		}
	}
	readBranch := req.ReadBranch
	if readBranch == "" {
		readBranch = req.Branch
	}
	ins, err := inspect(readBranch)
	if err == nil && !ins.BranchExists && readBranch != req.Branch {
		readBranch = req.Branch // the head branch is gone: plan against the base
		ins, err = inspect(readBranch)
	}
	if err != nil {
		return nil, gitError("Cannot read the Git repository", err)
	}
	if req.LastTree != "" && ins.BranchExists && req.LastTree != ins.ManagedTree {
		// The state was refreshed when this plan was made, and Terraform plans again right before it applies
		// a saved plan: a difference here means the files under path changed in between (or the plan runs
		// with -refresh=false after out-of-band edits). The saved plan no longer shows what would happen.
		return nil, &Error{Attribute: "path", Summary: "The branch changed since the plan", Err: fmt.Errorf(
			"the files under path on branch %q are now Git tree %s, but the plan was made against tree %s. "+
				"Nothing was written. Run terraform plan again (with refresh) and review the new changes before applying", readBranch, ins.ManagedTree, req.LastTree)}
	}
	if ins.PathFile != "" {
		return nil, &Error{Attribute: "path", Summary: "path names a file", Err: fmt.Errorf(
			"%q is a file on branch %q, so path %q cannot be a directory there; the apply would delete that file, which no plan lists. "+
				"Nothing was written. Choose a path that is a directory or does not exist yet, or remove the file first", ins.PathFile, readBranch, displayPath(req.Desired.Path))}
	}
	if ins.CaseTwin != "" && ins.CaseTwin != req.Vacating {
		return nil, caseTwinError(req.Desired.Path, ins.CaseTwin, readBranch)
	}
	if !ins.BranchExists && (!req.CreateBranch || req.PullRequest) {
		return nil, missingBranch(readBranch, ins.Branches, req.PullRequest)
	}
	compute := func(ins *gitrepo.Inspection) (*Plan, error) {
		return Compute(ins, req.Desired, Options{MaxChanges: req.MaxChanges}, func(ids []string) (map[string][]byte, error) {
			return c.ReadBlobs(req.RepoURL, ids)
		})
	}
	p, err := compute(ins)
	if c.DiscardDamagedCache(ctx, req.RepoURL, err) {
		// The inspection came from its record (or read the head only); the trees and blobs the change set
		// needs were damaged in the cache. It is fetched again: read once more, as Inspect itself would.
		if ins, err = inspect(readBranch); err == nil {
			p, err = compute(ins)
		}
	}
	if err != nil {
		return nil, &Error{Summary: "Cannot compute the change set", Err: err}
	}
	p.Markers = append(append([]string(nil), ins.Markers...), p.Markers...)
	sort.Strings(p.Markers)
	p.Record = ins.RootFiles[MarkerPath(req.Desired.Path)]
	if req.PullRequest && readBranch != req.Branch && !p.Empty() {
		if p.Withdraws, err = withdraws(ctx, c, req, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// CheckBranchGuards refuses a change set p of the path that overlaps another resource's path (its
// Markers) or deletes more than maxDeletePercent of the files under it.
func CheckBranchGuards(path string, p *Plan, maxDeletePercent int) error {
	if err := CheckOverlap(path, p.Markers); err != nil {
		return &Error{Attribute: "path", Summary: "Overlapping paths on one branch", Err: fmt.Errorf("%w. Nothing was written", err)}
	}
	if p.Withdraws {
		return nil // the deletions are the open proposal's: the base branch loses nothing
	}
	if err := CheckMassDeletion(p.CurrentFiles, p.Deleted(), maxDeletePercent); err != nil {
		return &Error{Attribute: "max_delete_percent", Summary: "The change deletes most files under path", Err: fmt.Errorf("%w. Nothing was written", err)}
	}
	return nil
}

// branchInspection is what a refresh and a plan read of a branch under path: the same request, so that the
// plan finds what the refresh of the same commit read (gitrepo.Client.InspectionDir) instead of reading
// the objects again. The refresh needs only the promoted-commit file of the root files, the plan also the
// ownership records.
func branchInspection(repoURL, branch, path string, listFiles bool) gitrepo.InspectRequest {
	return gitrepo.InspectRequest{RepoURL: repoURL, Branch: branch, Path: path, RootFiles: []string{PromotedCommitFile, MarkerPath(path)}, Marker: OwnerMarker, ListFiles: listFiles}
}

// pathIsFile is the error of a refresh (an import) whose path is, or lies below, file on the branch: the
// resource manages a directory.
func pathIsFile(file, path, branch string) *Error {
	return &Error{Attribute: "path", Summary: "Path is a file", Err: fmt.Errorf(
		"%q is a file on branch %q, so path %q is not a directory; kalypso_gitops_commit manages the files under a directory. "+
			"Use the directory that holds it (or a new one). Nothing was written", file, branch, displayPath(path))}
}

// checkHead refuses, before anything is computed, a head branch the resource may not write.
func checkHead(ctx context.Context, c *gitrepo.Client, req PlanRequest) error {
	head := HeadBranch(req.Branch, req.HeadBranch)
	tip := gitrepo.Tip{}
	if head != req.Branch {
		var err error
		if tip, err = c.ReadTip(ctx, req.RepoURL, head); err != nil {
			return gitError("Cannot read the Git repository", err)
		}
	}
	if err := CheckHeadBranch(req.Branch, head, tip); err != nil {
		return &Error{Attribute: "pull_request.head_branch", Summary: "Head branch not allowed", Err: fmt.Errorf("%w. Nothing was written", err)}
	}
	return nil
}

// RefreshRequest is what a refresh reads.
type RefreshRequest struct {
	RepoURL, Branch, Path string
	// PullRequest is the number of the pull request the state records (0 for none): Refresh reads its state,
	// and while it is open reads HeadBranch instead of Branch (Branch when HeadBranch is gone).
	PullRequest int
	HeadBranch  string
	// Files, when true, reads the managed files' content (files mode); Known is what the state holds.
	Files bool
	Known map[string]string
}

// Refreshed is what a refresh found. Gone is true when the repository or the branch provably no longer exists.
type Refreshed struct {
	*gitrepo.Inspection
	Files map[string]string
	// PullRequest is the pull request RefreshRequest.PullRequest names, as GitHub has it now.
	PullRequest *githubpr.PR
	Gone        error
}

// Refresh reads what the branch holds under the path, and the state of the pull request in pull-request mode.
func Refresh(ctx context.Context, c *gitrepo.Client, gh GitHub, req RefreshRequest) (*Refreshed, error) {
	inspect := func(b string) (*gitrepo.Inspection, error) {
		return c.Inspect(ctx, branchInspection(req.RepoURL, b, req.Path, req.Files))
	}
	var pr *githubpr.PR
	branch := req.Branch
	if req.PullRequest != 0 {
		got, err := ReadPullRequest(ctx, gh, req.RepoURL, req.PullRequest)
		if err != nil {
			return nil, err
		}
		if pr = &got; got.State == githubpr.StateOpen && req.HeadBranch != "" {
			branch = req.HeadBranch // the open proposal is the content Terraform delivered; edits to it are drift
		}
	}
	ins, err := inspect(branch)
	if err == nil && !ins.BranchExists && branch != req.Branch {
		branch = req.Branch // the head branch is gone: compare with the base
		ins, err = inspect(branch)
	}
	if err == nil && !ins.BranchExists {
		err = &gitrepo.Error{Op: "read", Repo: req.RepoURL, Branch: branch, Err: gitrepo.ErrBranchNotFound}
	}
	if errors.Is(err, gitrepo.ErrRepositoryNotFound) || errors.Is(err, gitrepo.ErrBranchNotFound) {
		return &Refreshed{Gone: err, PullRequest: pr}, nil
	}
	if err != nil {
		return nil, gitError("Cannot read the Git repository", err)
	}
	if ins.PathFile != "" {
		return nil, pathIsFile(ins.PathFile, req.Path, branch)
	}
	out := &Refreshed{Inspection: ins, PullRequest: pr}
	if req.Files {
		if out.Files, err = ReadManaged(ins, req.Known, func(ids []string) (map[string][]byte, error) { return c.ReadBlobs(req.RepoURL, ids) }); err != nil {
			return nil, gitError("Cannot read the Git repository", err)
		}
	}
	return out, nil
}

// missingBranch is the refusal of a plan whose branch does not exist (and may not be created).
func missingBranch(branch string, branches []string, pullRequest bool) *Error {
	hint := ""
	if pullRequest {
		hint = " In pull-request mode the base branch must exist."
	}
	return &Error{Attribute: "branch", Summary: "Git branch does not exist", Err: fmt.Errorf("%w.%s Nothing was written", MissingBranch(branch, branches), hint)}
}

// caseTwinError refuses a path that differs from twin, a directory or file on the branch, only in letter
// case (gitrepo.Inspection.CaseTwin).
func caseTwinError(path, twin, branch string) *Error {
	return &Error{Attribute: "path", Summary: "Paths that differ only in letter case", Err: fmt.Errorf(
		"path %q and %q on branch %q differ only in letter case: a checkout on Windows or macOS (a cluster's, a reviewer's) holds one directory "+
			"for both, so the two trees would mix there, and each apply would change the other's files. Nothing was written. Use the spelling "+
			"the branch has (%q) or another name, or rename %q on the branch first", displayPath(path), twin, branch, twin, twin)}
}
