// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
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
