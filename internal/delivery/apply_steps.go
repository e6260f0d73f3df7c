// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The apply of kalypso_gitops_commit is, like its plan (steps.go), an ordered list of named steps
// (ApplySteps) over plain values (Applying): each decides one thing about what the apply writes, and
// the first that refuses stops the apply before anything is written. The resource converts the planned
// values into an Applying, runs the steps, delivers the request they built (Deliver) and reports
// (Applying.Delivered).

import (
	"context"
	"fmt"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// ApplyStep is one named decision of an apply.
type ApplyStep struct {
	Name string
	Run  func(context.Context, *Applying) error
}

// Apply step names, in the order ApplySteps runs them.
const (
	ApplyStepKnown   = "known"
	ApplyStepWaves   = "waves"
	ApplyStepDesired = "desired"
	ApplyStepHold    = "hold"
	ApplyStepPlanned = "planned"
	ApplyStepWindow  = "window"
	ApplyStepRequest = "request"
	ApplyStepMove    = "move"
)

// ApplySteps are the steps of an apply that creates or updates the resource, in order:
//   - known: every input of the desired files is known (the plan guarantees it);
//   - waves: with a rollout, only the wave the plan admitted is written, the other folders keep their
//     bytes (Resource.HoldBack);
//   - desired: the desired tree and its id;
//   - hold: while a rollback's hold stands and the configuration renders the tree it rolled back, nothing
//     is written (Held);
//   - planned: the desired tree is the one the plan showed (Planned.Check);
//   - window: outside change_windows only break_glass lets the change through (CheckWindow, again at
//     apply time: the plan may have been made while the window was open);
//   - request: the delivery request, with the break-glass trailers and a rollback's commit message;
//   - move: the old side of a move, emptied in the same commit on the same branch; the open proposal of
//     the prior location, replaced unless the move's removal takes it away.
func ApplySteps() []ApplyStep {
	return []ApplyStep{
		{ApplyStepKnown, applyKnown},
		{ApplyStepWaves, applyWaves},
		{ApplyStepDesired, applyDesired},
		{ApplyStepHold, applyHold},
		{ApplyStepPlanned, applyPlanned},
		{ApplyStepWindow, applyWindow},
		{ApplyStepRequest, applyRequest},
		{ApplyStepMove, applyMove},
	}
}

// RunApply runs steps over a in order and returns the first step's error; the later steps do not run.
// A step that finds nothing to write sets a.Held, and the later steps do not run either.
func RunApply(ctx context.Context, a *Applying, steps []ApplyStep) error {
	for _, s := range steps {
		if err := s.Run(ctx, a); err != nil || a.Held {
			return err
		}
	}
	return nil
}

// Applying is one apply of the resource as it passes through the steps: its inputs, then what each step
// decided.
type Applying struct {
	// ID is the resource's id, for messages.
	ID string
	// Resource is the planned configuration; Git writes its location.
	Resource Resource
	Git      *gitrepo.Client
	// Store keeps the plan's wave decisions and stamps (nil: none).
	Store *RenderStore

	// Known is false when an input of the desired files is still unknown.
	Known bool
	// Files are the desired files; nil when Built holds them.
	Files map[string][]byte
	// Built is the desired tree the render built or the render store kept (nil: built from Files).
	Built *gitrepo.Tree
	// RolledBack is the rollback the apply writes (nil: none); its Auto is the one a halted rollout proposed.
	RolledBack *RolledBack
	// Rolling is true with a rollout; Waves are the planned waves it writes (none for an automatic rollback).
	Rolling bool
	Waves   []PlannedWave
	// Planned is what the plan settled.
	Planned Planned
	// Hold is the hold the prior private state records (nil: none); ReleaseHold is release_hold;
	// RollbackSet is true when rollback is configured.
	Hold                     *Hold
	ReleaseHold, RollbackSet bool
	// Window is change_windows and break_glass; BreakGlassUsed is the last break-glass apply's record.
	Window         WindowConfig
	BreakGlassUsed *BreakGlassRecord
	Now            time.Time
	// Prior is the state before the apply (nil on create).
	Prior *AppliedBefore
	// Move is the old side of a planned move (nil for none).
	Move *MoveRecord
	// Markdown is the change set's Markdown summary the plan showed ("" while unknown).
	Markdown string

	// Desired is the desired tree and TreeID its id (or TreeErr).
	Desired Desired
	TreeID  string
	TreeErr error
	// Held is true when a hold stands: nothing is written.
	Held bool
	// HeldFolders are the folders a rollout's per-folder hold kept at the branch's content (holdfolders.go);
	// Branch is the branch as the waves step read it, before the apply (nil without a rollout).
	HeldFolders map[string]bool
	Branch      *gitrepo.Inspection
	// BreakGlass is the break-glass that lets the change through a closed window (nil: none needed).
	BreakGlass *BreakGlass
	// Request is what Deliver does.
	Request DeliverRequest
	// Vacated is true when the request also empties the old side of a move on the same branch.
	Vacated bool
}

// AppliedBefore is what the state records before an update.
type AppliedBefore struct {
	// Resource is the state's configuration, the old side of a move.
	Resource Resource
	// CommitSHA, ContentHash and DeletionReference are the state's commit_sha, content_hash and
	// deletion_reference; PromotedCommitID its promoted_commit_id (nil when null).
	CommitSHA, ContentHash, DeletionReference string
	PromotedCommitID                          *string
	// Proposal is the pull request the state records as open (nil: none).
	Proposal *Proposal
}

// applyKnown refuses an apply whose desired files are not known: the plan keeps the change set unknown
// then, and Terraform applies only a plan whose inputs are known.
func applyKnown(_ context.Context, a *Applying) error {
	if a.Known {
		return nil
	}
	return &Refusal{Summary: "Cannot deliver an unknown file set", Detail: fmt.Sprintf(
		"kalypso_gitops_commit %s: an input of files or render is still unknown at apply time. This is a bug in the provider; please report it.", a.ID)}
}

// applyWaves narrows a rollout's apply to the wave the plan admitted: the other folders keep the
// branch's bytes, the promoted commit moves with the last wave. The rollback a halted rollout proposed
// writes every wave, and keeps the promoted commit the hold-back finds. The plan's kept wave decisions
// are dropped: the next plan decides afresh.
func applyWaves(ctx context.Context, a *Applying) error {
	if !a.Rolling {
		return nil
	}
	if a.Hold.PerFolder(true) && a.RolledBack == nil && !a.RollbackSet && !a.ReleaseHold && a.Move == nil {
		a.HeldFolders = a.Hold.HeldFolders(FolderDigests(fileBlobs(a.Files)))
	}
	files, promoted, branch, err := a.Resource.HoldBack(ctx, a.Git, a.Files, a.Waves, a.HeldFolders)
	if err != nil {
		return err
	}
	a.Branch = branch
	if a.RolledBack == nil || !a.RolledBack.Auto {
		a.Files = files
	}
	a.Resource.PromotedCommitID = promoted
	a.Store.DropWaves(a.ID)
	return nil
}

// applyDesired is the desired tree and its id. A rollout's tree is built from the narrowed files, never
// from the render's tree.
func applyDesired(_ context.Context, a *Applying) error {
	a.Desired = a.Resource.Desired(a.Files, "", a.Prior != nil && a.Prior.PromotedCommitID != nil)
	if !a.Rolling {
		a.Desired.Built = a.Built
	}
	a.TreeID, a.TreeErr = a.Desired.TreeID()
	return nil
}

// applyHold writes nothing while a hold stands: the plan found the rolled-back tree held and planned no
// change, but the configuration changed otherwise (rollback removed), so Terraform applies.
// release_hold writes it on purpose. A tree that could not be computed holds nothing: the planned step
// refuses it. With a rollout and a per-folder hold, the waves step kept the held folders as the branch
// holds them, and a plan that writes nothing is held when it held a folder.
func applyHold(_ context.Context, a *Applying) error {
	if a.Hold.PerFolder(a.Rolling) {
		a.Held = a.TreeErr == nil && a.Planned.CommitKnown && len(a.HeldFolders) > 0
		return nil
	}
	a.Held = a.TreeErr == nil && !a.ReleaseHold && a.Planned.CommitKnown && a.Hold.Holds(a.TreeID, a.RollbackSet)
	return nil
}

// HoldAfter is the hold the state records after this apply wrote: a rollback holds the tree it replaced
// (and, with a rollout, each folder it changed, with the folders an earlier hold still holds); with a
// rollout, a change that is no rollback leaves held the folders it did not write, unless release_hold
// released them all; any other change ends the hold (nil).
func (a *Applying) HoldAfter(now time.Time) *Hold {
	if a.Prior == nil {
		return nil
	}
	if a.RolledBack != nil {
		h := HoldAfter(a.RolledBack, a.Prior.ContentHash, a.Prior.CommitSHA, now)
		if h != nil && a.Rolling && a.Branch != nil {
			h.Folders = HoldFolders(a.Hold, FolderDigests(branchBlobs(a.Branch)), FolderDigests(fileBlobs(a.Files)))
		}
		return h
	}
	if !a.Hold.PerFolder(a.Rolling) || a.ReleaseHold {
		return nil
	}
	return a.Hold.After(FolderDigests(fileBlobs(a.Files)))
}

// applyPlanned refuses an apply whose desired tree is not the one the plan showed.
func applyPlanned(_ context.Context, a *Applying) error {
	return a.Planned.Check(a.TreeID, a.TreeErr)
}

// applyWindow decides the change window again at apply time.
func applyWindow(_ context.Context, a *Applying) error {
	if !a.Window.Known || a.Window.Calendar == nil {
		return nil
	}
	v := CheckWindow(WindowFacts{Calendar: a.Window.Calendar, Now: a.Now, Writes: !a.Planned.CommitKnown, Tree: a.TreeID,
		BreakGlass: a.Window.BreakGlass, Used: a.BreakGlassUsed, Apply: true, Rollback: a.RolledBack != nil})
	a.BreakGlass = v.BreakGlass
	if v.Err != nil {
		return v.Err
	}
	return nil
}

// applyRequest is the delivery request: the desired tree against the tree the plan expects, the
// break-glass trailers, a rollback's message naming both commits, and the plan's Markdown summary as a
// pull request's body.
func applyRequest(_ context.Context, a *Applying) error {
	var priorPromoted *string
	if a.Prior != nil {
		priorPromoted = a.Prior.PromotedCommitID
	}
	s := a.Resource
	req := s.DeliverRequest(a.Desired, s.Message, priorPromoted, a.Planned.ExpectedTree(), false)
	if a.BreakGlass != nil {
		req.Apply.Trailers = a.BreakGlass.Trailers()
	}
	if a.Prior != nil && a.RolledBack != nil {
		m := CommitMessage{Path: s.Path, Branch: s.Branch, Render: s.Render, PromotedCommitID: req.PromotedCommitID}
		req.Apply.Describe = RollbackMessage(m, a.RolledBack.To, a.Prior.CommitSHA)
		if req.Title == "" && s.PullRequest != nil {
			req.Title = fmt.Sprintf("Roll back branch %s to %s", s.Branch, a.RolledBack.To)
		}
	}
	if a.Markdown != "" && a.Markdown != NoChangeMarkdown {
		req.Body = a.Markdown // the pull request shows what the plan showed
	}
	a.Request = req
	return nil
}

// applyMove empties the old side of a move on the same branch in the same commit, and lets a move
// within one repository reuse the old branch's objects. The open proposal of the prior location is
// replaced (updated in place or closed), unless a move elsewhere leaves it to its removal, which
// proposes on the same head branch.
func applyMove(_ context.Context, a *Applying) error {
	if a.Prior == nil {
		return nil
	}
	if a.Move != nil {
		from, key := a.Prior.Resource, a.Git.RepositoryKey
		switch {
		case SameBranch(from, a.Resource, key):
			a.Request, a.Vacated = a.Resource.MoveInOneCommit(a.Request, from, a.Move.Tree), true
		case key(from.RepoURL) == key(a.Resource.RepoURL): // the remote has the old side's objects on the old branch
			a.Request.Apply.ReuseBranch, a.Request.Apply.ReusePath = from.Branch, from.Path
		}
	}
	if a.Move == nil || a.Vacated {
		a.Request.Replaces = a.Prior.Proposal
	}
	return nil
}

// AppliedValues are what the state records after a delivery where the plan left them unknown.
type AppliedValues struct {
	// ContentHash is the delivered tree; BaseTree what the branch now holds, for the next plan.
	ContentHash, BaseTree string
	// DeletionReference is the mass-deletion reference after the apply (the prior's, unless a move).
	DeletionReference int
	// StampKey is the plan stamp this apply used up (the render store drops it).
	StampKey string
}

// Delivered is what the state records after the request was delivered; configKey fingerprints the
// render inputs (StampKeyFor).
func (a *Applying) Delivered(configKey string) AppliedValues {
	files := len(a.Desired.Files)
	if a.Desired.Built != nil {
		files = a.Desired.Built.Len()
	}
	var v AppliedValues
	var priorCommit, priorContent string
	priorRef := 0
	if a.Prior != nil {
		priorCommit, priorContent = a.Prior.CommitSHA, a.Prior.ContentHash
		if a.Move == nil {
			priorRef = ParseReference(a.Prior.DeletionReference)
		}
	}
	v.DeletionReference = DeletionReference(priorRef, files, a.Resource.MaxDeletePercent)
	v.ContentHash, v.BaseTree = a.Planned.Applied(a.TreeID)
	v.StampKey = StampKeyFor(a.ID, priorCommit, priorContent, configKey, a.TreeID)
	return v
}
