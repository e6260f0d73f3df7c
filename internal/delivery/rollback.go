// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Rollback and hold. `rollback = { to = <commit> }` makes the desired tree under path the tree that a
// commit of the branch held there: the plan is the exact reverse change, file by file, and passes the
// same steps (guards, windows) as any change; the apply writes it as one commit that names both commits.
// After the rollback, the tree that was rolled back is held: while the configuration still renders it,
// the plan writes nothing and says so; a configuration that renders another tree, or release_hold,
// releases it.

// LastKnownGoodName is rollback.to's name for the last commit every expected cluster reported healthy.
const LastKnownGoodName = "last_known_good"

// Rollback is the rollback attribute.
type Rollback struct {
	// To is a commit of the branch (a full id, or a prefix of at least 7 hexadecimal digits), or LastKnownGood.
	To string
}

// RolledBack is what a rollback's desired files came from.
type RolledBack struct {
	// To is the full id of the commit whose tree is restored.
	To string
	// Auto is true for the rollback a halted rollout proposes by itself (rollout.on_failure = "rollback"):
	// it restores every cluster type at once, and the apply does not narrow it to a wave.
	Auto bool
}

// OnFailureRollback is rollout.on_failure's value that rolls a halted rollout back.
const OnFailureRollback = "rollback"

// planAutoRollback is the rollback a halted rollout proposes by itself with rollout.on_failure =
// "rollback": the desired files become those of the last known good commit. There is no rollback of a
// rollback (while a hold stands, a failure halts), and nothing happens when the branch already holds the
// last known good tree or there is none.
func planAutoRollback(ctx context.Context, p *Planning) error {
	if p.Rollout == nil || p.Rollout.OnFailure != OnFailureRollback || p.Waves == nil || !p.Waves.Halted || p.Config.Rollback != nil || p.Prior == nil {
		return nil
	}
	lkg := p.LastKnownGood
	switch {
	case p.Hold != nil:
		p.Warn("No rollback of a rollback", fmt.Sprintf("kalypso_gitops_commit %s: the rollout halted, and rollout.on_failure = \"rollback\", but the branch "+
			"holds a rollback already (to commit %s): nothing is written. Fix the cause, or roll back further with rollback = { to = ... }.", p.ID, shortID(p.Hold.To)))
		return nil
	case lkg == nil || lkg.Commit == "":
		p.Warn("No last known good commit", fmt.Sprintf("kalypso_gitops_commit %s: the rollout halted, and rollout.on_failure = \"rollback\", but no commit "+
			"read was reported healthy by every expected cluster: nothing is written.", p.ID))
		return nil
	case lkg.Tree == p.Prior.ContentHash:
		return nil // the branch holds it already
	}
	files, rolled, err := RollbackFiles(ctx, p.Git, p.Config.Resource, lkg.Commit)
	if err != nil {
		return Explain(p.ID, err)
	}
	rolled.Auto = true
	p.Rendered, p.RolledBack = Rendered{Known: true, Files: files}, &rolled
	if p.wavesRead != nil { // rollout_status: the rollout as the plan after the rollback reads it (rollbackstatus.go)
		next, err := p.wavesAfterRollback(files, p.Prior.ContentHash)
		if err != nil {
			return Explain(p.ID, gitError("Cannot plan the rollout after the rollback", err))
		}
		if p.Waves, err = p.keptDecision(p.wavesKey(p.wavesRead.branch.HeadSHA, p.wavesRead.branch.ManagedTree)+"-after-rollback", next); err != nil {
			return err
		}
	}
	p.Warn("Rollout failed: rolling back", fmt.Sprintf("kalypso_gitops_commit %s: the rollout halted, and rollout.on_failure = \"rollback\": the plan "+
		"restores the files under path as the last known good commit %s held them, every cluster type at once (changes lists the reverse change), "+
		"and holds the tree it replaces.", p.ID, lkg.Commit))
	return nil
}

// ErrRollbackTarget is the class of a rollback.to that cannot be restored.
var ErrRollbackTarget = errors.New("cannot roll back")

// RollbackFiles reads the managed files under r.Path at commit to of r.Branch: the desired files of a
// rollback. Dot-entries at the path's root are never managed, so they are left out. A commit that is not
// on the branch, or at which the path did not exist, is refused at rollback.to.
func RollbackFiles(ctx context.Context, git *gitrepo.Client, r Resource, to string) (map[string][]byte, RolledBack, error) {
	if to == LastKnownGoodName {
		return nil, RolledBack{}, &Error{Attribute: "rollback.to", Summary: "Cannot roll back", Err: fmt.Errorf("%w: %q needs the rollout's sources, which this resource does not configure", ErrRollbackTarget, LastKnownGoodName),
			Hint: "Name the commit to roll back to instead: `git log --first-parent " + r.Branch + " -- " + displayPath(r.Path) + "` lists the commits that changed the path."}
	}
	// Only a commit id or a prefix of one: 41 to 64 hexadecimal digits (a SHA-256 id) used to pass here and
	// fail in the Git read, at no attribute and with advice about path.
	if err := gitrepo.ValidateCommit(to); err != nil {
		return nil, RolledBack{}, &Error{Attribute: "rollback.to", Summary: "Cannot roll back", Err: fmt.Errorf("%w: %q is neither a commit id nor %q", ErrRollbackTarget, to, LastKnownGoodName),
			Hint: "Use the full 40-digit commit id (or at least its first 7 hexadecimal digits) of a commit of branch " + r.Branch + "."}
	}
	sha, files, err := git.ReadTreeAt(ctx, r.RepoURL, r.Branch, to, r.Path)
	switch {
	case errors.Is(err, gitrepo.ErrCommitNotOnBranch):
		return nil, RolledBack{}, &Error{Attribute: "rollback.to", Summary: "Cannot roll back", Err: fmt.Errorf("%w: %w", ErrRollbackTarget, err),
			Hint: "A rollback restores what the branch held: name the branch head or one of its first-parent ancestors."}
	case errors.Is(err, gitrepo.ErrPathNotFound):
		return nil, RolledBack{}, &Error{Attribute: "rollback.to", Summary: "Cannot roll back", Err: fmt.Errorf("%w: %w; rolling back to it would delete every file under path", ErrRollbackTarget, err),
			Hint: "Name a later commit, one that holds the path; to remove the files, destroy the resource instead."}
	case err != nil:
		return nil, RolledBack{}, gitError("Cannot read the commit to roll back to", err)
	}
	// An ancestor reached only through a merge's second parent was a commit of another branch: its tree
	// was never what this branch held, so it is refused like a commit of another branch.
	onLine, err := git.OnFirstParentLine(ctx, r.RepoURL, r.Branch, sha)
	if err != nil {
		return nil, RolledBack{}, gitError("Cannot read the history of the branch to roll back", err)
	}
	if !onLine {
		return nil, RolledBack{}, &Error{Attribute: "rollback.to", Summary: "Cannot roll back",
			Err:  fmt.Errorf("%w: commit %s reached branch %s through a merge: the branch never held its tree", ErrRollbackTarget, sha, r.Branch),
			Hint: "A rollback restores what the branch held: name the branch head or one of its first-parent ancestors (`git log --first-parent " + r.Branch + "`)."}
	}
	for name := range files {
		if isDotEntryName(strings.SplitN(name, "/", 2)[0]) {
			delete(files, name)
		}
	}
	return files, RolledBack{To: sha}, nil
}

func isDotEntryName(name string) bool { return strings.HasPrefix(name, ".") }

// Hold is what a rollback holds: the tree it rolled back, recorded in private state by the rollback's apply.
type Hold struct {
	// Tree is the managed tree that was rolled back; Commit the commit that held it (the branch's, before).
	Tree, Commit string
	// To is the commit the rollback restored; Since when (RFC 3339).
	To, Since string
	// Folders are, with a rollout, the folders the rollback changed (holdfolders.go); nil without one, and
	// in records written before the hold was kept per folder.
	Folders map[string]HeldFolder
}

// holdRecord is a Hold in private state.
type holdRecord struct {
	Tree    string                `json:"tree"`
	Commit  string                `json:"commit"`
	To      string                `json:"to"`
	Since   string                `json:"since"`
	Folders map[string]HeldFolder `json:"folders,omitempty"`
}

// Marshal encodes the hold for private state.
func (h Hold) Marshal() []byte {
	b, _ := json.Marshal(holdRecord(h))
	return b
}

// ParseHold decodes a hold; nil for none or for one it cannot read.
func ParseHold(b []byte) *Hold {
	var m holdRecord
	if len(b) == 0 || json.Unmarshal(b, &m) != nil || m.Tree == "" {
		return nil
	}
	h := Hold(m)
	return &h
}

// Holds reports whether h holds back tree: the tree it rolled back, while no rollback is configured.
// release_hold does not change the answer: it writes a held tree on purpose.
func (h *Hold) Holds(tree string, rollback bool) bool {
	return h != nil && !rollback && tree != "" && tree == h.Tree
}

// HoldAfter is the hold after an apply that wrote tree: a rollback (rolledBack set) holds the tree it
// rolled back (prior, from the commit priorCommit); any other change releases the hold (nil).
func HoldAfter(rolledBack *RolledBack, priorTree, priorCommit string, now time.Time) *Hold {
	if rolledBack == nil || priorTree == "" {
		return nil
	}
	return &Hold{Tree: priorTree, Commit: priorCommit, To: rolledBack.To, Since: now.UTC().Format(time.RFC3339)}
}

// planRollback is the rollback step: with rollback, the desired files are the files under path at the
// commit rollback.to names, and the render does not run (a render that fails must not stop the way back).
func planRollback(ctx context.Context, p *Planning) error {
	rb := p.Config.Rollback
	if rb == nil || !p.Config.LocationKnown() {
		return nil
	}
	if p.Prior == nil {
		return &Refusal{Attribute: "rollback", Summary: "Cannot roll back", Detail: fmt.Sprintf("kalypso_gitops_commit %s: the resource has not delivered anything yet, "+
			"so there is nothing to roll back. Nothing was written. Create it without rollback (or import it) first.", p.ID)}
	}
	to := rb.To
	if to == LastKnownGoodName && p.Rollout != nil {
		lkg, err := p.findLastKnownGood(ctx)
		if err != nil {
			return err
		}
		if lkg.Commit == "" {
			return &Refusal{Attribute: "rollback.to", Summary: "Cannot roll back", Detail: fmt.Sprintf("kalypso_gitops_commit %s: no commit of the last %d of branch %s "+
				"was reported healthy by every expected cluster, so there is no last known good commit. Nothing was written. Name the commit to roll back to, "+
				"or read more history (rollout.history).", p.ID, len(p.rolloutRead.history), p.Config.Resource.Branch)}
		}
		p.LastKnownGood, to = lkg, lkg.Commit
	}
	files, rolled, err := RollbackFiles(ctx, p.Git, p.Config.Resource, to)
	if err != nil {
		return Explain(p.ID, err)
	}
	p.Rendered, p.RolledBack = Rendered{Known: true, Files: files}, &rolled
	p.Warn("Rollback", fmt.Sprintf("kalypso_gitops_commit %s: the plan restores the files under path as commit %s of branch %s held them (changes lists the reverse change); "+
		"the apply writes one commit that names both commits, and holds the tree it replaces: while the configuration still renders that tree, later plans write nothing. "+
		"Remove rollback once it is applied.", p.ID, rolled.To, p.Config.Resource.Branch))
	return nil
}

// planHold is the hold step: while a rollback's hold stands and the configuration still renders the tree it
// rolled back, the plan writes nothing and warns what is held and since when. release_hold writes it again,
// with a warning; a configuration that renders another tree is planned as usual (its apply ends the hold).
func planHold(_ context.Context, p *Planning) error {
	h := p.Hold
	if p.Changes == nil || p.Prior == nil || p.Move != nil {
		return nil
	}
	if h.PerFolder(p.Rollout != nil) {
		planHeldFolders(p)
		return nil
	}
	if !h.Holds(p.Changes.DesiredTree, p.Config.Rollback != nil) {
		return nil
	}
	what := h.what()
	if p.Config.ReleaseHold {
		p.Warn("Hold released", fmt.Sprintf("kalypso_gitops_commit %s: %s and was held since; release_hold = true writes it again.", p.ID, what))
		return nil
	}
	p.Warn("Held after a rollback", fmt.Sprintf("kalypso_gitops_commit %s: %s and is held since: the configuration still renders it, so nothing is written. "+
		"Change an input so that it renders another tree, or set release_hold = true to write it again.", p.ID, what))
	if p.Waves != nil {
		p.Waves = heldWaves(p.Waves, h) // rollout_status: no wave writes
	}
	p.Changes = &Plan{DesiredTree: p.Prior.ContentHash, BaseTree: p.Changes.BaseTree, CurrentFiles: p.Changes.CurrentFiles, BranchExists: p.Changes.BranchExists}
	return nil
}

// what says what h holds and since when.
func (h *Hold) what() string {
	return fmt.Sprintf("tree %s (commit %s) was rolled back to commit %s at %s", shortID(h.Tree), shortID(h.Commit), shortID(h.To), h.Since)
}

// planHeldFolders is the hold step of a rollout whose hold is kept per folder: the waves step kept the
// branch's content in the held folders (Planning.heldFolders); this warns what is held, and shows the
// wave that would have written them as held when the plan writes nothing. release_hold lets the waves
// write them (Planning.releasedFolders), with a warning.
func planHeldFolders(p *Planning) {
	h := p.Hold
	if p.Config.ReleaseHold && len(p.releasedFolders) > 0 {
		p.Warn("Hold released", fmt.Sprintf("kalypso_gitops_commit %s: %s and its folders %s were held since; release_hold = true releases every folder: "+
			"the rollout writes them again, wave by wave.", p.ID, h.what(), folderNames(p.releasedFolders)))
		return
	}
	if len(p.heldFolders) == 0 {
		return
	}
	p.Warn("Held after a rollback", fmt.Sprintf("kalypso_gitops_commit %s: %s and is held since, folder by folder: the configuration still renders "+
		"the content that failed in %s, so nothing is written there, in any wave. A folder that renders other content is released and rolls out as any change. "+
		"Change an input so that it renders other content there, or set release_hold = true to write it again.", p.ID, h.what(), folderNames(p.heldFolders)))
	if p.Waves != nil && p.Changes.Empty() {
		p.Waves = heldWaves(p.Waves, h) // rollout_status: no wave writes
	}
}

// RollbackMessage is the commit message of a rollback: it names the commit restored and the one it
// replaces (from, "" when unknown).
func RollbackMessage(m CommitMessage, to, from string) func(gitrepo.Changes) string {
	return func(ch gitrepo.Changes) string {
		msg := m.Describe(ch)
		subject, body, _ := strings.Cut(msg, "\n\n")
		head := fmt.Sprintf("Roll back %s on %s to %s", displayPath(m.Path), m.Branch, shortID(to))
		if from != "" {
			head += " (from " + shortID(from) + ")"
		}
		if _, counts, ok := strings.Cut(subject, ": "); ok {
			head += ": " + counts
		}
		lines := "Rolled back to: " + to
		if from != "" {
			lines = "Rolled back from: " + from + "\n" + lines
		}
		return head + "\n\n" + lines + "\n" + body
	}
}
