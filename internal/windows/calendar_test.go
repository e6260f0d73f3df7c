// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"strings"
	"testing"
	"time"
)

// issueCalendar is the calendar of the documentation: office hours on weekdays in Berlin, and a
// two-week year-end freeze.
var issueCalendar = Spec{
	TimeZone: "Europe/Berlin",
	Allow:    []RuleSpec{{Schedule: "0 8 * * 1-5", Duration: "9h"}},
	Deny:     []RuleSpec{{Schedule: "0 0 20 12 *", Duration: "336h", Description: "year-end freeze"}},
}

func mustCalendar(t *testing.T, spec Spec) *Calendar {
	t.Helper()
	c, problems := Parse(spec)
	if len(problems) > 0 {
		t.Fatalf("Parse: %v", problems)
	}
	return c
}

func TestDecide(t *testing.T) {
	t.Parallel()
	newYork := Spec{TimeZone: "America/New_York", Allow: []RuleSpec{{Schedule: "0 9 * * *", Duration: "8h"}}}
	denyOnly := Spec{Deny: []RuleSpec{{Schedule: "0 0 * * 1", Duration: "48h"}, {Schedule: "0 0 * * 3", Duration: "24h"}}}
	cases := []struct {
		name   string
		spec   Spec
		now    string
		open   bool
		closes string // when open
		next   string // when closed
		reason string
	}{
		{"inside office hours", issueCalendar, "2026-11-25T10:00:00+01:00", true, "2026-11-25T17:00:00+01:00", "", "open until Wed 2026-11-25 17:00 CET"},
		{"a minute before closing", issueCalendar, "2026-11-25T16:59:00+01:00", true, "2026-11-25T17:00:00+01:00", "", ""},
		{"closing time is closed", issueCalendar, "2026-11-25T17:00:00+01:00", false, "", "2026-11-26T08:00:00+01:00", "lies outside every allow window; the next change window opens Thu 2026-11-26 08:00 CET (+01:00)"},
		{"two minutes after", issueCalendar, "2026-11-25T17:01:00+01:00", false, "", "2026-11-26T08:00:00+01:00", ""},
		{"the weekend", issueCalendar, "2026-11-28T12:00:00+01:00", false, "", "2026-11-30T08:00:00+01:00", ""},
		{"the last hour before the freeze", issueCalendar, "2026-12-18T16:00:00+01:00", true, "2026-12-18T17:00:00+01:00", "", ""},
		{"a deny window wins over an allow window", issueCalendar, "2026-12-22T10:00:00+01:00", false, "", "2027-01-04T08:00:00+01:00",
			`deny window "year-end freeze" (0 0 20 12 *, 336h) is open from Sun 2026-12-20 00:00 CET (+01:00) until Sun 2027-01-03 00:00 CET (+01:00); the next change window opens Mon 2027-01-04 08:00 CET (+01:00)`},
		{"new year's eve", issueCalendar, "2026-12-31T23:59:00+01:00", false, "", "2027-01-04T08:00:00+01:00", "year-end freeze"},
		{"the spring-forward weekend", issueCalendar, "2026-03-28T12:00:00+01:00", false, "", "2026-03-30T08:00:00+02:00", "Mon 2026-03-30 08:00 CEST (+02:00)"},
		{"summer office hours", issueCalendar, "2026-03-30T16:30:00+02:00", true, "2026-03-30T17:00:00+02:00", "", ""},
		{"the fall-back weekend", issueCalendar, "2026-10-25T02:30:00+01:00", false, "", "2026-10-26T08:00:00+01:00", ""},
		{"New York, the day DST starts", newYork, "2026-03-08T16:59:00-04:00", true, "2026-03-08T17:00:00-04:00", "", ""},
		// Duration is elapsed time: a window that opens at 01:00 on the night DST ends lasts its hours.
		{"New York, a window across the fall back", Spec{TimeZone: "America/New_York", Allow: []RuleSpec{{Schedule: "0 0 * * *", Duration: "3h"}}},
			"2026-11-01T02:30:00-05:00", false, "", "2026-11-02T00:00:00-05:00", ""},
		{"only deny windows: open outside", denyOnly, "2026-11-27T12:00:00Z", true, "2026-11-30T00:00:00Z", "", ""},
		{"chained deny windows", denyOnly, "2026-11-30T12:00:00Z", false, "", "2026-12-03T00:00:00Z", "deny window 0 (0 0 * * 1, 48h)"},
		{"the same instant in another zone", Spec{TimeZone: "Asia/Tokyo", Allow: []RuleSpec{{Schedule: "0 8 * * 1-5", Duration: "9h"}}},
			"2026-11-25T10:00:00+01:00", false, "", "2026-11-26T08:00:00+09:00", "JST"},
		{"no calendar: always open", Spec{}, "2026-11-25T10:00:00Z", true, "", "", "the change window is open"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := mustCalendar(t, c.spec).Decide(mustTime(t, c.now), Change{})
			if d.Open != c.open {
				t.Fatalf("Open = %v, want %v (%s)", d.Open, c.open, d.Reason())
			}
			if c.closes != "" && !d.Closes.Equal(mustTime(t, c.closes)) {
				t.Errorf("Closes = %s, want %s", d.Closes, c.closes)
			}
			if c.next != "" && (d.Exhausted || !d.NextOpen.Equal(mustTime(t, c.next))) {
				t.Errorf("NextOpen = %s (exhausted %v), want %s", d.NextOpen, d.Exhausted, c.next)
			}
			if !strings.Contains(d.Reason(), c.reason) {
				t.Errorf("Reason() = %q, want it to contain %q", d.Reason(), c.reason)
			}
		})
	}
}

func TestDecide_Rollback(t *testing.T) {
	t.Parallel()
	freeze := mustTime(t, "2026-12-22T10:00:00+01:00")
	spec := issueCalendar
	if d := mustCalendar(t, spec).Decide(freeze, Change{Rollback: true}); d.Open {
		t.Errorf("a rollback passed a freeze without rollback_during_freeze: %s", d.Reason())
	}
	spec.RollbackDuringFreeze = true
	if d := mustCalendar(t, spec).Decide(freeze, Change{}); d.Open {
		t.Errorf("a change that is no rollback passed a freeze: %s", d.Reason())
	}
	d := mustCalendar(t, spec).Decide(freeze, Change{Rollback: true})
	if !d.Open || !d.RollbackThroughFreeze || !strings.Contains(d.Reason(), "a rollback passes it") {
		t.Errorf("a rollback with rollback_during_freeze: open %v, %s", d.Open, d.Reason())
	}
	// The switch is for freezes: outside the allow windows a rollback waits like any change.
	if d := mustCalendar(t, spec).Decide(mustTime(t, "2026-12-22T20:00:00+01:00"), Change{Rollback: true}); d.Open {
		t.Errorf("a rollback passed outside every allow window: %s", d.Reason())
	}
}

func TestDecide_NeverOpens(t *testing.T) {
	t.Parallel()
	always := Spec{Deny: []RuleSpec{{Schedule: "* * * * *", Duration: "1h"}}}
	d := mustCalendar(t, always).Decide(mustTime(t, "2026-11-25T10:00:00Z"), Change{})
	if d.Open || !d.Exhausted || !strings.Contains(d.Reason(), "no change window opens") {
		t.Errorf("open %v, exhausted %v: %s", d.Open, d.Exhausted, d.Reason())
	}
}

func TestParse_Problems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		spec      Spec
		attribute string
		detail    string
	}{
		{"machine-local zone", Spec{TimeZone: "Local"}, "time_zone", "depends on the machine"},
		{"unknown zone", Spec{TimeZone: "Mars/Olympus_Mons"}, "time_zone", "not an IANA time zone"},
		{"a path is no zone", Spec{TimeZone: "../../etc/passwd"}, "time_zone", "not an IANA time zone"},
		{"days", Spec{Allow: []RuleSpec{{Schedule: "0 8 * * *", Duration: "1d"}}}, "allow[0].duration", "days are written in hours"},
		{"zero", Spec{Deny: []RuleSpec{{Schedule: "0 8 * * *", Duration: "0s"}}}, "deny[0].duration", "longer than zero"},
		{"negative", Spec{Deny: []RuleSpec{{Schedule: "0 8 * * *", Duration: "-1h"}}}, "deny[0].duration", "longer than zero"},
		{"too long", Spec{Deny: []RuleSpec{{Schedule: "0 8 * * *", Duration: "8785h"}}}, "deny[0].duration", "366 days"},
		{"schedule", Spec{Deny: []RuleSpec{{Schedule: "0 8 * * *", Duration: "1h"}, {Schedule: "0 8 * *", Duration: "1h"}}}, "deny[1].schedule", "has 4 fields"},
	}
	for _, c := range cases {
		_, problems := Parse(c.spec)
		if len(problems) != 1 || problems[0].Attribute != c.attribute || !strings.Contains(problems[0].Detail, c.detail) {
			t.Errorf("%s: %+v, want one problem at %s containing %q", c.name, problems, c.attribute, c.detail)
		}
	}
	// Every zone name the embedded database knows loads without the machine's /usr/share/zoneinfo.
	if _, err := LoadZone("Pacific/Chatham"); err != nil {
		t.Error(err)
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{9 * time.Hour: "9h", 90 * time.Minute: "1h30m", 336 * time.Hour: "336h", 30 * time.Minute: "30m", 45 * time.Second: "45s"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// BenchmarkDecide_Freeze measures the slowest realistic decision: inside a two-week freeze, walking to
// the next weekday window.
func BenchmarkDecide_Freeze(b *testing.B) {
	c, _ := Parse(issueCalendar)
	now := time.Date(2026, 12, 22, 10, 0, 0, 0, c.Location)
	for b.Loop() {
		c.Decide(now, Change{})
	}
}
