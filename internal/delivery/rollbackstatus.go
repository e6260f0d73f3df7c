// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The rollout as it stands after an automatic rollback. rollout_status is each wave as it stands once the
// apply is done, and the plan after an apply must be empty; after the rollback that rollout.on_failure =
// "rollback" proposes, the branch holds the last known good tree on a commit nobody reported about, and
// the configuration still renders the tree that failed, which the rollback holds. The plan of the rollback
// therefore decides the waves again over that branch, as the next plan will, instead of showing the halt
// it is about to end.

import (
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// rollbackCommit stands in the history for the commit the rollback's apply makes: no report names it.
const rollbackCommit = "(the rollback's commit)"

// wavesAfterRollback is the rollout the first plan after the rollback's apply decides: the branch holds
// files (the rollback's, under the path) on a new commit, the desired files are those the waves step
// read, and the tree the rollback replaces (prior) is held when the waves would write it again.
func (p *Planning) wavesAfterRollback(files map[string][]byte, prior string) (*rollout.WavePlan, error) {
	w := p.wavesRead
	after := branchAfterRollback(w.branch, files)
	in := w.in
	in.Pending = pendingFiles(w.rendered.Files, after, w.resource)
	in.Types = clusterTypes(w.rendered, after)
	limit := p.Rollout.History
	if limit <= 0 {
		limit = rollout.DefaultHistory
	}
	complete := p.rolloutRead != nil && p.rolloutRead.complete
	in.History, in.Changed = historyAfterRollback(w.in, limit, complete, w.branch, after, p.Rollout.Now)
	next, err := rollout.PlanWaves(in)
	if err != nil {
		return nil, err
	}
	// The hold the rollback's apply records, per folder (holdfolders.go): the next plan keeps the folders
	// that still render the content that failed, and when it then writes nothing, the wave is held.
	h := &Hold{Tree: prior, To: p.RolledBack.To, Folders: HoldFolders(nil, FolderDigests(branchBlobs(w.branch)), FolderDigests(fileBlobs(files)))}
	admitted := admissionOf(next)
	if !p.Config.ReleaseHold {
		admitted.Held = h.HeldFolders(FolderDigests(fileBlobs(w.rendered.Files)))
	}
	held, promoted, err := w.resource.holdBack(after, w.rendered.Files, admitted, func(ids []string) (map[string][]byte, error) {
		return blobsOf(files, ids), nil
	})
	if err != nil {
		return nil, err
	}
	r := w.resource
	r.PromotedCommitID = promoted
	if len(admitted.Held) > 0 && writesNothing(pendingFiles(held, after, r)) {
		next = heldWaves(next, h)
	}
	return next, nil
}

// writesNothing reports whether no folder has a pending file.
func writesNothing(pending map[string]int) bool {
	for _, n := range pending {
		if n > 0 {
			return false
		}
	}
	return true
}

// heldWaves is the rollout of a plan that a rollback's hold stops: no wave writes, and the wave that would
// have says that it is held, with its pending files.
func heldWaves(w *rollout.WavePlan, h *Hold) *rollout.WavePlan {
	out := *w
	out.Waves = append([]rollout.WaveStatus(nil), w.Waves...)
	out.Admitted, out.Outside = map[string]bool{}, false
	for i := range out.Waves {
		if s := &out.Waves[i]; s.Writes {
			s.Writes = false
			s.Reason = "held: a rollback to " + shortID(h.To) + " holds the tree the configuration renders"
			s.Detail = "nothing is written"
		}
	}
	return &out
}

// branchAfterRollback is the inspection of the branch once the rollback wrote files under the path: its
// managed files change; the files outside the path (the promoted commit) stay.
func branchAfterRollback(before *gitrepo.Inspection, files map[string][]byte) *gitrepo.Inspection {
	after := *before
	after.Managed = make(map[string]gitrepo.Entry, len(files))
	for rel, content := range files {
		after.Managed[rel] = gitrepo.Entry{Hash: gitrepo.BlobID(content), Mode: filemode.Regular}
	}
	return &after
}

// historyAfterRollback is the history the next plan reads (the rollback's commit on top, as many commits
// as rollout.history reads) and, per folder, the position of the commit that last changed it, as
// lastChanges finds them in that history.
func historyAfterRollback(in rollout.WaveInput, limit int, complete bool, before, after *gitrepo.Inspection, now time.Time) ([]rollout.Commit, map[string]int) {
	history := append([]rollout.Commit{{SHA: rollbackCommit, Time: now}}, in.History...)
	complete = complete && len(history) <= limit
	if len(history) > limit {
		history = history[:limit]
	}
	last := len(history) - 1
	changed, was := map[string]int{}, folders(before)
	for ct, folder := range folders(after) {
		i := 0
		if folder == was[ct] {
			i = last // unchanged since the history read began, unless an older commit changed it
			if old, ok := in.Changed[ct]; ok {
				i = min(old+1, last)
			}
		}
		if i < last || complete {
			changed[ct] = i
		}
	}
	return history, changed
}

// folders describes each cluster-type folder of a branch by its files and their blob ids and modes.
func folders(ins *gitrepo.Inspection) map[string]string {
	out := map[string]string{}
	rels := make([]string, 0, len(ins.Managed))
	for rel := range ins.Managed {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		if ct := clusterTypeOf(rel); ct != "" {
			e := ins.Managed[rel]
			out[ct] += strings.TrimPrefix(rel, ct+"/") + "\x00" + e.Hash + "\x00" + e.Mode.String() + "\x00"
		}
	}
	return out
}

// blobsOf are the contents of blob ids among files.
func blobsOf(files map[string][]byte, ids []string) map[string][]byte {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := make(map[string][]byte, len(ids))
	for _, content := range files {
		if id := gitrepo.BlobID(content); want[id] {
			out[id] = content
		}
	}
	return out
}
