// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"fmt"
	"slices"
)

// OneMoreAssignment returns a SchedulingPolicy document that, added to the fleet, schedules exactly one
// more assignment and changes no other: the "one policy added" model change of the delivery
// benchmarks (issue 13). It selects one deployment target by its workload and its own labels, and one
// cluster type whose label set no other cluster type has (absent optional labels pinned with
// DoesNotExist), on a pair that no policy schedules yet. The count is checked with Expect.
func (f Fleet) OneMoreAssignment() (Document, error) {
	p, err := f.oneMorePolicy()
	if err != nil {
		return Document{}, err
	}
	return policyDocument(p), nil
}

func (f Fleet) oneMorePolicy() (SchedulingPolicy, error) {
	targets := EffectiveTargets(f.Spec.Environment, f.Workloads)
	scheduled := map[Pair]bool{}
	for _, p := range Assignments(targets, f.ClusterTypes, f.Policies) {
		scheduled[p] = true
	}
	optional := map[string]bool{}
	for _, ct := range f.ClusterTypes {
		for k := range ct.Labels {
			optional[k] = true
		}
	}
	keys := sortedKeys(optional)
	for ci, ct := range f.ClusterTypes {
		sel := Selector{MatchLabels: ct.Labels}
		for _, k := range keys {
			if _, ok := ct.Labels[k]; !ok {
				sel.MatchExpressions = append(sel.MatchExpressions, Requirement{Key: k, Operator: OperatorDoesNotExist})
			}
		}
		if n := countMatching(sel, f.ClusterTypes); n != 1 {
			continue
		}
		for ti, t := range targets {
			if scheduled[Pair{Target: ti, ClusterType: ci}] {
				continue
			}
			// The target's own labels (target overridden by workload, plus workload and workspace) are
			// unique per target when the workload has no two targets with the same labels.
			policy := SchedulingPolicy{
				Name:                     "zz-one-more-assignment",
				DeploymentTargetSelector: Selector{MatchLabels: t.Labels},
				ClusterTypeSelector:      sel,
			}
			before := Expect(f.Spec.Environment, f.ClusterTypes, f.Workloads, f.Policies).Assignments
			after := Expect(f.Spec.Environment, f.ClusterTypes, f.Workloads, append(slices.Clip(f.Policies), policy)).Assignments
			if after != before+1 {
				continue
			}
			return policy, nil
		}
	}
	return SchedulingPolicy{}, fmt.Errorf("no unscheduled pair of a deployment target and a cluster type with unique labels in this fleet")
}

func countMatching(sel Selector, clusterTypes []ClusterType) int {
	n := 0
	for _, ct := range clusterTypes {
		if sel.Matches(ct.Labels) {
			n++
		}
	}
	return n
}

func policyDocument(p SchedulingPolicy) Document {
	return Document{Kind: "SchedulingPolicy", Name: p.Name, Path: "scheduling/" + p.Name + ".yaml", YAML: policyYAML(p)}
}

// WithOneMoreAssignment returns the fleet with OneMoreAssignment's policy added, in its documents, its
// tfvars and its expected counts.
func (f Fleet) WithOneMoreAssignment() (Fleet, error) {
	policy, err := f.oneMorePolicy()
	if err != nil {
		return Fleet{}, err
	}
	f.Policies = append(slices.Clip(f.Policies), policy)
	f.Documents = f.render()
	f.Expected = Expect(f.Spec.Environment, f.ClusterTypes, f.Workloads, f.Policies)
	return f, nil
}

// OneMoreClusterType returns a ClusterType document that copies the labels and reconciler of an
// existing cluster type under a new name, and the number of assignments it adds: the "one cluster
// type added" half of issue 22's delivery change (one cluster type and one policy). The copied
// cluster type is not the one OneMoreAssignment's policy selects, so the two changes add up: the new
// cluster type receives what its twin receives, and the policy adds exactly one more.
func (f Fleet) OneMoreClusterType() (Document, int, error) {
	policy, err := f.oneMorePolicy()
	if err != nil {
		return Document{}, 0, err
	}
	before := Expect(f.Spec.Environment, f.ClusterTypes, f.Workloads, f.Policies).Assignments
	for _, ct := range f.ClusterTypes {
		if policy.ClusterTypeSelector.Matches(ct.Labels) {
			continue
		}
		twin := ClusterType{Name: "zz-one-more-cluster-type", Labels: ct.Labels, Reconciler: ct.Reconciler}
		after := Expect(f.Spec.Environment, append(slices.Clip(f.ClusterTypes), twin), f.Workloads, f.Policies).Assignments
		if after == before {
			continue // a twin of a cluster type that nothing lands on changes no file
		}
		return Document{Kind: "ClusterType", Name: twin.Name, Path: "cluster-types/" + twin.Name + ".yaml", YAML: clusterTypeYAML(twin)}, after - before, nil
	}
	return Document{}, 0, fmt.Errorf("no cluster type with assignments to copy in this fleet")
}
