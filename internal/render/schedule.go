// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// Assignment places one deployment target on one cluster type.
type Assignment struct {
	ClusterType        string
	DeploymentTarget   string
	Workload           string
	Workspace          string
	SchedulingPolicies []string
	Namespace          string
	// Path is the assignment's folder relative to the GitOps root.
	Path string
}

// scheduledPair is an assignment while scheduling collects it: small (indices and policies), so that
// it becomes an Assignment once, in order. Growing a slice of 120-byte Assignments, then copying it
// into order, was a third of scheduling.
type scheduledPair struct {
	ct, target int
	policies   []string
}

// Schedule applies every policy. Two policies selecting the same pair give one assignment listing both
// (upstream fails instead).
func Schedule(environment string, set *model.Set, targets []*DeploymentTarget) ([]Assignment, model.Diagnostics) {
	var diags model.Diagnostics
	// A pair is keyed by the ranks of its names, not the names: at 100k assignments, hashing string
	// pairs and sorting by string comparison was most of scheduling. Equal names share a rank, so pairs
	// merge exactly as they would by name, and ordering by rank is ordering by name.
	ctRank := nameRanks(len(set.ClusterTypes), func(i int) string { return set.ClusterTypes[i].Metadata.Name })
	targetRank := nameRanks(len(targets), func(i int) string { return targets[i].Name })
	index := newPairIndex(ctRank, targetRank)
	var out []scheduledPair
	for _, p := range set.SchedulingPolicies {
		dtSel, cts, d := policySelection(set, p)
		if d != nil {
			diags = append(diags, *d)
			continue
		}
		if len(cts) == 0 {
			continue
		}
		ws := p.Spec.DeploymentTargetSelector.Workspace
		for ti, t := range targets {
			if ws != "" && ws != t.Labels[model.WorkspaceLabel] {
				continue
			}
			if !dtSel.Matches(labels.Set(t.Labels)) {
				continue
			}
			for _, ci := range cts {
				if i, ok := index.get(ctRank[ci], targetRank[ti]); ok {
					out[i].policies = append(out[i].policies, p.Metadata.Name)
					continue
				}
				index.put(ctRank[ci], targetRank[ti], len(out))
				out = append(out, scheduledPair{ct: ci, target: ti, policies: []string{p.Metadata.Name}})
			}
		}
	}
	return orderedAssignments(environment, set, targets, out, index), diags
}

// policySelection compiles the policy's deployment target selector and returns it with the indices of
// the cluster types its cluster type selector matches; an invalid selector is a diagnostic instead.
func policySelection(set *model.Set, p *model.SchedulingPolicy) (labels.Selector, []int, *model.Diagnostic) {
	src := set.Source(model.KindSchedulingPolicy, p.Metadata.Name)
	dtSel, err := model.CompileSelector(p.Spec.DeploymentTargetSelector.LabelSelector)
	if err != nil {
		d := selectorDiag(src, p.Metadata.Name, "spec.deploymentTargetSelector.labelSelector", err)
		return nil, nil, &d
	}
	ctSel, err := model.CompileSelector(p.Spec.ClusterTypeSelector.LabelSelector)
	if err != nil {
		d := selectorDiag(src, p.Metadata.Name, "spec.clusterTypeSelector.labelSelector", err)
		return nil, nil, &d
	}
	var cts []int
	for i, ct := range set.ClusterTypes {
		if ctSel.Matches(labels.Set(ct.Metadata.Labels)) {
			cts = append(cts, i)
		}
	}
	return dtSel, cts, nil
}

// orderedAssignments turns the scheduled pairs into Assignments, by cluster type name, then target name.
func orderedAssignments(environment string, set *model.Set, targets []*DeploymentTarget, pairs []scheduledPair, index *pairIndex) []Assignment {
	sorted := make([]Assignment, 0, len(pairs))
	for _, i := range index.ordered(len(pairs)) {
		ct, t := set.ClusterTypes[pairs[i].ct].Metadata.Name, targets[pairs[i].target]
		sorted = append(sorted, Assignment{
			ClusterType: ct, DeploymentTarget: t.Name, Workload: t.Workload, Workspace: t.Workspace,
			SchedulingPolicies: pairs[i].policies,
			Namespace:          environment + "-" + ct + "-" + t.Name,
			Path:               assignmentPath(ct, t.Name),
		})
	}
	return sorted
}

// unscheduledTargets lists, in order, the deployment targets that no assignment places.
func unscheduledTargets(targets []*DeploymentTarget, assignments []Assignment) []string {
	scheduled := map[string]bool{}
	for _, a := range assignments {
		scheduled[a.DeploymentTarget] = true
	}
	var names []string
	for _, t := range targets {
		if !scheduled[t.Name] {
			names = append(names, t.Name)
		}
	}
	return names
}

// pairIndex maps a (cluster type rank, target rank) pair to the index of its assignment. When the grid
// of all pairs is small enough (300 cluster types x 500 targets is 150k cells) it is a dense array,
// which is both faster than a map and already in (cluster type, target) order, so ordering the
// assignments needs no sort; otherwise a map whose keys are sorted at the end.
type pairIndex struct {
	targets uint64
	dense   []int32 // assignment index + 1; 0 means none
	sparse  map[uint64]int
}

// denseIndexLimit bounds the dense grid to 16 MiB.
const denseIndexLimit = 1 << 22

func newPairIndex(ctRank, targetRank []uint32) *pairIndex {
	cts, targets := uint64(maxRank(ctRank)), uint64(maxRank(targetRank))
	if cts*targets <= denseIndexLimit {
		return &pairIndex{targets: targets, dense: make([]int32, cts*targets)}
	}
	return &pairIndex{sparse: map[uint64]int{}}
}

func maxRank(ranks []uint32) uint32 {
	var n uint32
	for _, r := range ranks {
		n = max(n, r+1)
	}
	return n
}

func (x *pairIndex) get(ct, target uint32) (int, bool) {
	if x.dense != nil {
		i := x.dense[uint64(ct)*x.targets+uint64(target)]
		return int(i) - 1, i != 0
	}
	i, ok := x.sparse[uint64(ct)<<32|uint64(target)]
	return i, ok
}

func (x *pairIndex) put(ct, target uint32, i int) {
	if x.dense != nil {
		x.dense[uint64(ct)*x.targets+uint64(target)] = int32(i + 1)
		return
	}
	x.sparse[uint64(ct)<<32|uint64(target)] = i
}

// ordered returns the n assignment indices by cluster type name, then target name.
func (x *pairIndex) ordered(n int) []int {
	out := make([]int, 0, n)
	if x.dense != nil {
		for _, i := range x.dense {
			if i != 0 {
				out = append(out, int(i)-1)
			}
		}
		return out
	}
	keys := make([]uint64, 0, len(x.sparse))
	for k := range x.sparse {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, x.sparse[k])
	}
	return out
}

// nameRanks returns, for each of n named items, the rank of its name among the distinct names.
func nameRanks(n int, name func(int) string) []uint32 {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return name(order[a]) < name(order[b]) })
	ranks := make([]uint32, n)
	var rank uint32
	for k, i := range order {
		if k > 0 && name(i) != name(order[k-1]) {
			rank++
		}
		ranks[i] = rank
	}
	return ranks
}

func selectorDiag(src model.Source, name, field string, err error) model.Diagnostic {
	return model.Diagnostic{
		Severity: model.SeverityError, Summary: "Invalid label selector", Source: src, Kind: model.KindSchedulingPolicy, Name: name, Field: field,
		Detail: err.Error() + "; operators are In, NotIn (both need values), Exists and DoesNotExist (no values)",
	}
}
