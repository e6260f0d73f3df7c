// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import "sort"

// kindTable is the one place that lists the kinds: it pairs each kind with its apiVersion, its Go
// type and its slice in Set. Decoding, encoding, Set.Add, sorting, Kinds and Set.Names all read
// it, so adding a kind is a Set field and one line here.
var kindTable = []kindInfo{
	kindEntry(KindClusterType, APIVersion, func(s *Set) *[]*ClusterType { return &s.ClusterTypes }),
	kindEntry(KindSchedulingPolicy, APIVersion, func(s *Set) *[]*SchedulingPolicy { return &s.SchedulingPolicies }),
	kindEntry(KindWorkload, APIVersion, func(s *Set) *[]*Workload { return &s.Workloads }),
	kindEntry(KindWorkloadRegistration, APIVersion, func(s *Set) *[]*WorkloadRegistration { return &s.WorkloadRegistrations }),
	kindEntry(KindTemplate, APIVersion, func(s *Set) *[]*Template { return &s.Templates }),
	kindEntry(KindConfigMap, ConfigMapAPIVersion, func(s *Set) *[]*ConfigMap { return &s.ConfigMaps }),
	kindEntry(KindConfigSchema, APIVersion, func(s *Set) *[]*ConfigSchema { return &s.ConfigSchemas }),
	kindEntry(KindBaseRepo, APIVersion, func(s *Set) *[]*BaseRepo { return &s.BaseRepos }),
	kindEntry(KindGitOpsRepo, APIVersion, func(s *Set) *[]*GitOpsRepo { return &s.GitOpsRepos }),
	kindEntry(KindEnvironment, APIVersion, func(s *Set) *[]*Environment { return &s.Environments }),
}

// Kinds lists every kind the codec accepts, in a stable order.
var Kinds = func() []string {
	out := make([]string, 0, len(kindTable))
	for _, k := range kindTable {
		out = append(out, k.kind)
	}
	return out
}()

// kindInfo is what the codec and Set know about one kind.
type kindInfo struct {
	kind, apiVersion string
	new              func() Object
	add              func(*Set, Object)
	sort             func(*Set)
	names            func(*Set) []string
}

// kindEntry builds a kindInfo from the kind's Set slice; E is the Go type, P its pointer.
func kindEntry[E any, P interface {
	*E
	Object
}](kind, apiVersion string, slice func(*Set) *[]P) kindInfo {
	return kindInfo{
		kind: kind, apiVersion: apiVersion,
		new: func() Object { return P(new(E)) },
		add: func(s *Set, o Object) {
			if p, ok := o.(P); ok {
				*slice(s) = append(*slice(s), p)
			}
		},
		sort: func(s *Set) {
			items := *slice(s)
			sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
		},
		names: func(s *Set) []string {
			items := *slice(s)
			out := make([]string, 0, len(items))
			for _, o := range items {
				out = append(out, o.GetName())
			}
			return out
		},
	}
}

func kindOf(kind string) *kindInfo {
	for i := range kindTable {
		if kindTable[i].kind == kind {
			return &kindTable[i]
		}
	}
	return nil
}
