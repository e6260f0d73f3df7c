// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/windows"
)

func TestCheckWindow(t *testing.T) {
	t.Parallel()
	cal, problems := windows.Parse(windows.Spec{TimeZone: "Europe/Berlin", Allow: []windows.RuleSpec{{Schedule: "0 8 * * 1-5", Duration: "9h"}}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	berlin := cal.Location
	open, closed := time.Date(2026, 11, 25, 16, 59, 0, 0, berlin), time.Date(2026, 11, 25, 17, 1, 0, 0, berlin)
	glass := &BreakGlass{Reason: "hotfix for INC-1", Ticket: "INC-1"}
	cases := []struct {
		name      string
		f         WindowFacts
		attribute string // of the refusal, "" for none
		detail    string
		broken    bool // break-glass used
	}{
		{"no calendar", WindowFacts{Now: closed, Writes: true}, "", "", false},
		{"open", WindowFacts{Calendar: cal, Now: open, Writes: true}, "", "", false},
		{"closed", WindowFacts{Calendar: cal, Now: closed, Writes: true}, "change_windows",
			"change window closed now: Wed 2026-11-25 17:01 CET (+01:00) lies outside every allow window; the next change window opens Thu 2026-11-26 08:00 CET (+01:00)", false},
		{"closed at apply", WindowFacts{Calendar: cal, Now: closed, Writes: true, Apply: true}, "change_windows", "closed at apply time", false},
		{"an empty plan is never blocked", WindowFacts{Calendar: cal, Now: closed}, "", "", false},
		{"break-glass", WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: glass, Tree: "t2"}, "", "", true},
		{"break-glass while open does nothing", WindowFacts{Calendar: cal, Now: open, Writes: true, BreakGlass: glass}, "", "", false},
		{"the same break-glass again for the same tree (the apply of its plan)",
			WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: glass, Tree: "t2", Used: &BreakGlassRecord{BreakGlass: *glass, Tree: "t2"}}, "", "", true},
		{"the same break-glass for another change", WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: glass, Tree: "t3",
			Used: &BreakGlassRecord{BreakGlass: *glass, Tree: "t2", At: "2026-11-25T16:10:00Z"}}, "break_glass", "let one change through already (tree t2, at 2026-11-25T16:10:00Z)", false},
		{"another ticket for another change", WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: &BreakGlass{Reason: "second fix", Ticket: "INC-2"}, Tree: "t3",
			Used: &BreakGlassRecord{BreakGlass: *glass, Tree: "t2"}}, "", "", true},
	}
	for _, c := range cases {
		v := CheckWindow(c.f)
		switch {
		case c.attribute == "" && v.Err != nil:
			t.Errorf("%s: refused: %v", c.name, v.Err)
		case c.attribute != "" && (v.Err == nil || v.Err.Attribute != c.attribute || !strings.Contains(v.Err.Error(), c.detail) || !errors.Is(v.Err, ErrWindowClosed)):
			t.Errorf("%s: %v, want a refusal at %s containing %q", c.name, v.Err, c.attribute, c.detail)
		case (v.BreakGlass != nil) != c.broken:
			t.Errorf("%s: break-glass used %v, want %v", c.name, v.BreakGlass != nil, c.broken)
		case c.broken && !strings.Contains(v.Warning, `reason "`+c.f.BreakGlass.Reason+`"`):
			t.Errorf("%s: warning %q does not name the reason", c.name, v.Warning)
		}
	}
}

func TestBreakGlass_TrailersAndRecord(t *testing.T) {
	t.Parallel()
	b := BreakGlass{Reason: "hotfix", Ticket: "INC-1"}
	if got := strings.Join(b.Trailers(), "\n"); got != "Kalypso-Break-Glass: hotfix\nKalypso-Ticket: INC-1" {
		t.Errorf("Trailers() = %q", got)
	}
	if got := (BreakGlass{Reason: "hotfix"}).Trailers(); len(got) != 1 {
		t.Errorf("a break-glass without ticket has no ticket trailer: %q", got)
	}
	rec := BreakGlassRecord{BreakGlass: b, Tree: "abc", At: "2026-11-25T16:10:00Z"}
	if got := ParseBreakGlassRecord(rec.Marshal()); got == nil || *got != rec {
		t.Errorf("round trip: %+v", got)
	}
	if ParseBreakGlassRecord([]byte("{")) != nil || ParseBreakGlassRecord(nil) != nil {
		t.Error("an unreadable record is none")
	}
	for _, c := range []struct {
		name, value string
		required    bool
		want        string
	}{{"reason", " ", true, "is empty"}, {"ticket", "a\nb", false, "line break"}, {"ticket", strings.Repeat("x", 501), false, "501 bytes"}, {"ticket", "", false, ""}} {
		err := CheckBreakGlassText(c.name, c.value, c.required)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckBreakGlassText(%q, %q) = %v, want %q", c.name, c.value, err, c.want)
		}
	}
}

// The window step refuses a plan that writes outside the window with the window's reason, lets an empty
// plan and a plan while the window is unknown pass, and warns when break_glass lets the change through.
func TestPlanWindow(t *testing.T) {
	t.Parallel()
	cal, _ := windows.Parse(windows.Spec{TimeZone: "America/New_York", Deny: []windows.RuleSpec{{Schedule: "0 18 * * 5", Duration: "62h", Description: "weekend"}}})
	saturday := time.Date(2026, 11, 28, 12, 0, 0, 0, cal.Location)
	writes := PlanDecision{CommitUnknown: true}
	step := func(w WindowConfig, d PlanDecision) (*Planning, error) {
		p := &Planning{ID: "repo//clusters?ref=main", Config: Config{Window: w}, Decision: d, Now: saturday, Changes: &Plan{DesiredTree: "t1"}}
		return p, planWindow(context.Background(), p)
	}
	_, err := step(WindowConfig{Known: true, Calendar: cal}, writes)
	refusal(t, err, "change_windows", `deny window "weekend" (0 18 * * 5, 62h) is open from Fri 2026-11-27 18:00 EST (-05:00) until Mon 2026-11-30 08:00 EST (-05:00)`,
		"the next change window opens Mon 2026-11-30 08:00 EST")
	for name, c := range map[string]struct {
		w WindowConfig
		d PlanDecision
	}{"nothing to write": {WindowConfig{Known: true, Calendar: cal}, PlanDecision{KeepRecorded: true}}, "unknown": {WindowConfig{}, writes}, "no calendar": {WindowConfig{Known: true}, writes}} {
		if p, err := step(c.w, c.d); err != nil || len(p.Warnings) != 0 {
			t.Errorf("%s: %v %v", name, err, p.Warnings)
		}
	}
	p, err := step(WindowConfig{Known: true, Calendar: cal, BreakGlass: &BreakGlass{Reason: "fix", Ticket: "INC-9"}}, writes)
	if err != nil || len(p.Warnings) != 1 || p.Warnings[0].Summary != "Break-glass: change window closed" || !strings.Contains(p.Warnings[0].Detail, "ticket INC-9") {
		t.Errorf("break-glass: %v %+v", err, p.Warnings)
	}
}
