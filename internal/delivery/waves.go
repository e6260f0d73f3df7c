// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The waves step of a plan: a progressive rollout inside the environment (the rollout attribute). The
// folders directly under path are the cluster types (the render writes "<cluster type>/..."); the step
// decides, with rollout.PlanWaves, which of them this apply writes, and replaces the desired files by
// what the apply writes: the desired content of the admitted cluster types, and the branch's content,
// byte for byte, of the others. Everything after it (the change set, the guards, the apply's tree check)
// then sees only what this apply writes.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// StepWaves is the name of the waves step.
const StepWaves = "waves"

// Rollout is the rollout attribute in plain values.
type Rollout struct {
	Waves  []rollout.Wave
	Expect rollout.WaveExpect
	// Source reads what the clusters reported about the branch's commits.
	Source rollout.Source
	// History is how many commits of the branch are read (rollout.DefaultHistory when zero).
	History  int
	Deadline time.Duration
	Paused   bool
	// OnFailure is on_failure: OnFailureRollback makes the plan of a halted rollout roll back to the last
	// known good commit (rollback.go); anything else halts.
	OnFailure string
	// Now is the plan's time (for soak times and the deadline).
	Now time.Time
}

// Admission is what an apply writes of a rollout, as its plan decided: the cluster types whose folders it
// writes, and whether it writes the files outside them (with the last wave).
type Admission struct {
	ClusterTypes map[string]bool
	Outside      bool
	// Held are the folders a rollback's hold keeps as the branch holds them although their wave is
	// admitted ("" for the files directly under path; holdfolders.go).
	Held map[string]bool
}

// writes reports whether the apply writes the file rel (relative to path).
func (a Admission) writes(rel string) bool {
	ct := clusterTypeOf(rel)
	if a.Held[ct] {
		return false
	}
	if ct != "" {
		return a.ClusterTypes[ct]
	}
	return a.Outside
}

// admissionOf is the admission of a plan's waves.
func admissionOf(w *rollout.WavePlan) Admission {
	return Admission{ClusterTypes: w.Admitted, Outside: w.Outside}
}

// clusterTypeOf is the cluster type a file under path belongs to: its first folder; "" for a file directly
// under path, which moves with the last wave.
func clusterTypeOf(rel string) string {
	if i := strings.IndexByte(rel, '/'); i > 0 {
		return rel[:i]
	}
	return ""
}

// planWaves decides the waves when the resource has a rollout, and narrows the desired files to what
// this apply writes. Nothing is decided while an input is unknown.
func planWaves(ctx context.Context, p *Planning) error {
	if p.Rollout == nil || !p.inputsKnown() {
		return nil
	}
	s := p.Config.Resource
	if s.PullRequest != nil {
		return &Refusal{Attribute: "rollout", Summary: "A rollout needs direct mode", Detail: fmt.Sprintf(
			"kalypso_gitops_commit %s: rollout advances wave by wave on the branch the clusters read, from what they report about its commits; "+
				"with pull_request the commits land only when someone merges. Remove pull_request, or rollout. Nothing was written.", p.ID)}
	}
	if p.Rendered.Files == nil {
		return fmt.Errorf("kalypso_gitops_commit %s: the rollout needs the desired files, and the render returned only a tree; this is a bug in the provider, please report it", p.ID)
	}
	ins, err := p.Git.Inspect(ctx, branchInspection(s.RepoURL, s.Branch, s.Path, true))
	if err != nil {
		return Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	in := rollout.WaveInput{Waves: p.Rollout.Waves, Expect: p.Rollout.Expect, Now: p.Rollout.Now, Deadline: p.Rollout.Deadline, Paused: p.Rollout.Paused,
		Pending: pendingFiles(p.Rendered.Files, ins, s), Types: clusterTypes(p.Rendered, ins)}
	if ins.BranchExists {
		if err := p.readRolloutHistory(ctx, &in); err != nil {
			return err
		}
	}
	w, err := rollout.PlanWaves(in)
	if err != nil {
		return &Refusal{Attribute: "rollout.waves", Summary: "Invalid rollout", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, err)}
	}
	if w, err = p.keptDecision(p.wavesKey(ins.HeadSHA, ins.ManagedTree), w); err != nil {
		return err
	}
	p.Waves = w
	p.wavesRead = &wavesRead{in: in, branch: ins, rendered: p.Rendered, resource: s} // for last_known_good (lastknowngood.go, rollbackstatus.go)
	admitted := admissionOf(w)
	admitted.Held = p.holdFolders(p.Rendered.Files)
	held, promoted, err := s.holdBack(ins, p.Rendered.Files, admitted, func(ids []string) (map[string][]byte, error) { return p.Git.ReadBlobs(s.RepoURL, ids) })
	if err != nil {
		return Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	p.Rendered.Files, p.Rendered.Reused, p.Rendered.Stored = held, "", nil
	p.Config.Resource.PromotedCommitID = promoted
	switch behind := w.Behind(); {
	case w.Halted:
		p.Warn("Rollout halted", fmt.Sprintf("kalypso_gitops_commit %s: nothing is written until the failed clusters recover, or a new change starts the rollout again at its first wave.\n%s", p.ID, behind))
	case w.Paused:
		p.Warn("Rollout paused", fmt.Sprintf("kalypso_gitops_commit %s: rollout.paused is set, so nothing is written.\n%s", p.ID, behind))
	case behind != "":
		p.Warn("Rollout: waves stay behind", fmt.Sprintf("kalypso_gitops_commit %s: %s.\n%s", p.ID, writes(w, in.Pending, admitted.Held), behind))
	}
	return nil
}

// holdFolders are the folders a rollback's hold keeps at the branch's content while the configuration
// renders files (holdfolders.go): none without a per-folder hold, while a rollback is planned, or for a
// move; with release_hold none, and the hold step warns which it releases.
func (p *Planning) holdFolders(files map[string][]byte) map[string]bool {
	if !p.Hold.PerFolder(true) || p.Config.Rollback != nil || p.RolledBack != nil || p.Move != nil {
		return nil
	}
	held := p.Hold.HeldFolders(FolderDigests(fileBlobs(files)))
	if p.Config.ReleaseHold {
		p.releasedFolders = held
		return nil
	}
	p.heldFolders = held
	return held
}

// writes says what this apply writes of the rollout: the wave that writes, but for the folders with
// pending files that a rollback's hold keeps (held).
func writes(w *rollout.WavePlan, pending map[string]int, held map[string]bool) string {
	for _, s := range w.Waves {
		if !s.Writes {
			continue
		}
		var kept []string
		n := s.PendingFiles
		for _, ct := range s.ClusterTypes {
			if held[ct] && pending[ct] > 0 {
				kept, n = append(kept, ct), n-pending[ct]
			}
		}
		switch {
		case len(kept) == 0:
			return fmt.Sprintf("this apply writes wave %s (%s: %d file%s)", s.Name, strings.Join(s.ClusterTypes, ", "), s.PendingFiles, plural(s.PendingFiles))
		case n <= 0:
			return fmt.Sprintf("this apply writes nothing of wave %s: a rollback holds its folders %s", s.Name, strings.Join(kept, ", "))
		}
		return fmt.Sprintf("this apply writes wave %s (%s: %d file%s) but for the folders a rollback holds (%s)", s.Name, strings.Join(s.ClusterTypes, ", "), n, plural(n), strings.Join(kept, ", "))
	}
	return "this apply writes no wave"
}

// readRolloutHistory gives the gate the branch's history (which commit last changed each folder) and the
// reports, read once per plan with the last_known_good step (readRollout).
func (p *Planning) readRolloutHistory(ctx context.Context, in *rollout.WaveInput) error {
	read, err := p.readRollout(ctx)
	if err != nil {
		return err
	}
	in.Changed = lastChanges(read.log, read.complete)
	in.History, in.Reports = read.history, read.reports
	return nil
}

// lastChanges is, per folder the head holds, the position of the commit that last changed it: the oldest
// of the commits from the head on that hold it as the head does. A folder the whole history read holds
// alike changed before it, unless the history reaches the branch's first commit.
func lastChanges(log []gitrepo.DirsEntry, complete bool) map[string]int {
	out := map[string]int{}
	if len(log) == 0 {
		return out
	}
	for ct, id := range log[0].Dirs {
		i := 0
		for i+1 < len(log) && log[i+1].Dirs[ct] == id {
			i++
		}
		if i < len(log)-1 || complete {
			out[ct] = i
		}
	}
	return out
}

// sourceRefusal words a failed read of the reports at the rollout attribute to fix.
func sourceRefusal(id string, err error) *Refusal {
	attribute, hint := "rollout", "Check that the status source is reachable and that the credentials may read it; nothing was written."
	switch {
	case errors.Is(err, githubpr.ErrTooMany), errors.Is(err, rollout.ErrTooManyClusters):
		attribute, hint = "rollout.max_clusters", "Narrow the source (context patterns, subscriptions), or raise rollout.max_clusters for a fleet this large; nothing was written."
	case errors.Is(err, rollout.ErrSharedCluster):
		attribute, hint = "rollout.github_statuses.creators", "Set rollout.github_statuses.creators to the account the clusters post with; nothing was written."
	case errors.Is(err, rollout.ErrResourceGraph), errors.Is(err, rollout.ErrMalformedAnswer):
		attribute = "rollout.azure_resource_graph"
	case errors.Is(err, githubpr.ErrNotFound), errors.Is(err, githubpr.ErrMalformed):
		attribute = "rollout.github_statuses"
	}
	return &Refusal{Attribute: attribute, Summary: "Cannot read the rollout's reports", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s. %s", id, err, hint)}
}

// clusterTypes are the environment's cluster types: the folders of the desired files and of the branch,
// with the render's labels where it knows them.
func clusterTypes(r Rendered, ins *gitrepo.Inspection) []rollout.ClusterType {
	names := map[string]bool{}
	for rel := range r.Files {
		if ct := clusterTypeOf(rel); ct != "" {
			names[ct] = true
		}
	}
	for rel := range ins.Managed {
		if ct := clusterTypeOf(rel); ct != "" {
			names[ct] = true
		}
	}
	for ct := range r.ClusterTypes {
		names[ct] = true
	}
	out := make([]rollout.ClusterType, 0, len(names))
	for ct := range names {
		out = append(out, rollout.ClusterType{Name: ct, Labels: r.ClusterTypes[ct]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// pendingFiles counts, per cluster type ("" outside the folders), the files the desired tree writes or
// deletes on the branch, the promoted-commit file included.
func pendingFiles(files map[string][]byte, ins *gitrepo.Inspection, s Resource) map[string]int {
	out := map[string]int{}
	for rel, content := range files {
		if e, ok := ins.Managed[rel]; !ok || e.Gitlink() || e.Hash != gitrepo.BlobID(content) {
			out[clusterTypeOf(rel)]++
		}
	}
	for rel := range ins.Managed {
		if _, ok := files[rel]; !ok {
			out[clusterTypeOf(rel)]++
		}
	}
	if _, under := s.PromotedUnderPath(); !under {
		current, has := ins.RootFiles[PromotedCommitFile]
		if (s.PromotedCommitID == nil && has) || (s.PromotedCommitID != nil && (!has || string(current) != *s.PromotedCommitID)) {
			out[""]++
		}
	}
	return out
}

// holdBack is what an apply admitted by a writes: the desired files of the admitted cluster types (and
// outside them when a.Outside), and the branch's files, read with read, everywhere else; and the promoted
// commit it writes: the configured one with the last wave, the branch's otherwise (nil for none).
func (r Resource) holdBack(ins *gitrepo.Inspection, files map[string][]byte, a Admission, read BlobReader) (map[string][]byte, *string, error) {
	writes := a.writes
	out := make(map[string][]byte, len(files))
	for rel, content := range files {
		if writes(rel) {
			out[rel] = content
		}
	}
	var ids, rels []string
	for rel, e := range ins.Managed {
		if !writes(rel) && !e.Gitlink() {
			ids, rels = append(ids, e.Hash), append(rels, rel)
		}
	}
	if len(ids) > 0 {
		blobs, err := read(ids)
		if err != nil {
			return nil, nil, err
		}
		for i, rel := range rels {
			out[rel] = blobs[ids[i]]
		}
	}
	promoted := r.PromotedCommitID
	if _, under := r.PromotedUnderPath(); !a.Outside && !under {
		promoted = nil
		if v, ok := ins.RootFiles[PromotedCommitFile]; ok {
			s := string(v)
			promoted = &s
		}
	}
	return out, promoted, nil
}

// PlannedWave is a wave as the plan's rollout_status shows it, for the apply.
type PlannedWave struct {
	ClusterTypes []string
	// Current is true for the wave the plan's rollout stopped at.
	Current bool
}

// HoldBack is the waves step's narrowing, for the apply: it reads the branch again and writes the wave the
// plan wrote, the current one when it has pending files (a current wave without any waits for its
// clusters). The branch must hold what the plan read: the apply's tree check refuses anything else.
// The folders held (a rollback's hold, holdfolders.go) keep the branch's content; ins is the branch read.
func (r Resource) HoldBack(ctx context.Context, c *gitrepo.Client, files map[string][]byte, waves []PlannedWave, held map[string]bool) (map[string][]byte, *string, *gitrepo.Inspection, error) {
	ins, err := c.Inspect(ctx, branchInspection(r.RepoURL, r.Branch, r.Path, true))
	if err != nil {
		return nil, nil, nil, gitError("Cannot read the Git repository", err)
	}
	pending := pendingFiles(files, ins, r)
	a := Admission{ClusterTypes: map[string]bool{}, Held: held}
	for i, w := range waves {
		if !w.Current {
			continue
		}
		last := i == len(waves)-1
		n := 0
		for _, ct := range w.ClusterTypes {
			n += pending[ct]
		}
		if last {
			n += pending[""]
		}
		if n > 0 {
			for _, ct := range w.ClusterTypes {
				a.ClusterTypes[ct] = true
			}
			a.Outside = last
		}
		break
	}
	out, promoted, err := r.holdBack(ins, files, a, func(ids []string) (map[string][]byte, error) { return c.ReadBlobs(r.RepoURL, ids) })
	return out, promoted, ins, err
}
