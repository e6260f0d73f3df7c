// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import "slices"

// Expectation is what a correct scheduler must produce for a fleet.
type Expectation struct {
	// DeploymentTargets is the number of targets in the fleet's environment.
	DeploymentTargets int
	// Assignments is the number of unique (deployment target, cluster type)
	// pairs selected by at least one policy.
	Assignments int
	// UnscheduledDeploymentTargets is the number of targets no policy selects.
	UnscheduledDeploymentTargets int
}

// EffectiveTarget is a deployment target as the scheduler sees it.
type EffectiveTarget struct {
	// Name is <workload>-<target>.
	Name      string
	Workload  string
	Workspace string
	// Labels are the target's labels, overridden by the workload's, plus
	// workload and workspace.
	Labels    map[string]string
	Manifests Manifests
}

// EffectiveTargets derives the deployment targets of one environment.
func EffectiveTargets(environment string, workloads []Workload) []EffectiveTarget {
	var out []EffectiveTarget
	for _, w := range workloads {
		for _, t := range w.DeploymentTargets {
			if t.Environment != environment {
				continue
			}
			labels := make(map[string]string, len(t.Labels)+len(w.Labels)+2)
			for k, v := range t.Labels {
				labels[k] = v
			}
			for k, v := range w.Labels {
				labels[k] = v
			}
			labels["workload"] = w.Name
			labels["workspace"] = w.Workspace
			out = append(out, EffectiveTarget{
				Name:      w.Name + "-" + t.Name,
				Workload:  w.Name,
				Workspace: w.Workspace,
				Labels:    labels,
				Manifests: t.Manifests,
			})
		}
	}
	return out
}

// Matches is a plain reading of Kubernetes label selector semantics: every
// matchLabels entry and every expression must hold, NotIn and DoesNotExist
// hold for objects that lack the key, and an empty selector matches all.
func (s Selector) Matches(labels map[string]string) bool {
	for k, want := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != want {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		got, ok := labels[r.Key]
		switch r.Operator {
		case OperatorIn:
			if !ok || !slices.Contains(r.Values, got) {
				return false
			}
		case OperatorNotIn:
			if ok && slices.Contains(r.Values, got) {
				return false
			}
		case OperatorExists:
			if !ok {
				return false
			}
		case OperatorDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// SelectsTarget reports whether the policy's deployment target side selects t.
func (p SchedulingPolicy) SelectsTarget(t EffectiveTarget) bool {
	if p.Workspace != "" && p.Workspace != t.Labels["workspace"] {
		return false
	}
	return p.DeploymentTargetSelector.Matches(t.Labels)
}

// Pair is one assignment, by index into the targets and cluster types.
type Pair struct{ Target, ClusterType int }

// Assignments returns every selected (target, cluster type) pair once, in
// target then cluster type order.
func Assignments(targets []EffectiveTarget, clusterTypes []ClusterType, policies []SchedulingPolicy) []Pair {
	selected := make([]bool, len(targets)*len(clusterTypes))
	for _, p := range policies {
		var cts []int
		for ci, ct := range clusterTypes {
			if p.ClusterTypeSelector.Matches(ct.Labels) {
				cts = append(cts, ci)
			}
		}
		for ti, t := range targets {
			if !p.SelectsTarget(t) {
				continue
			}
			for _, ci := range cts {
				selected[ti*len(clusterTypes)+ci] = true
			}
		}
	}
	var pairs []Pair
	for i, ok := range selected {
		if ok {
			pairs = append(pairs, Pair{Target: i / len(clusterTypes), ClusterType: i % len(clusterTypes)})
		}
	}
	return pairs
}

// Expect computes the Expectation for a model.
func Expect(environment string, clusterTypes []ClusterType, workloads []Workload, policies []SchedulingPolicy) Expectation {
	targets := EffectiveTargets(environment, workloads)
	pairs := Assignments(targets, clusterTypes, policies)
	scheduled := make([]bool, len(targets))
	for _, p := range pairs {
		scheduled[p.Target] = true
	}
	unscheduled := 0
	for _, ok := range scheduled {
		if !ok {
			unscheduled++
		}
	}
	return Expectation{
		DeploymentTargets:            len(targets),
		Assignments:                  len(pairs),
		UnscheduledDeploymentTargets: unscheduled,
	}
}
