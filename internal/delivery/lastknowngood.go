// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// StepLastKnownGood is the name of the step that finds the last known good commit.
const StepLastKnownGood = "last_known_good"

// LastKnownGood is the last commit of the branch whose managed tree every expected cluster reported
// healthy (on it or on a later commit), and that tree. Both are "" when there is none in the history read.
type LastKnownGood struct {
	Commit, Tree string
}

// rolloutRead is what a plan read of its rollout: the branch's history (newest first), what the clusters
// reported about it, and the cluster types the head holds. The waves step fills it; the rollback step reads
// it itself when it needs last_known_good before the waves run.
type rolloutRead struct {
	history []rollout.Commit
	reports []rollout.Report
	types   []string
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
	log, _, err := p.Git.LogDirs(ctx, s.RepoURL, s.Branch, s.Path, n)
	if err != nil {
		return nil, Explain(p.ID, gitError("Cannot read the Git repository", err))
	}
	read := &rolloutRead{}
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
func planLastKnownGood(ctx context.Context, p *Planning) error {
	if p.Rollout == nil || p.Prior == nil || !p.Config.LocationKnown() || p.LastKnownGood != nil {
		return nil
	}
	lkg, err := p.findLastKnownGood(ctx)
	if err != nil {
		return err
	}
	p.LastKnownGood = lkg
	return planAutoRollback(ctx, p)
}
