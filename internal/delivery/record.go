// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// RenderRecord is what an apply in render mode keeps in the resource's private state: the render's inputs
// (with the code that renders them), the managed tree they render to, and the render's warnings. A plan
// whose inputs are the same, against a branch that still holds that tree, has nothing to change and
// needs no render: at 86k assignments that is most of an empty re-plan.
type RenderRecord struct {
	Inputs   string            `json:"inputs"`
	Tree     string            `json:"tree"`
	Warnings model.Diagnostics `json:"warnings,omitempty"`
	// Summary is what render_summary shows; a RenderStore's records hold it.
	Summary *RenderSummary `json:"summary,omitempty"`
}

// RenderInputs fingerprints a render's inputs: the build of the code that renders (render.BuildID) and
// the key of the inputs themselves, so that a new provider build never reuses an old build's tree.
func RenderInputs(buildID string, key []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(append([]byte(buildID+"\n"), key...)))
}

// Marshal encodes the record; it is nil (no record) when the record names no inputs or no tree, as in
// files mode.
func (r RenderRecord) Marshal() []byte {
	if r.Inputs == "" || r.Tree == "" {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	return b
}

// ParseRenderRecord decodes a record written by Marshal. It returns nil when there is none or it cannot be
// read: the plan then renders, which is always correct.
func ParseRenderRecord(b []byte) *RenderRecord {
	var r RenderRecord
	if len(b) == 0 || json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

// Reusable reports whether a render of inputs may be skipped in favour of the recorded tree. Whether the
// branch still holds that tree is Compute's question (Desired.RecordedTree, ErrFilesNeeded).
func (r *RenderRecord) Reusable(inputs string) bool {
	return r != nil && inputs != "" && r.Inputs == inputs && r.Tree != ""
}
