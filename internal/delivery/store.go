// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// A change is planned in one provider process and applied in another (terraform plan -out, then apply;
// even terraform apply plans again in a new process before it writes). The plan that rendered keeps its
// desired tree in a RenderStore on local disk, under the fingerprint of the render's inputs
// (RenderInputs); the next process with the same inputs loads that tree instead of rendering. Where the
// store is not at hand (HCP Terraform plans and applies on different workers) the apply renders again,
// and Terraform refuses an apply whose content_hash differs from the saved plan's.

// RenderSummary is what render_summary shows of a render.
type RenderSummary struct {
	Assignments int `json:"assignments"`
	// ByClusterType counts the assignments of every cluster type of the environment.
	ByClusterType  map[string]int `json:"by_cluster_type"`
	ClusterTypes   []string       `json:"cluster_types"`
	Unscheduled    []string       `json:"unscheduled,omitempty"`
	PromotedCommit string         `json:"promoted_commit,omitempty"`
	// Workloads maps each assigned deployment target to its workload, for the Markdown summary's counts
	// per workload.
	Workloads map[string]string `json:"workloads,omitempty"`
}

// SummaryOf summarises a render.
func SummaryOf(res *render.Result) *RenderSummary {
	s := &RenderSummary{Assignments: len(res.Assignments), ByClusterType: make(map[string]int, len(res.ClusterTypes)),
		ClusterTypes: res.ClusterTypes, Unscheduled: res.Unscheduled, PromotedCommit: res.PromotedCommit}
	for _, ct := range res.ClusterTypes {
		s.ByClusterType[ct] = 0
	}
	for _, a := range res.Assignments {
		s.ByClusterType[a.ClusterType]++
		if s.Workloads == nil {
			s.Workloads = map[string]string{}
		}
		s.Workloads[a.DeploymentTarget] = a.Workload
	}
	return s
}

// renderStoreRecords bounds the records a RenderStore keeps: the oldest go first.
const renderStoreRecords = 64

// RenderStore keeps what plans rendered: a RenderRecord (with its RenderSummary) per render inputs in
// dir/renders, and the trees in the gitrepo.TreeStore dir/trees. It is a cache: anything missing or
// unreadable is rendered again. A nil *RenderStore keeps nothing.
type RenderStore struct {
	dir   string
	trees *gitrepo.TreeStore

	// The last tree loaded: the apply walk's plan loads it and its apply writes it, in one process.
	mu         sync.Mutex
	loadedID   string
	loadedTree *gitrepo.Tree
}

// NewRenderStore returns the store kept in dir.
func NewRenderStore(dir string) *RenderStore {
	return &RenderStore{dir: dir, trees: gitrepo.NewTreeStore(filepath.Join(dir, "trees"))}
}

// Dir is where the store is kept.
func (s *RenderStore) Dir() string { return s.dir }

func (s *RenderStore) recordPath(inputs string) (string, error) {
	if len(inputs) != 64 {
		return "", fmt.Errorf("render inputs %q are not a SHA-256 fingerprint", inputs)
	}
	for _, c := range inputs {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", fmt.Errorf("render inputs %q are not a SHA-256 fingerprint", inputs)
		}
	}
	return filepath.Join(s.dir, "renders", inputs+".json"), nil
}

// Save keeps tree t, the desired tree of rec (rec.Tree is t's id), with the record that finds it.
func (s *RenderStore) Save(rec RenderRecord, t *gitrepo.Tree) error {
	if s == nil {
		return nil
	}
	p, err := s.recordPath(rec.Inputs)
	if err != nil {
		return err
	}
	if rec.Tree != t.ID() {
		return fmt.Errorf("the record names tree %s, not %s", rec.Tree, t.ID())
	}
	if err := s.trees.Put(t); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// Written after the tree: a reader sees the whole record or none, and the tree it names is stored already.
	if err := gitrepo.WriteFileAtomic(p, b); err != nil {
		return err
	}
	gitrepo.TrimOldest(filepath.Dir(p), renderStoreRecords)
	return nil
}

// Load returns the record of inputs and its desired tree, checked present and complete. It returns
// gitrepo.ErrTreeNotStored (wrapped) when the store has no usable record or tree: the caller renders.
func (s *RenderStore) Load(inputs string) (*RenderRecord, *gitrepo.Tree, error) {
	if s == nil {
		return nil, nil, gitrepo.ErrTreeNotStored
	}
	p, err := s.recordPath(inputs)
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("no record of these render inputs: %w", gitrepo.ErrTreeNotStored)
	}
	if err != nil {
		return nil, nil, err
	}
	var rec RenderRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Inputs != inputs || rec.Tree == "" || rec.Summary == nil {
		return nil, nil, fmt.Errorf("the record %s is unreadable: %w", p, gitrepo.ErrTreeNotStored)
	}
	t, err := s.Tree(rec.Tree)
	if err != nil {
		return nil, nil, err
	}
	return &rec, t, nil
}

// Tree loads tree id, or returns the one loaded last.
func (s *RenderStore) Tree(id string) (*gitrepo.Tree, error) {
	if s == nil {
		return nil, gitrepo.ErrTreeNotStored
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadedID == id && s.loadedTree != nil {
		return s.loadedTree, nil
	}
	t, err := s.trees.Tree(id)
	if err != nil {
		return nil, err
	}
	s.loadedID, s.loadedTree = id, t
	return t, nil
}
