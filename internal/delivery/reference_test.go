// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The ratchet of issue 29: 20 -> 10 -> 5 -> 0 files, each step under half of what the branch held. Counted
// from the largest tree delivered, the second step is refused; max_delete_percent = 100 lets it through and
// makes what it leaves the reference.
func TestPlanReference_TheRatchetIsRefused(t *testing.T) {
	t.Parallel()
	step := func(prior, current, desired, deleted, percent int) (*Planning, error) {
		p := &Planning{ID: "id", Config: Config{Resource: Resource{MaxDeletePercent: percent}}, Prior: &Prior{DeletionReference: prior},
			Changes: &Plan{CurrentFiles: current, DesiredFiles: desired, Counts: Counts{Delete: deleted}, ByDirectory: map[string]Counts{"a": {Delete: deleted}}}}
		return p, planReference(context.Background(), p)
	}
	p, err := step(0, 20, 10, 10, 50)
	if err != nil || p.Reference != "20" {
		t.Fatalf("20 -> 10: %q, %v", p.Reference, err)
	}
	_, err = step(20, 10, 5, 5, 50)
	var rf *Refusal
	if !errors.As(err, &rf) || rf.Attribute != "max_delete_percent" || !strings.Contains(rf.Detail, "leaves 5 of the 20 files this resource has delivered under the path at most (75% gone, more than max_delete_percent = 50)") ||
		!strings.Contains(rf.Detail, "Nothing was written") {
		t.Fatalf("10 -> 5 after 20: %v", err)
	}
	if p, err = step(20, 10, 5, 5, 100); err != nil || p.Reference != "5" {
		t.Fatalf("10 -> 5 with max_delete_percent = 100: %q, %v", p.Reference, err)
	}
	if p, err = step(20, 10, 12, 1, 50); err != nil || p.Reference != "20" {
		t.Fatalf("a small change under the reference: %q, %v", p.Reference, err)
	}
	p = &Planning{Config: Config{Resource: Resource{MaxDeletePercent: 50}}, Prior: &Prior{DeletionReference: 20},
		Changes: &Plan{CurrentFiles: 20, DesiredFiles: 30, Counts: Counts{Create: 10}}}
	if err = planReference(context.Background(), p); err != nil || p.Reference != "30" {
		t.Fatalf("growth: %q, %v", p.Reference, err)
	}
	// A move starts afresh; a withdrawn proposal deletes nothing from the base; an empty update keeps the state's.
	p = &Planning{Config: Config{Resource: Resource{MaxDeletePercent: 50}}, Prior: &Prior{DeletionReference: 100}, Move: &MovePlan{},
		Changes: &Plan{CurrentFiles: 0, DesiredFiles: 4, Counts: Counts{Create: 4}}}
	if err := planReference(context.Background(), p); err != nil || p.Reference != "4" {
		t.Fatalf("a move: %q, %v", p.Reference, err)
	}
	p = &Planning{Prior: &Prior{DeletionReference: 20}, Changes: &Plan{}}
	if err := planReference(context.Background(), p); err != nil || p.Reference != "" {
		t.Fatalf("an empty update: %q, %v", p.Reference, err)
	}
	p = &Planning{Changes: &Plan{CurrentFiles: 7, DesiredFiles: 7}}
	if err := planReference(context.Background(), p); err != nil || p.Reference != "7" {
		t.Fatalf("a create that finds its files: %q, %v", p.Reference, err)
	}
	if ParseReference("") != 0 || ParseReference("x") != 0 || ParseReference("-3") != 0 || ParseReference("12") != 12 {
		t.Error("ParseReference")
	}
}
