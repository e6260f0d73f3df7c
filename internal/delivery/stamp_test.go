// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

// stampPlan computes the change set of want against a branch holding current (missing when absent).
func stampPlan(t *testing.T, current map[string]string, absent bool, want map[string]string) *Plan {
	t.Helper()
	ins := inspection(current, nil)
	if absent {
		ins = &gitrepo.Inspection{Managed: map[string]gitrepo.Entry{}, RootFiles: map[string][]byte{}, ManagedTree: gitrepo.EmptyTreeID}
	}
	p, err := Compute(ins, Desired{Path: "clusters", Files: fixtures.Bytes(want)}, Options{}, reader(current))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckStamp: the plan made again right before an apply is refused, naming what happened and asking
// for a new plan, when the branch its saved plan was to create appeared with other content under path,
// or when another provider build computes other changes; it passes when the values are those of the
// saved plan (a branch another resource created, a new build that renders the same) or there is no stamp.
func TestCheckStamp(t *testing.T) {
	t.Parallel()
	want := map[string]string{"drone/README.md": "drone\n"}
	missing := StampOf("v1", stampPlan(t, nil, true, want))
	theirs := StampOf("v1", stampPlan(t, map[string]string{"drone/README.md": "theirs\n"}, false, want))
	elsewhere := StampOf("v1", stampPlan(t, map[string]string{}, false, want))
	other := map[string]string{"drone/README.md": "drone, rendered by v2\n"}
	cases := []struct {
		name      string
		prev      *PlanStamp
		now       PlanStamp
		summary   string
		attribute string
		detail    []string
	}{
		{name: "no stamp", prev: nil, now: theirs},
		{name: "same plan", prev: &missing, now: missing},
		{name: "branch created with content under path", prev: &missing, now: theirs, summary: "The branch was created since the plan", attribute: "branch",
			detail: []string{`branch "dev" did not exist when the plan was made`, "Nothing was written", "Run terraform plan again"}},
		{name: "branch created, nothing under path", prev: &missing, now: elsewhere},
		{name: "new build, same changes", prev: &theirs, now: StampOf("v2", stampPlan(t, map[string]string{"drone/README.md": "theirs\n"}, false, want))},
		{name: "new build, other changes", prev: &theirs, now: StampOf("v2", stampPlan(t, map[string]string{"drone/README.md": "theirs\n"}, false, other)),
			summary: "The provider changed since the plan", detail: []string{`provider build "v1"`, `this build ("v2")`, "Nothing was written", "Run terraform plan again"}},
		{name: "same build, branch changed under path", prev: &theirs, now: StampOf("v1", stampPlan(t, map[string]string{"drone/README.md": "edited\n"}, false, want))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := CheckStamp(c.prev, c.now, "dev")
			if c.summary == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a refusal %q", err, c.summary)
			}
			if e.Summary != c.summary || e.Attribute != c.attribute {
				t.Errorf("summary %q attribute %q, want %q %q", e.Summary, e.Attribute, c.summary, c.attribute)
			}
			for _, d := range c.detail {
				if !strings.Contains(e.Err.Error(), d) {
					t.Errorf("detail %q lacks %q", e.Err, d)
				}
			}
		})
	}
}

// TestRenderStore_Stamps: a stamp saved by one store is loaded by another on the same directory (the
// apply's process) under the same key only, replaced by the next save, and gone once dropped; StampKey
// tells apart resources, prior states and configurations.
func TestRenderStore_Stamps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := StampKey("repo//clusters?ref=dev", "", "", "tree")
	for _, other := range []string{StampKey("repo//envs?ref=dev", "", "", "tree"), StampKey("repo//clusters?ref=dev", "abc", "", "tree"), StampKey("repo//clusters?ref=dev", "", "", "tree2")} {
		if other == key {
			t.Errorf("StampKey does not tell apart %s", other)
		}
	}
	first := PlanStamp{Build: "v1", Values: "a"}
	if err := NewRenderStore(dir).SaveStamp(key, first); err != nil {
		t.Fatal(err)
	}
	s := NewRenderStore(dir)
	if got := s.LoadStamp(key); got == nil || *got != first {
		t.Fatalf("loaded %+v, want %+v", got, first)
	}
	if got := s.LoadStamp(StampKey("x", "", "", "")); got != nil {
		t.Errorf("another key loads %+v", got)
	}
	second := PlanStamp{Build: "v1", BranchExists: true, Values: "b"}
	if err := s.SaveStamp(key, second); err != nil {
		t.Fatal(err)
	}
	if got := s.LoadStamp(key); got == nil || *got != second {
		t.Errorf("after a second save loaded %+v, want %+v", got, second)
	}
	s.DropStamp(key)
	if got := s.LoadStamp(key); got != nil {
		t.Errorf("a dropped stamp loads %+v", got)
	}
	var none *RenderStore
	if err := none.SaveStamp(key, first); err != nil || none.LoadStamp(key) != nil {
		t.Errorf("a nil store keeps stamps: %v", err)
	}
	if err := s.SaveStamp("../x", first); err == nil {
		t.Error("a key that is no fingerprint is saved")
	}
}
