// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"encoding/json"
	"fmt"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// A replacement (`terraform apply -replace`, `terraform taint`, `replace_triggered_by`) is a destroy and a
// create of one resource. Terraform destroys first: removing the files and writing them again would
// leave the path empty between two commits, and empty for good when the create fails. At the same
// location the new object takes the files over instead: the create's plan computes its change set against
// the branch as it is and records the location it takes over (TakeOver) in its planned private state,
// which Terraform hands to the destroy of the replaced object; that destroy writes nothing. With
// create_before_destroy the destroy of the old object comes after the create applied, in the same
// process: Locations.WasApplied tells it. A replacement that also changes the location is refused at plan:
// a change of location is a move, one update that writes the new location first.
//
// Terraform plans a forced replacement twice: once with the prior state (an ordinary update plan, which
// cannot tell) and again as a create without it, handing the create the first plan's private state. The
// first plan records the state's location there (Replaced), so the create's plan knows what it replaces.

// Replaced is what an update's plan records of the resource in state, for the create's plan of a forced
// replacement.
type Replaced struct {
	ID          string `json:"id"`
	AdoptedFrom string `json:"adopted_from,omitempty"`
}

// Marshal encodes the record.
func (r Replaced) Marshal() []byte {
	b, _ := json.Marshal(r)
	return b
}

// ParseReplaced decodes a record written by Marshal into the Prior it names; nil when there is none.
func ParseReplaced(b []byte) *Prior {
	var r Replaced
	if len(b) == 0 || json.Unmarshal(b, &r) != nil || r.ID == "" {
		return nil
	}
	repoURL, dir, branch, err := ParseID(r.ID)
	if err != nil {
		return nil
	}
	p := &Prior{ID: r.ID, RawPath: dir, Resource: Resource{RepoURL: repoURL, Branch: branch, AdoptedFrom: r.AdoptedFrom}}
	p.Resource.Path, _ = gitrepo.CleanPath(dir)
	return p
}

// TakeOver is the location a create takes over, recorded in its planned private state: the destroy of a
// replaced object at that location writes nothing.
type TakeOver struct {
	RepoKey string `json:"repository_key"`
	Branch  string `json:"branch"`
	Path    string `json:"path"`
}

// Marshal encodes the record.
func (t TakeOver) Marshal() []byte {
	b, _ := json.Marshal(t)
	return b
}

// ParseTakeOver decodes a record written by Marshal; nil when there is none.
func ParseTakeOver(b []byte) *TakeOver {
	var t TakeOver
	if len(b) == 0 || json.Unmarshal(b, &t) != nil || t.RepoKey == "" {
		return nil
	}
	return &t
}

// Covers reports whether the take-over is of r's location (key gives a repository's key).
func (t *TakeOver) Covers(r Resource, key func(string) string) bool {
	return t != nil && t.RepoKey == key(r.RepoURL) && t.Branch == r.Branch && t.Path == r.Path
}

// takeOver is the location the plan's create takes over.
func (p *Planning) takeOver() TakeOver {
	dir, _ := gitrepo.CleanPath(p.Config.RawPath)
	return TakeOver{RepoKey: p.repoKey(p.Config.Resource.RepoURL), Branch: p.Config.Resource.Branch, Path: dir}
}

// TakeOverRecord is the TakeOver a create's plan records (nil for an update, or before the location is known).
func (p *Planning) TakeOverRecord() []byte {
	if p.Prior != nil || p.ID == "" {
		return nil
	}
	return p.takeOver().Marshal()
}

// ReplacedRecord is the Replaced an update's plan records (nil on create).
func (p *Planning) ReplacedRecord() []byte {
	if p.Prior == nil {
		return nil
	}
	return Replaced{ID: p.Prior.ID, AdoptedFrom: p.Prior.Resource.AdoptedFrom}.Marshal()
}

// planReplacement checks the create of a forced replacement: at the same location it takes the files
// over (nothing is removed first), elsewhere it is refused. Terraform shows only the errors of this
// second plan of a replacement, not its warnings: the plan's -/+ and its change set say what happens.
func (p *Planning) planReplacement() error {
	old := p.Replaces
	if !Moved(old.Resource, p.Config.Resource, p.repoKey) {
		return nil
	}
	return &Refusal{Attribute: "path", Summary: "A replacement cannot change the location", Detail: fmt.Sprintf(
		"kalypso_gitops_commit %s: replacing the resource and delivering it to %s would remove the old location before the new one is written "+
			"(Terraform destroys first), and leave it empty if the create fails. Nothing was written. Apply the change of location without "+
			"-replace (or replace_triggered_by): a change of repository_url, branch or path is a move, one planned update that writes the new "+
			"location first; replace afterwards if you still need to", old.ID, p.ID)}
}
