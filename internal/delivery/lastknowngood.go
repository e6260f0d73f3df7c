// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// StepLastKnownGood is the name of the step that finds the last known good commit.
const StepLastKnownGood = "last_known_good"

// LastKnownGood is the last commit of the branch whose managed tree every expected cluster reported
// healthy (on it or on a later commit), and that tree. Both are "" when there is none in the history read.
type LastKnownGood struct {
	Commit, Tree string
	// Waves is, with waves, each wave's own last known good (WaveLastKnownGood); nil while the waves are not
	// decided (an unknown input, or no branch yet).
	Waves []WaveLastKnownGood
}

// WaveLastKnownGood is a wave's last known good: the last commit of the branch whose content of the
// wave's cluster-type folders every expected cluster of the wave reported healthy
// (rollout.LastKnownGoodPerWave), and the managed tree under the path at that commit. Commit and Tree are
// "" when no commit read qualifies.
type WaveLastKnownGood struct {
	Name         string
	ClusterTypes []string
	Commit, Tree string
}

// rolloutRead is what a plan read of its rollout: the branch's history (newest first), what the clusters
// reported about it, and the cluster types the head holds. The waves step fills it; the rollback step reads
// it itself when it needs last_known_good before the waves run.
type rolloutRead struct {
	history []rollout.Commit
	reports []rollout.Report
	types   []string
	// complete is true when the history reaches the branch's first commit.
	complete bool
	// log is which tree each folder had at each commit read, for the waves step's lastChanges.
	log []gitrepo.DirsEntry
}

// wavesRead is what the waves step decided from: the gate's input, the branch it inspected, the desired
// files before it narrowed them to the wave this apply writes, and the configuration it read them with.
type wavesRead struct {
	in       rollout.WaveInput
	branch   *gitrepo.Inspection
	rendered Rendered
	resource Resource
}

// readRollout reads the rollout's history and reports once per plan.
func (p *Planning) readRollout(ctx context.Context) (*rolloutRead, error) {
	if p.rolloutRead != nil {
		return p.rolloutRead, nil
	}
	s := p.Config.Resource
	n := p.Rollout.History
	if n <= 0 {
		n = rollout.DefaultHistory
	}
	log, complete, err := p.Git.LogDirs(ctx, s.RepoURL, s.Branch, s.Path, n)
	if err != nil {
		return nil, Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	read := &rolloutRead{complete: complete, log: log}
	shas := make([]string, len(log))
	for i, e := range log {
		read.history = append(read.history, rollout.Commit{SHA: e.Commit, Time: e.Time})
		shas[i] = e.Commit
	}
	if len(log) > 0 {
		read.types = dirNames(log[0].Dirs)
	}
	if read.reports, err = p.Rollout.Source.Reports(ctx, shas); err != nil {
		return nil, sourceRefusal(p.ID, err)
	}
	p.rolloutRead = read
	return read, nil
}

func dirNames(dirs map[string]string) []string {
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// expectAll is the rollout's expectation for the whole environment: every listed cluster, and
// min_clusters_per_cluster_type of every other cluster type the branch holds.
func expectAll(e rollout.WaveExpect, types []string) rollout.Expect {
	var out rollout.Expect
	listed := map[string]bool{}
	cts := make([]string, 0, len(e.Clusters))
	for ct := range e.Clusters {
		cts = append(cts, ct)
	}
	sort.Strings(cts)
	for _, ct := range cts {
		listed[ct] = true
		out.Clusters = append(out.Clusters, e.Clusters[ct]...)
	}
	if e.MinPerClusterType > 0 && len(out.Clusters) == 0 {
		for _, ct := range types {
			if !listed[ct] {
				if out.ClusterTypes == nil {
					out.ClusterTypes = map[string]int{}
				}
				out.ClusterTypes[ct] = e.MinPerClusterType
			}
		}
	}
	return out
}

// findLastKnownGood evaluates the rollout's reports over the branch's history: the newest commit every
// expected cluster succeeded with, and its managed tree under the path.
func (p *Planning) findLastKnownGood(ctx context.Context) (*LastKnownGood, error) {
	read, err := p.readRollout(ctx)
	if err != nil {
		return nil, err
	}
	if len(read.history) == 0 {
		return &LastKnownGood{}, nil
	}
	expect := expectAll(p.Rollout.Expect, read.types)
	if len(expect.Clusters) == 0 && len(expect.ClusterTypes) == 0 {
		return &LastKnownGood{}, nil // no cluster is expected: zero reporting clusters is never healthy
	}
	res, err := rollout.Evaluate(read.history, read.reports, rollout.Options{Expect: expect, Now: p.Rollout.Now})
	if err != nil {
		if errors.Is(err, rollout.ErrAmbiguousCluster) {
			return nil, &Refusal{Attribute: "rollout.expected", Summary: "Ambiguous expected cluster", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, err)}
		}
		return nil, &Refusal{Attribute: "rollout.expected", Summary: "Cannot find the last known good commit", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, err)}
	}
	if res.Succeeded.SHA == "" {
		return &LastKnownGood{}, nil
	}
	s := p.Config.Resource
	tree, err := p.Git.ManagedTreeAt(ctx, s.RepoURL, s.Branch, res.Succeeded.SHA, s.Path)
	if err != nil {
		return nil, Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	return &LastKnownGood{Commit: res.Succeeded.SHA, Tree: tree}, nil
}

// planLastKnownGood is the last_known_good step: with a rollout, the newest commit of the branch that
// every expected cluster reported healthy (LastKnownGood). Nothing is decided while an input is unknown.
//
// With waves, it finds each wave's own as well (LastKnownGood.Waves). They tell how far each wave is
// healthy; a rollback to "last_known_good" restores the environment's, whose tree every expected cluster
// of every wave reported healthy: a wave's last known good is healthy for its own folders only, and a
// tree made of several commits' folders is a tree that no cluster reported together.
func planLastKnownGood(ctx context.Context, p *Planning) error {
	if p.Rollout == nil || p.Prior == nil || !p.Config.LocationKnown() {
		return nil
	}
	if p.LastKnownGood == nil { // the rollback step finds it first when rollback.to names it
		lkg, err := p.findLastKnownGood(ctx)
		if err != nil {
			return err
		}
		p.LastKnownGood = lkg
	}
	if err := p.findWavesLastKnownGood(ctx); err != nil {
		return err
	}
	if p.Config.Rollback != nil {
		return nil
	}
	return planAutoRollback(ctx, p)
}

// findWavesLastKnownGood sets LastKnownGood.Waves from what the waves step read: nothing while the waves
// are not decided.
func (p *Planning) findWavesLastKnownGood(ctx context.Context) error {
	if p.wavesRead == nil || p.LastKnownGood.Waves != nil {
		return nil
	}
	goods, err := rollout.LastKnownGoodPerWave(p.wavesRead.in)
	if err != nil {
		if errors.Is(err, rollout.ErrAmbiguousCluster) {
			return &Refusal{Attribute: "rollout.expected", Summary: "Ambiguous expected cluster", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, err)}
		}
		return &Refusal{Attribute: "rollout.waves", Summary: "Cannot find the last known good commit", Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, err)}
	}
	s, history := p.Config.Resource, p.wavesRead.in.History
	trees := map[string]string{p.LastKnownGood.Commit: p.LastKnownGood.Tree}
	out := make([]WaveLastKnownGood, len(goods))
	for i, g := range goods {
		out[i] = WaveLastKnownGood{Name: g.Name, ClusterTypes: g.ClusterTypes}
		if g.Commit < 0 || g.Commit >= len(history) {
			continue
		}
		sha := history[g.Commit].SHA
		tree, ok := trees[sha]
		if !ok {
			if tree, err = p.Git.ManagedTreeAt(ctx, s.RepoURL, s.Branch, sha, s.Path); err != nil {
				return Explain(p.ID, gitError("Cannot read the Git repository", err))
			}
			trees[sha] = tree
		}
		out[i].Commit, out[i].Tree = sha, tree
	}
	p.LastKnownGood.Waves = out
	return nil
}
