// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The plan of kalypso_gitops_commit is an ordered list of named steps (PlanSteps), as
// fluxcd/source-controller's reconcilers are: each step is a plain function over a Planning, with its own
// test. The resource's ModifyPlan converts Terraform's values into a Planning, runs the steps and
// reports what they decided. A step that refuses the plan returns an error (a *Refusal, or ErrReported
// when the Renderer has reported it), and the later steps do not run. ARCHITECTURE.md says how to add one.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// Step is one named decision of a plan.
type Step struct {
	Name string
	Run  func(context.Context, *Planning) error
}

// Step names, in the order PlanSteps runs them.
const (
	StepIdentity    = "identity"
	StepOpenPR      = "open_pull_request"
	StepDestination = "destination"
	StepLocation    = "location"
	StepRollback    = "rollback"
	StepRender      = "render"
	StepInspect     = "inspect"
	StepHold        = "hold"
	StepGuards      = "guards"
	StepReference   = "deletion_reference"
	StepOwnership   = "ownership"
	StepProposal    = "proposal"
	StepOutcome     = "outcome"
	StepWindow      = "window"
	StepSummary     = "summary"
	StepDestroy     = "destroy"
)

// PlanSteps are the steps of a plan that creates or updates the resource, in order:
//   - identity: the repository's spelling, the id, and the removal side of a replacement;
//   - open_pull_request: the pull request the state records as open is not merged since (proposal.go);
//   - destination: a move's new location exists and may be read (destination.go);
//   - location: the claim of the location in this plan, and the old side of a move;
//   - rollback: with rollback, the desired files are those a commit of the branch held (rollback.go);
//   - render: the desired files (the render, or the files), unless a rollback set them;
//   - waves: with a rollout, the wave this apply writes, and the desired files narrowed to it (waves.go);
//   - last_known_good: with a rollout, the newest commit every expected cluster reported healthy, and each
//     wave's (lastknowngood.go); a halted rollout's automatic rollback (rollback.go, rollbackstatus.go);
//   - inspect: the change set against the branch;
//   - hold: while a rollback's hold stands and the configuration renders the tree it rolled back, nothing
//     is written (rollback.go);
//   - guards: the refusals that read the change set (overlap, mass deletion, the plan stamp);
//   - deletion_reference: the mass deletion counted from the largest tree delivered (reference.go);
//   - ownership: the claim of the desired tree;
//   - proposal: what the apply does to the pull request the state records as open (proposal.go);
//   - outcome: the change set with the move's old side, and what the plan keeps or leaves unknown;
//   - window: a plan that writes something is refused outside change_windows, unless break_glass lets
//     it through (CheckWindow; the apply checks again);
//   - summary: the Markdown summary of the change set (markdown.go).
//
// A new step goes where its inputs are known: one that reads the change set after inspect, one that may
// refuse before anything is written before outcome.
func PlanSteps() []Step {
	return []Step{
		{StepIdentity, planIdentity},
		{StepOpenPR, planOpenProposal},
		{StepDestination, planDestination},
		{StepLocation, planLocation},
		{StepRollback, planRollback},
		{StepRender, planRender},
		{StepWaves, planWaves},
		{StepLastKnownGood, planLastKnownGood},
		{StepInspect, planInspect},
		{StepHold, planHold},
		{StepGuards, planGuards},
		{StepReference, planReference},
		{StepOwnership, planOwnership},
		{StepProposal, planProposal},
		{StepOutcome, planOutcome},
		{StepWindow, planWindow},
		{StepSummary, planSummary},
	}
}

// DestroySteps are the steps of a plan that destroys the resource.
func DestroySteps() []Step {
	return []Step{{StepDestroy, planDestroy}}
}

// RunPlan runs steps over p in order and returns the first step's error; the later steps do not run.
func RunPlan(ctx context.Context, p *Planning, steps []Step) error {
	for _, s := range steps {
		start := time.Now()
		err := s.Run(ctx, p)
		p.phase("plan step "+s.Name, start, err)
		if err != nil {
			return err
		}
	}
	return nil
}

// ErrReported is a step's error that the Renderer has already reported (with its attribute paths).
var ErrReported = errors.New("reported by the renderer")

// Config is the planned configuration of the resource, in plain values.
type Config struct {
	// Resource is the configuration converted (Path cleaned; "" when it is not valid).
	Resource Resource
	// RawPath is path as configured: the id spells it so.
	RawPath string
	// RepoURLKnown, BranchKnown and PathKnown are true when those values are known at plan time.
	RepoURLKnown, BranchKnown, PathKnown bool
	// SettingsKnown is true when the other inputs of the change set are known: promoted_commit_id,
	// pull_request, max_changes, max_delete_percent and create_branch.
	SettingsKnown bool
	// PullRequestUnknown is true while it is not known whether pull_request is set.
	PullRequestUnknown bool
	// Window is change_windows and break_glass (Window.Known false while either is unknown).
	Window WindowConfig
	// Rollback is the rollback attribute (nil when not set or not known); ReleaseHold is release_hold.
	Rollback    *Rollback
	ReleaseHold bool
}

// LocationKnown reports whether repository_url, branch and path are known.
func (c Config) LocationKnown() bool { return c.RepoURLKnown && c.BranchKnown && c.PathKnown }

// Prior is what the state records before the plan.
type Prior struct {
	// Resource is the state's configuration converted.
	Resource Resource
	// ID is the state's id; RawPath its path as configured.
	ID, RawPath string
	// ContentHash, CommitSHA and PullRequestState are the state's content_hash, commit_sha and pull_request_state.
	ContentHash, CommitSHA, PullRequestState string
	// PullRequestNumber is the state's pull_request_number (0 for none).
	PullRequestNumber int
	// DeletionReference is the state's deletion_reference (0 for none, reference.go).
	DeletionReference int
	// Promoted is true when the state records a promoted_commit_id.
	Promoted bool
	// Retain and Protected are retain_on_destroy and deletion_protection as the state records them.
	Retain, Protected bool
}

// Rendered is what the Renderer returns: the desired files, or the tree that stands for them.
type Rendered struct {
	// Known is false while an input of files or render is unknown.
	Known bool
	Files map[string][]byte
	// Reused is the managed tree id the last apply of the same render inputs recorded (Files nil):
	// Desired.RecordedTree. Stored is the tree an earlier plan kept in the render store: Desired.Built.
	Reused string
	Stored *gitrepo.Tree
	// ConfigKey fingerprints the render inputs (render mode; "" in files mode), for StampKeyFor.
	ConfigKey string
	// ClusterTypes are the labels of the render's cluster types (render mode; nil in files mode), for the
	// waves' label selectors.
	ClusterTypes map[string]map[string]string
	// Workloads maps the render's deployment targets to their workloads (render mode; nil otherwise), for
	// the Markdown summary.
	Workloads map[string]string
}

// Renderer produces the desired files of a plan. The provider implements it: a render's diagnostics
// carry Terraform attribute paths, and the render's caches are the provider's.
type Renderer interface {
	// Desired returns the files to deliver. With reuse, a render whose inputs are those of the last apply
	// may return only the tree it recorded (Rendered.Reused). Each call replaces what the previous one
	// reported. An error is ErrReported.
	Desired(ctx context.Context, reuse bool) (Rendered, error)
	// Keep remembers the desired tree the plan built, for the apply.
	Keep(ctx context.Context, tree *gitrepo.Tree)
}

// Note is a plan warning.
type Note struct {
	Summary, Detail string
}

// Refusal is a step's error as the plan reports it: the attribute ("" for none, "a.b" for a nested
// one), a summary and the detail.
type Refusal struct {
	Attribute, Summary, Detail string
}

func (r *Refusal) Error() string { return r.Summary + ": " + r.Detail }

// Explain is the Refusal of err (an *Error, or a bare Git error) for the resource id: what was found,
// and for Git errors what to do.
func Explain(id string, err error) *Refusal {
	var rf *Refusal
	if errors.As(err, &rf) {
		return rf
	}
	var de *Error
	if !errors.As(err, &de) {
		hint, attribute := ErrorHint(err)
		summary := "Cannot deliver the files to Git"
		if p := gitrepo.Problem(err); p != "" {
			summary = p
		}
		return &Refusal{Attribute: attribute, Summary: summary, Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.\n\n%s", id, err, hint)}
	}
	detail := fmt.Sprintf("kalypso_gitops_commit %s: %s.", id, de.Err)
	if de.Hint != "" {
		detail += "\n\n" + de.Hint
	}
	return &Refusal{Attribute: de.Attribute, Summary: de.Summary, Detail: detail}
}

// Planning is one plan of the resource as it passes through the steps: its inputs, then what each step
// decided.
type Planning struct {
	// Git reads the planned location; PriorGit the state's (each with its resource's ssh host key).
	Git, PriorGit *gitrepo.Client
	// Locations holds the claims of this plan (nil: none are made).
	Locations *Locations
	// Store keeps the plan stamps (nil: none); Build is the provider build (render.BuildID).
	Store *RenderStore
	Build string
	// Renderer produces the desired files.
	Renderer Renderer
	// GitHub is the pull-request service (nil: GitHub is not read), for the open proposal of the state.
	GitHub GitHub
	// Phase, when set, is told how long each phase took (a log line).
	Phase func(msg string, start time.Time, err error)
	// Log, when set, records what the user need not see (a log line).
	Log func(msg string, fields map[string]any)

	// Config is the planned configuration; identity may respell its repository URL.
	Config Config
	// Prior is the state (nil on create).
	Prior *Prior
	// Replaces is, on the create of a forced replacement, the object it replaces (ParseReplaced; nil otherwise).
	Replaces *Prior
	// Replacing names the attributes whose change forces a replacement ("" for none).
	Replacing string
	// Rollout is the rollout attribute (nil for none).
	Rollout *Rollout

	// ID is the planned id ("" while the location is not known).
	ID string
	// Move is the old side of a move (nil when the resource does not move).
	Move *MovePlan
	// Rendered is the desired files (with a rollout, narrowed to what this apply writes).
	Rendered Rendered
	// Waves is the rollout this plan decided (nil without a rollout, or while an input is unknown).
	Waves *rollout.WavePlan
	// Changes is the change set (nil while an input is unknown).
	Changes *Plan
	// Decision is what the plan keeps or leaves unknown besides the change set.
	Decision PlanDecision
	// Markdown is the summary of Changes for a pull-request comment or body ("" while Changes is nil).
	Markdown string
	// Warnings are the plan's warnings, in order.
	Warnings []Note
	// Reference is the deletion_reference the apply records ("" when the plan does not set it: the change
	// set is unknown, or the plan keeps the state's).
	Reference string

	// Now is the time the window step decides at; BreakGlassUsed the record of the last apply that a
	// break-glass let through (nil for none).
	Now            time.Time
	BreakGlassUsed *BreakGlassRecord
	// Hold is the hold the last rollback recorded (nil for none); RolledBack is set by the rollback step.
	Hold       *Hold
	RolledBack *RolledBack
	// LastKnownGood is set by the last_known_good step (nil while not known, or without a rollout).
	LastKnownGood *LastKnownGood
	rolloutRead   *rolloutRead
	wavesRead     *wavesRead
	// heldFolders are the folders a per-folder hold keeps at the branch's content in this plan; with
	// release_hold, releasedFolders those it would have kept (holdfolders.go).
	heldFolders, releasedFolders map[string]bool
}

func (p *Planning) phase(msg string, start time.Time, err error) {
	if p.Phase != nil {
		p.Phase(msg, start, err)
	}
}

func (p *Planning) log(msg string, fields map[string]any) {
	if p.Log != nil {
		p.Log(msg, fields)
	}
}

// Warn adds a plan warning.
func (p *Planning) Warn(summary, detail string) {
	p.Warnings = append(p.Warnings, Note{Summary: summary, Detail: detail})
}

// repoKey is the key of a repository URL (gitrepo.Client.RepositoryKey, after git_url_rewrites).
func (p *Planning) repoKey(url string) string {
	if p.Git == nil {
		return gitrepo.RepositoryKey(url)
	}
	return p.Git.RepositoryKey(url)
}

// planIdentity plans the removal side of a replacement, keeps the state's spelling of the repository URL
// when the configuration names the same repository otherwise (no change: the plan is empty), and sets the
// id once the location is known.
func planIdentity(ctx context.Context, p *Planning) error {
	if p.Prior != nil && p.Replacing != "" {
		// A replacement destroys first: the old location loses its files as on destroy.
		if err := p.planRemoval(ctx, "replacing the resource (a change of "+p.Replacing+")"); err != nil {
			return err
		}
	}
	c := &p.Config
	if p.Prior != nil && c.RepoURLKnown && p.Prior.Resource.RepoURL != "" && c.Resource.RepoURL != p.Prior.Resource.RepoURL &&
		p.repoKey(c.Resource.RepoURL) == p.repoKey(p.Prior.Resource.RepoURL) {
		c.Resource.RepoURL = p.Prior.Resource.RepoURL
	}
	if !c.LocationKnown() {
		return nil
	}
	p.ID = ID(c.Resource.RepoURL, c.RawPath, c.Resource.Branch)
	switch {
	case p.Prior != nil:
		c.Resource.AdoptedFrom = p.Prior.Resource.AdoptedFrom // the resource's identity, kept in state
	case p.Replaces != nil:
		c.Resource.AdoptedFrom = p.Replaces.Resource.AdoptedFrom
	}
	if p.Replaces != nil {
		return p.planReplacement()
	}
	return nil
}

// planDestroy is the only step of a destroy's plan: the warning of what it deletes, or the refusal.
func planDestroy(ctx context.Context, p *Planning) error {
	if p.Prior == nil {
		return nil
	}
	if r := p.Prior.Resource; p.Locations.WasApplied(p.repoKey(r.RepoURL), r.Branch, r.Path) {
		// create_before_destroy: the new object of a replacement wrote this location in this apply.
		p.Warn("No file is deleted from the Git branch", fmt.Sprintf("kalypso_gitops_commit %s: the resource that replaces it was created at the same "+
			"location in this apply and took the files over; destroying the old object deletes nothing.", p.Prior.ID))
		return nil
	}
	return p.planRemoval(ctx, "destroying the resource")
}

// planRemoval states in a warning what removing the resource in state deletes from its branch, or
// refuses it when deletion_protection is on (DecideDestroy). why names the operation.
func (p *Planning) planRemoval(ctx context.Context, why string) error {
	prior := p.Prior
	id := prior.ID
	m := &RemovalPlan{RepoURL: prior.Resource.RepoURL, Branch: prior.Resource.Branch, Path: prior.Resource.Path}
	if !prior.Retain {
		var err error
		if m, err = PlanRemoval(ctx, p.PriorGit, prior.Resource); err != nil {
			if !prior.Protected {
				p.Warn("Cannot tell what the destroy deletes", fmt.Sprintf("kalypso_gitops_commit %s: %s.", id, err))
				return nil
			}
			return Explain(id, err)
		}
	}
	d := DecideDestroy(m, why, prior.Retain, prior.Protected)
	if d.Refusal != nil {
		return &Refusal{Attribute: "deletion_protection", Summary: "Deletion protection", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", id, d.Refusal)}
	}
	summary := "Files are deleted from the Git branch"
	if prior.Retain || m.Gone {
		summary = "No file is deleted from the Git branch"
	}
	p.Warn(summary, fmt.Sprintf("kalypso_gitops_commit %s: %s.", id, d.Warning))
	return nil
}

// planLocation claims the location for this plan, refusing one that overlaps another resource of the
// same provider configuration (Locations: two new resources have no ownership record on the branch
// yet), and plans the old side of a move.
func planLocation(ctx context.Context, p *Planning) error {
	if p.ID == "" {
		return nil
	}
	if key, dir, ok := p.location(); ok {
		if err := p.Locations.Claim(key, p.Config.Resource.Branch, dir, p.ID); err != nil {
			return &Refusal{Attribute: "path", Summary: "Overlapping paths on one branch", Detail: "kalypso_gitops_commit: " + err.Error() + "."}
		}
	}
	if p.Prior == nil {
		return nil
	}
	move, err := p.planMove(ctx)
	p.Move = move
	return err
}

// location is the repository key and cleaned path under which the plan's claims are recorded; ok is false
// without Locations or with a path the configuration check reports.
func (p *Planning) location() (key, dir string, ok bool) {
	if p.Locations == nil {
		return "", "", false
	}
	dir, err := gitrepo.CleanPath(p.Config.RawPath)
	if err != nil {
		return "", "", false
	}
	return p.repoKey(p.Config.Resource.RepoURL), dir, true
}

// MovePlan is the old side of a planned move.
type MovePlan struct {
	Old *RemovalPlan
	// From is the old location; SameBranch and SameRepo say where it lies against the new one.
	From                 Resource
	SameBranch, SameRepo bool
	// Retain is true when the old files stay (retain_on_destroy).
	Retain bool
}

// Key is the key in changes of a file of the old location (OldKey).
func (m *MovePlan) Key(rel string) string { return OldKey(m.From, m.SameBranch, m.SameRepo, rel) }

// RootKey is the key in changes of a root-relative file of the old location (its ownership record, its
// promoted-commit file), prefixed as OldKey prefixes.
func (m *MovePlan) RootKey(name string) string {
	switch {
	case m.SameBranch:
		return name
	case m.SameRepo:
		return m.From.Branch + ":" + name
	default:
		return m.From.RepoURL + "@" + m.From.Branch + ":" + name
	}
}

// Record is the MoveRecord the plan keeps for the apply (nil when nothing is removed).
func (m *MovePlan) Record() []byte {
	if m == nil || m.Retain || m.Old.Gone {
		return nil
	}
	return MoveRecord{Tree: m.Old.Tree}.Marshal()
}

// planMove returns the old side when the plan moves the resource to another location (nil otherwise),
// with a warning that states what the move deletes there, or the refusal.
func (p *Planning) planMove(ctx context.Context) (*MovePlan, error) {
	from, to, stateID := p.Prior.Resource, p.Config.Resource, p.Prior.ID
	if !Moved(from, to, p.repoKey) {
		return nil, nil
	}
	sameBranch := SameBranch(from, to, p.repoKey)
	sameRepo := p.repoKey(from.RepoURL) == p.repoKey(to.RepoURL)
	if sameBranch && Overlaps(from.Path, to.Path) {
		return nil, &Refusal{Attribute: "path", Summary: "Cannot move into or out of the resource's own path", Detail: fmt.Sprintf(
			"kalypso_gitops_commit %s: path %q and the new path %q on the same branch contain one another, so removing the old files would remove "+
				"the new ones too. Nothing was written. Move in two steps: first to a path beside the old one, then to the new one.", stateID, p.Prior.RawPath, p.Config.RawPath)}
	}
	retain := p.Prior.Retain
	old := &RemovalPlan{RepoURL: from.RepoURL, Branch: from.Branch, Path: from.Path, ByDirectory: map[string]int{}}
	if !retain {
		limit := to.MaxChanges
		if limit <= 0 {
			limit = DefaultMaxChanges
		}
		var err error
		if old, err = PlanMove(ctx, p.PriorGit, from, limit); err != nil {
			return nil, Explain(stateID, err)
		}
	}
	d := DecideMove(old, p.ID, retain, p.Prior.Protected)
	if d.Refusal != nil {
		return nil, &Refusal{Attribute: "deletion_protection", Summary: "The move deletes files at the old location", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", stateID, d.Refusal)}
	}
	how := "The apply writes the new location first, then removes the old one."
	if sameBranch {
		how = "The apply writes both in one commit."
	}
	p.Warn("The resource moves: files are deleted at the old location", fmt.Sprintf("kalypso_gitops_commit %s: %s. %s", stateID, d.Warning, how))
	return &MovePlan{Old: old, From: from, SameBranch: sameBranch, SameRepo: sameRepo, Retain: retain}, nil
}

// planRender asks the Renderer for the desired files. A render whose inputs are those of the last apply
// may be skipped, except where promoted_commit_id lies under path: the recorded tree does not depend on it.
func planRender(ctx context.Context, p *Planning) error {
	if p.RolledBack != nil {
		return nil // the rollback step set the desired files
	}
	reuse := false
	if dir, err := gitrepo.CleanPath(p.Config.RawPath); err == nil && p.Prior != nil && p.Config.PathKnown {
		_, under := (Resource{Path: dir}).PromotedUnderPath()
		reuse = !under
	}
	var err error
	p.Rendered, err = p.Renderer.Desired(ctx, reuse)
	return err
}

// planInspect computes the change set against the branch (ReadBranch), or leaves it nil while an input is
// unknown. When the render was skipped but the branch no longer holds the recorded tree, it renders.
func planInspect(ctx context.Context, p *Planning) error {
	if !p.inputsKnown() {
		return nil
	}
	cs, err := p.readBranch(ctx)
	if errors.Is(err, ErrFilesNeeded) {
		if p.Rendered, err = p.Renderer.Desired(ctx, false); err != nil {
			return err
		}
		if !p.inputsKnown() {
			return nil
		}
		cs, err = p.readBranch(ctx)
	}
	if errors.Is(err, ErrFilesNeeded) {
		return nil
	}
	if err != nil {
		return Explain(p.ID, err)
	}
	p.Changes = cs
	return nil
}

// inputsKnown reports whether everything the change set depends on is known.
func (p *Planning) inputsKnown() bool {
	return p.Rendered.Known && p.Config.LocationKnown() && p.Config.SettingsKnown
}

// readBranch reads the branch and computes the change set of the desired files. A move plans against
// another location than the state's, so the state's tree and pull request say nothing about it.
func (p *Planning) readBranch(ctx context.Context) (*Plan, error) {
	s := p.Config.Resource
	var lastTree, prState string
	if p.Prior != nil && p.Move == nil {
		lastTree, prState = p.Prior.ContentHash, p.Prior.PullRequestState
		if p.Prior.Resource.ReadBranch(prState) != s.ReadBranch(prState) {
			// The refresh read the open proposal's head branch and this plan reads the base (pull_request removed),
			// or the other way round: the state's tree says nothing about the branch read here.
			lastTree = ""
		}
	}
	want := s.Desired(p.Rendered.Files, p.Rendered.Reused, p.Prior != nil && p.Prior.Promoted)
	want.Built = p.Rendered.Stored
	start := time.Now()
	req := s.PlanRequest(want, lastTree, prState)
	if p.Move != nil && p.Move.SameBranch {
		req.Vacating = p.Move.From.Path
	}
	cs, err := ReadBranch(ctx, p.Git, req)
	p.phase("changes planned against the branch", start, err)
	return cs, err
}

// planGuards refuses a change set that overlaps another resource's path, that deletes most of what is
// under the path, or that another plan of the same configuration showed otherwise (CheckStamp).
func planGuards(_ context.Context, p *Planning) error {
	if p.Changes == nil {
		return nil
	}
	if err := CheckBranchGuards(p.Config.Resource.Path, p.Changes, p.Config.Resource.MaxDeletePercent); err != nil {
		return Explain(p.ID, err)
	}
	if m := p.Move; m != nil && !m.Retain && !m.Old.Gone {
		if err := CheckMoveDeletion(m.Old, p.ID, p.writes, p.Config.Resource.MaxDeletePercent); err != nil {
			return &Refusal{Attribute: "max_delete_percent", Summary: "The move deletes files the new location does not write",
				Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.Prior.ID, err)}
		}
	}
	return p.checkStamp()
}

// writes reports whether the plan's desired tree holds the file rel (relative to the path): the files, or
// the tree built or loaded for them. A tree recorded by the last apply stands for files it does not list:
// it writes the old location's files again only when it is the same tree.
func (p *Planning) writes(rel string) bool {
	if f := p.Rendered.Files; f != nil {
		_, ok := f[rel]
		return ok
	}
	if t := p.Changes.Tree; t != nil {
		return t.Has(rel)
	}
	return p.Move != nil && p.Move.Old.Tree == p.Changes.DesiredTree
}

// checkStamp refuses the plan when the last plan of the same configuration found the branch missing or
// was made by another provider build (CheckStamp), and otherwise stamps this plan: Terraform plans again
// right before applying a saved plan, and would report only "inconsistent final plan".
func (p *Planning) checkStamp() error {
	if p.Store == nil {
		return nil
	}
	var commit, content string
	if p.Prior != nil {
		commit, content = p.Prior.CommitSHA, p.Prior.ContentHash
	}
	key := StampKeyFor(p.ID, commit, content, p.Rendered.ConfigKey, p.Changes.DesiredTree)
	now := StampOf(p.Build, p.Changes)
	if err := CheckStamp(p.Store.LoadStamp(key), now, p.Config.Resource.Branch); err != nil {
		p.Store.DropStamp(key) // refused once: the next plan starts afresh
		return Explain(p.ID, err)
	}
	if err := p.Store.SaveStamp(key, now); err != nil {
		p.log("cannot keep the plan stamp in the render store", map[string]any{"error": err.Error()})
	}
	return nil
}

// planOwnership records the desired tree with the resource's claim: two resources spelled exactly alike
// are one claim, and only their trees tell them apart (Locations.Deliver).
func planOwnership(ctx context.Context, p *Planning) error {
	if p.Changes == nil || p.ID == "" {
		return nil
	}
	if err := p.checkOwner(ctx); err != nil {
		return err
	}
	key, dir, ok := p.location()
	if !ok {
		return nil
	}
	if err := p.Locations.Deliver(key, p.Config.Resource.Branch, dir, p.ID, p.Changes.DesiredTree); err != nil {
		return &Refusal{Attribute: "path", Summary: "Overlapping paths on one branch", Detail: "kalypso_gitops_commit: " + err.Error() + "."}
	}
	return nil
}

// planOutcome keeps the desired tree for the apply, adds the old side of a move to the change set, and
// decides what the plan keeps or leaves unknown (DecidePlan).
func planOutcome(ctx context.Context, p *Planning) error {
	if p.Changes != nil {
		p.Renderer.Keep(ctx, p.Changes.Tree)
		if p.Move != nil {
			p.Changes = p.Changes.WithMove(p.Move, p.Config.Resource.MaxChanges, 0)
		}
	}
	pr := p.Config.Resource.PullRequest != nil
	p.Decision = DecidePlan(PlanFacts{Known: p.Changes != nil, Empty: p.Changes != nil && p.Changes.Empty(), HasState: p.Prior != nil,
		PullRequest: pr && !p.Config.PullRequestUnknown, PullRequestUnknown: p.Config.PullRequestUnknown, Moving: p.Move != nil})
	return nil
}
