// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

const (
	// DefaultCommitMessage is commit_message's default: an apply then generates its message from the change
	// (CommitMessage).
	DefaultCommitMessage = "Update GitOps repository (kalypso_gitops_commit)"
	// PullRequestNone is the pull-request state recorded when an apply had nothing to propose.
	PullRequestNone = "none"
)

// Resource is one kalypso_gitops_commit's configuration, in plain values.
type Resource struct {
	RepoURL, Branch string
	// Path is the managed directory, cleaned (gitrepo.CleanPath: "" for the root).
	Path         string
	CreateBranch bool
	// PromotedCommitID is nil when the resource writes no promoted-commit file.
	PromotedCommitID *string
	// PullRequest is nil in direct mode.
	PullRequest *PullRequest
	// Render is true in render mode: the folders under Path are cluster types.
	Render bool
	// Message is the configured commit message; DefaultCommitMessage (or "") asks for CommitMessage's.
	Message          string
	Author           gitrepo.Signature
	MaxChanges       int
	MaxDeletePercent int
	// Adopt is adopt: take over a path whose ownership record another resource wrote (owner.go).
	Adopt bool
	// AdoptedFrom is the commit whose ownership record this resource took over ("" when it claimed the
	// path first): part of the record it writes (OwnerRecord).
	AdoptedFrom string
}

// PullRequest is the configuration of pull-request mode.
type PullRequest struct {
	// HeadBranch is the configured head branch, "" for the default (HeadBranch).
	HeadBranch, Title string
	Labels            []string
}

// ReadBranch is the branch a plan or a refresh reads instead of Branch: the head branch while the pull
// request the state records (prState) is open, since that proposal is the content Terraform delivered;
// "" otherwise.
func (r Resource) ReadBranch(prState string) string {
	if r.PullRequest == nil || prState != githubpr.StateOpen {
		return ""
	}
	return HeadBranch(r.Branch, r.PullRequest.HeadBranch)
}

// RefreshRequest reads what the resource delivered; prNumber is the pull request the state records (0 for none).
func (r Resource) RefreshRequest(prNumber int) RefreshRequest {
	req := RefreshRequest{RepoURL: r.RepoURL, Branch: r.Branch, Path: r.Path}
	if r.PullRequest != nil && prNumber != 0 {
		req.PullRequest, req.HeadBranch = prNumber, HeadBranch(r.Branch, r.PullRequest.HeadBranch)
	}
	return req
}

// Desired is what the resource delivers: files under its path (or the tree recordedTree names, with
// files nil), its ownership record, and the promoted-commit file, removed when priorPromoted and no
// longer configured.
func (r Resource) Desired(files map[string][]byte, recordedTree string, priorPromoted bool) Desired {
	d := Desired{Path: r.Path, Files: files, RecordedTree: recordedTree, RootFiles: map[string][]byte{MarkerPath(r.Path): OwnerRecord(displayPath(r.Path), r.AdoptedFrom)}}
	if rel, under := r.PromotedUnderPath(); under {
		// The promoted-commit file lies under path (path = ".github"): it is one of the managed files, or
		// the change set would delete it as undesired and write it back as a root file on every apply.
		if r.PromotedCommitID != nil && files != nil {
			d.Files = make(map[string][]byte, len(files)+1)
			for k, v := range files {
				d.Files[k] = v
			}
			d.Files[rel] = []byte(*r.PromotedCommitID)
		}
		return d
	}
	if r.PromotedCommitID != nil {
		d.RootFiles[PromotedCommitFile] = []byte(*r.PromotedCommitID)
	} else if priorPromoted {
		d.DeleteRootFiles = []string{PromotedCommitFile}
	}
	return d
}

// PromotedUnderPath returns the promoted-commit file's name relative to the path when the path contains
// it (path = ".github" or ".github/tracking"). A plan then cannot reuse a recorded tree, which does not
// depend on promoted_commit_id.
func (r Resource) PromotedUnderPath() (string, bool) {
	if r.Path == "" { // the root: the file is under the dot-entry .github, which is never managed
		return "", false
	}
	rel, ok := strings.CutPrefix(PromotedCommitFile, r.Path+"/")
	return rel, ok
}

// Removal is what destroying the resource delivers: nothing under its path, no ownership record, and no
// promoted-commit file when it wrote one.
func (r Resource) Removal() Desired {
	d := Desired{Path: r.Path, Files: map[string][]byte{}, DeleteRootFiles: []string{MarkerPath(r.Path)}}
	if r.PromotedCommitID != nil {
		d.DeleteRootFiles = append(d.DeleteRootFiles, PromotedCommitFile)
	}
	return d
}

// RemovalRequest is the apply of a destroy. Its commit (and pull request) always says that it is a
// removal, whatever commit_message holds: a configured message describes the resource's updates, and a
// removal under an update's message hides from `git log` that the environment was emptied.
func (r Resource) RemovalRequest() DeliverRequest {
	req := r.DeliverRequest(r.Removal(), "", r.PromotedCommitID, "", true)
	req.Removal = true
	req.Apply.Describe = CommitMessage{Path: r.Path, Branch: r.Branch, Render: r.Render, Removal: true}.Describe
	return req
}

// PlanRequest is the plan of want against the branch. lastTree is the managed tree the refreshed state
// records ("" without state) and prState the state's pull-request state.
func (r Resource) PlanRequest(want Desired, lastTree, prState string) PlanRequest {
	return PlanRequest{
		RepoURL: r.RepoURL, Branch: r.Branch, ReadBranch: r.ReadBranch(prState), CreateBranch: r.CreateBranch,
		PullRequest: r.PullRequest != nil, Desired: want, LastTree: lastTree, MaxChanges: r.MaxChanges, MaxDeletePercent: r.MaxDeletePercent,
		HeadBranch: r.headBranch(),
	}
}

// headBranch is the pull request's head branch, "" in direct mode.
func (r Resource) headBranch() string {
	if r.PullRequest == nil {
		return ""
	}
	return HeadBranch(r.Branch, r.PullRequest.HeadBranch)
}

// DeliverRequest is the apply of want. priorPromoted is the promoted commit before the apply (nil for
// none, or on create); expected is Planned.ExpectedTree; existingOnly refuses to create a missing branch
// (destroy).
func (r Resource) DeliverRequest(want Desired, message string, priorPromoted *string, expected string, existingOnly bool) DeliverRequest {
	req := DeliverRequest{
		Apply: gitrepo.ApplyRequest{
			RepoURL: r.RepoURL, Branch: r.Branch, Path: want.Path,
			Files: want.Files, Tree: want.Built, RootFiles: want.RootFiles, DeleteRootFiles: want.DeleteRootFiles,
			Message: message, Author: r.Author,
			NoCreate: existingOnly || !r.CreateBranch, Orphan: true, ExpectedManagedTree: expected,
		},
		PromotedChanged: r.PromotedCommitID != nil && (priorPromoted == nil || *priorPromoted != *r.PromotedCommitID),
	}
	if r.PromotedCommitID != nil {
		req.PromotedCommitID = *r.PromotedCommitID
	}
	if message == "" || message == DefaultCommitMessage {
		req.Apply.Describe = CommitMessage{Path: r.Path, Branch: r.Branch, Render: r.Render, PromotedCommitID: req.PromotedCommitID}.Describe
	}
	if r.PullRequest != nil {
		req.Title, req.Labels, req.Apply.HeadBranch = r.PullRequest.Title, r.PullRequest.Labels, r.headBranch()
		req.Apply.HeadMarker = HeadMarker(req.Apply.HeadBranch)
	}
	return req
}

// PullRequestRecord is what the state records of the pull request; Number 0 is none.
type PullRequestRecord struct {
	Number     int
	URL, State string
}

// PullRequestAfter is what the state records after an apply in pull-request mode: the pull request the
// apply opened or updated; when it had nothing to propose (the base already holds the desired content),
// the prior one, or none.
func PullRequestAfter(opened, closed *githubpr.PR, prior PullRequestRecord) PullRequestRecord {
	switch {
	case opened != nil:
		return PullRequestRecord{Number: opened.Number, URL: opened.URL, State: opened.State}
	case closed != nil:
		// The apply closed the proposal it had nothing left for (Deliver): the next refresh reads it closed.
		return PullRequestRecord{Number: closed.Number, URL: closed.URL, State: closed.State}
	case prior.Number == 0:
		return PullRequestRecord{State: PullRequestNone}
	case prior.State == "":
		prior.State = PullRequestNone
	}
	return prior
}

// Planned is what the plan of an apply settled; a value is "" where the plan left it unknown.
type Planned struct {
	// ContentHash is the desired managed tree; BaseTree the tree the change set was computed against.
	ContentHash, BaseTree string
	// CommitKnown is true when the plan kept commit_sha: it found nothing to write.
	CommitKnown bool
	PullRequest bool
}

// Check refuses an apply whose desired tree (or the error computing it) is not the one the plan showed:
// the apply delivers exactly the planned tree.
func (p Planned) Check(tree string, err error) error {
	if p.ContentHash == "" || (err == nil && tree == p.ContentHash) {
		return nil
	}
	return &Error{Summary: "The desired tree differs from the plan", Err: fmt.Errorf(
		"the plan was for tree %s, the apply computed %s (%v). Nothing was written; run terraform plan again", p.ContentHash, tree, err)}
}

// ExpectedTree is the managed tree the branch must hold when the apply writes (gitrepo.ApplyRequest's
// ExpectedManagedTree; "" for no check): the tree the change set was computed against, or, when the plan
// found nothing to write, the desired tree itself. Pull-request mode writes a head branch the provider
// owns and checks nothing.
func (p Planned) ExpectedTree() string {
	switch {
	case p.PullRequest || p.BaseTree == "" || p.ContentHash == "":
		return ""
	case p.CommitKnown:
		return p.ContentHash
	default:
		return p.BaseTree
	}
}

// Applied fills what the plan left unknown once tree is delivered: content_hash is the tree, and the base
// tree, for the next plan, is what the branch now holds.
func (p Planned) Applied(tree string) (contentHash, baseTree string) {
	contentHash, baseTree = p.ContentHash, p.BaseTree
	if contentHash == "" {
		contentHash = tree
	}
	if baseTree == "" {
		baseTree = contentHash
	}
	return contentHash, baseTree
}

// Recorded is what the state holds of a delivery that a refresh may change.
type Recorded struct {
	// ContentHash is the managed tree under the path (after a refresh also the base tree of the next plan).
	ContentHash string
	CommitSHA   string
	// PromotedCommitID is nil when the resource writes no promoted-commit file (or the branch holds none).
	PromotedCommitID *string
}

// Update refreshes s from what the branch holds. Files under the path that changed out of band (including
// a push whose answer was lost, or an apply killed after its push landed) move commit_sha to the head
// that now holds them; a resource that writes the promoted-commit file reads it back.
func (f *Refreshed) Update(s Recorded) Recorded {
	out := Recorded{ContentHash: f.ManagedTree, CommitSHA: s.CommitSHA}
	if s.CommitSHA == "" || s.ContentHash != f.ManagedTree {
		out.CommitSHA = f.HeadSHA
	}
	if s.PromotedCommitID != nil {
		if v, ok := f.RootFiles[PromotedCommitFile]; ok {
			id := string(v)
			out.PromotedCommitID = &id
		}
	}
	return out
}
