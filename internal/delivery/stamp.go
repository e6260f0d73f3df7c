// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// PlanStamp is what a plan of kalypso_gitops_commit found that Terraform does not carry to the plan it
// makes again right before applying: whether the branch existed, and which provider build computed the
// desired tree. Terraform hands that apply-time plan the prior state's private data, not the saved
// plan's, so the stamp travels through the local render store (RenderStore.SaveStamp).
type PlanStamp struct {
	Build        string `json:"build"`
	BranchExists bool   `json:"branch_exists"`
	// Values fingerprints what the plan shows (Plan.Fingerprint).
	Values string `json:"values"`
}

// StampOf is the stamp of plan p made by provider build.
func StampOf(build string, p *Plan) PlanStamp {
	return PlanStamp{Build: build, BranchExists: p.BranchExists, Values: p.Fingerprint()}
}

// Fingerprint digests the values a plan shows: the change set with its counts, and the base and desired
// trees. Two plans with one fingerprint show the same.
func (p *Plan) Fingerprint() string {
	b, err := json.Marshal(struct {
		Changes               map[string]Change
		Counts                Counts
		Omitted               int
		ByDirectory           map[string]Counts
		BaseTree, DesiredTree string
	}{p.Changes, p.Counts, p.Omitted, p.ByDirectory, p.BaseTree, p.DesiredTree})
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// StampKey names the plans of one resource from one prior state and one configuration: the apply-time
// plan of a saved plan computes the same key. config fingerprints the configuration without the provider
// build (the render inputs, or the files' tree).
func StampKey(id, priorCommit, priorTree, config string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(id+"\n"+priorCommit+"\n"+priorTree+"\n"+config)))
}

// StampKeyFor is the StampKey of a plan of resource id from the state's commit and tree ("" on create),
// with render inputs configKey, or in files mode ("" configKey) desired tree tree: the files are the
// configuration.
func StampKeyFor(id, priorCommit, priorTree, configKey, tree string) string {
	if configKey == "" {
		configKey = tree
	}
	return StampKey(id, priorCommit, priorTree, configKey)
}

// CheckStamp refuses a plan that shows other values than the last plan with the same key (prev, nil for
// none) because the branch that plan was to create exists now, or because another provider build made
// it: Terraform would report only "Provider produced inconsistent final plan" when this is the plan it
// makes again right before applying a saved plan. A fresh plan that meets such a stamp is refused once
// too, as it cannot tell itself from that apply-time plan; the caller drops the stamp, so the next plan
// succeeds. A branch created meanwhile that leaves the plan's values as they were (another resource wrote
// elsewhere on it) is no reason to refuse.
func CheckStamp(prev *PlanStamp, now PlanStamp, branch string) error {
	switch {
	case prev == nil || prev.Values == now.Values:
		return nil
	case !prev.BranchExists && now.BranchExists:
		return &Error{Attribute: "branch", Summary: "The branch was created since the plan", Err: fmt.Errorf(
			"branch %q did not exist when the plan was made, so the plan creates it holding only this resource's files; someone else has "+
				"created it since, with other content under path. Nothing was written. Run terraform plan again and review the changes against the branch as it is now", branch)}
	case prev.Build != now.Build:
		return &Error{Summary: "The provider changed since the plan", Err: fmt.Errorf(
			"the plan was made by provider build %q, and this build (%q) computes other changes for the same configuration and branch. "+
				"Nothing was written. Run terraform plan again with this provider and review the new changes", prev.Build, now.Build)}
	}
	return nil
}

func (s *RenderStore) stampPath(key string) (string, error) {
	if _, err := s.recordPath(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, "plans", key+".json"), nil
}

// LoadStamp returns the stamp saved under key, or nil when there is none or it cannot be read.
func (s *RenderStore) LoadStamp(key string) *PlanStamp {
	if s == nil {
		return nil
	}
	p, err := s.stampPath(key)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(p)
	var st PlanStamp
	if err != nil || json.Unmarshal(b, &st) != nil {
		return nil
	}
	return &st
}

// SaveStamp keeps st under key, replacing what was there.
func (s *RenderStore) SaveStamp(key string, st PlanStamp) error {
	if s == nil {
		return nil
	}
	p, err := s.stampPath(key)
	if err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := gitrepo.WriteFileAtomic(p, b); err != nil {
		return err
	}
	gitrepo.TrimOldest(filepath.Dir(p), renderStoreRecords)
	return nil
}

// DropStamp removes the stamp under key: after an apply, or once it refused a plan.
func (s *RenderStore) DropStamp(key string) {
	if s == nil {
		return
	}
	if p, err := s.stampPath(key); err == nil {
		_ = os.Remove(p)
	}
}
