// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Set is a decoded collection of Kalypso objects, indexed by kind and name.
type Set struct {
	ClusterTypes          []*ClusterType
	SchedulingPolicies    []*SchedulingPolicy
	Workloads             []*Workload
	WorkloadRegistrations []*WorkloadRegistration
	Templates             []*Template
	ConfigMaps            []*ConfigMap
	ConfigSchemas         []*ConfigSchema
	BaseRepos             []*BaseRepo
	GitOpsRepos           []*GitOpsRepo
	Environments          []*Environment

	// Sources records where each object came from, by kind and name.
	Sources map[string]map[string]Source
}

// Parse decodes every document of every input into a Set. Objects of one kind are sorted by name.
func Parse(inputs []string) (*Set, Diagnostics) {
	// Splitting scans each document with a YAML parser (yamlDocumentCount): a tenth of a parse, which
	// ran on one core before the decoding. Each input splits alone; the results are joined in order.
	type split struct {
		docs  []Document
		diags Diagnostics
	}
	splits := make([]split, len(inputs))
	onEveryCore(len(inputs), func(i int) { splits[i].docs, splits[i].diags = SplitDocuments(i, inputs[i]) })
	var docs []Document
	var diags Diagnostics
	for _, s := range splits {
		docs = append(docs, s.docs...)
		diags = append(diags, s.diags...)
	}
	set, ds := ParseDocuments(docs)
	return set, append(diags, ds...)
}

// onEveryCore calls fn for 0 ≤ i < n on as many goroutines as there are cores, and returns when all
// calls have. (model imports no package of the module, so this is not internal/parallel.)
func onEveryCore(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// ParseDocuments decodes documents that were already split, for example by a control-plane reader.
func ParseDocuments(docs []Document) (*Set, Diagnostics) {
	set := &Set{Sources: map[string]map[string]Source{}}
	// Decoding is most of a parse (a fleet of 700 documents took 55 ms on one core) and each document
	// decodes alone: decode on every core, then add in order, so that diagnostics keep their order.
	type decoded struct {
		entry *Entry
		diags Diagnostics
	}
	out := make([]decoded, len(docs))
	onEveryCore(len(docs), func(i int) { out[i].entry, out[i].diags = DecodeDocument(docs[i]) })
	var diags Diagnostics
	for _, d := range out {
		entry, ds := d.entry, d.diags
		diags = append(diags, ds...)
		if entry == nil || ds.HasError() {
			continue
		}
		diags = append(diags, set.Add(entry)...)
	}
	set.sort()
	return set, diags
}

// Add puts one decoded entry into the set; a second object of the same kind and name is an error naming both places.
func (s *Set) Add(e *Entry) Diagnostics {
	byName := s.Sources[e.Kind]
	if byName == nil {
		byName = map[string]Source{}
		s.Sources[e.Kind] = byName
	}
	if prev, ok := byName[e.Name]; ok {
		return Diagnostics{{
			Severity: SeverityError, Summary: "Duplicate object", Source: e.Doc.Source, Kind: e.Kind, Name: e.Name,
			Detail: fmt.Sprintf("%s %q is defined twice: first at %s, again at %s; rename or remove one", e.Kind, e.Name, prev, e.Doc.Source),
		}}
	}
	byName[e.Name] = e.Doc.Source
	if k := kindOf(e.Kind); k != nil {
		k.add(s, e.Object)
	}
	return nil
}

// Source returns where an object came from.
func (s *Set) Source(kind, name string) Source {
	if src, ok := s.Sources[kind][name]; ok {
		return src
	}
	return NoSource
}

func (s *Set) sort() {
	for _, k := range kindTable {
		k.sort(s)
	}
}

// Names lists the names of the objects of one kind, sorted once the set is parsed; nil for an
// unknown kind.
func (s *Set) Names(kind string) []string {
	if k := kindOf(kind); k != nil {
		return k.names(s)
	}
	return nil
}

// PromotedCommit is spec.commit of the BaseRepo named `main`, or "".
func (s *Set) PromotedCommit() string {
	if b := s.MainBaseRepo(); b != nil {
		return b.Spec.Commit
	}
	return ""
}

// MainBaseRepo is the BaseRepo named `main` (BaseRepoMain), or nil.
func (s *Set) MainBaseRepo() *BaseRepo {
	for _, b := range s.BaseRepos {
		if b.Metadata.Name == BaseRepoMain {
			return b
		}
	}
	return nil
}
