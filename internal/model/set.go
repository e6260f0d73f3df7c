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
	var docs []Document
	var diags Diagnostics
	for i, in := range inputs {
		d, ds := SplitDocuments(i, in)
		docs = append(docs, d...)
		diags = append(diags, ds...)
	}
	set, ds := ParseDocuments(docs)
	return set, append(diags, ds...)
}

// ParseDocuments decodes documents that were already split, for example by a control-plane reader.
func ParseDocuments(docs []Document) (*Set, Diagnostics) {
	set := &Set{Sources: map[string]map[string]Source{}}
	// Decoding is most of a parse (a fleet of 700 documents took 55 ms on one core) and each document
	// decodes alone: decode on every core, then add in order, so that diagnostics keep their order. (model
	// imports no package of the module, so the loop is written here rather than with internal/parallel.)
	type decoded struct {
		entry *Entry
		diags Diagnostics
	}
	out := make([]decoded, len(docs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(docs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				out[i].entry, out[i].diags = DecodeDocument(docs[i])
			}
		}()
	}
	wg.Wait()
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
