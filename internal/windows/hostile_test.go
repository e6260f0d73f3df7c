// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"strings"
	"testing"
	"time"
)

// TestHostileTimeZones: a time_zone is a name in the embedded IANA database or an error that says what
// to write; a path-like name never reads a file outside the zone database, and "Local" is refused.
func TestHostileTimeZones(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"../../etc/passwd", "/etc/passwd", "Europe/../../../etc/passwd", "..", ".", "/", "\\etc\\passwd",
		"Local", "local", "LOCAL", "Europe/Berlin\x00", "Europe/Berlin\n", "zone.tab", "zone1970.tab", "iso3166.tab",
		"tzdata.zi", "leapseconds", "Europe", "Europe/", "file:///etc/passwd", "http://example.invalid/zone",
		strings.Repeat("a/", 5000), "Europe/Berlin ", " Europe/Berlin",
	} {
		loc, err := LoadZone(name)
		if err == nil {
			t.Errorf("LoadZone(%q) = %v, want an error", name, loc)
			continue
		}
		if !strings.Contains(err.Error(), "IANA time zone") {
			t.Errorf("LoadZone(%q): %v; want it to name an IANA time zone to write", name, err)
		}
	}
	for _, name := range []string{"", "UTC", "Europe/Berlin", "America/New_York", "Etc/GMT+5", "Asia/Kolkata"} {
		if _, err := LoadZone(name); err != nil {
			t.Errorf("LoadZone(%q): %v", name, err)
		}
	}
}

// TestHostileDurations: every duration outside (0, 366 days] is refused with what to write.
func TestHostileDurations(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, want string }{
		{"0s", "longer than zero"}, {"0", "longer than zero"}, {"-1h", "longer than zero"}, {"-0s", "longer than zero"},
		{"100000h", "longer than 8784h"}, {"8785h", "longer than 8784h"}, {"9999999999999999999h", "not a duration"},
		{"1d", "not a duration"}, {"", "not a duration"}, {"h", "not a duration"}, {"1h\n", "not a duration"},
		{"NaN", "not a duration"}, {"+Inf", "not a duration"}, {"1e3h", "not a duration"},
		{"1ns", ""}, {"8784h", ""}, {"1h30m", ""},
	}
	for _, c := range cases {
		_, err := ParseDuration(c.text)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("ParseDuration(%q): %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("ParseDuration(%q): %v; want it to contain %q", c.text, err, c.want)
		}
	}
}

// TestHostileSchedules: more malformed cron text, each refused at its field.
func TestHostileSchedules(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"@every 1h", "not a cron descriptor"},
		{"@reboot", "not a cron descriptor"},
		{"@", "not a cron descriptor"},
		{"0 0 8 * * *", "has 6 fields"},
		{"", "has 0 fields"},
		{"   ", "has 0 fields"},
		{"*/0 * * * *", "minute step \"0\""},
		{"*/-1 * * * *", "minute step \"-1\""},
		{"*/61 * * * *", "minute step \"61\""},
		{"*/99999999999999999999 * * * *", "minute step"},
		{"0-99999999999999999999 * * * *", "minute value"},
		{"-1 * * * *", "minute value \"\""},
		{"1-2-3 * * * *", "minute value \"2-3\""},
		{"1/2/3 * * * *", "minute step \"2/3\""},
		{"0 0 31 2 *", "never matches"},
		{"0 0 30,31 2 *", "never matches"},
		{"0 0 31 4,6,9,11 *", "never matches"},
		{"0 0 0x1 * *", "day of month value \"0x1\""},
		{"0 0 1 * ½", "day of week value \"½\""},
		{"0 0 1 * *\x00", "day of week value"},
		{"0 0 1 JANUARY *", "month value \"JANUARY\""},
		{"0 0 * * sun-sat", ""},
		{"0 0 * * 0-7", ""},
		{"0 0 31 2 1", ""}, // both day fields restricted: any Monday in February matches
		{strings.Repeat(" ", 2000) + "0 0 * * *", "bytes long"},
	}
	for _, c := range cases {
		_, err := ParseSchedule(c.expr)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.expr, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want it to contain %q", c.expr, err, c.want)
		}
	}
}

// TestHostileParseNamesEveryAttribute: Parse reports every bad attribute at its path, and too many
// windows at the list.
func TestHostileParseNamesEveryAttribute(t *testing.T) {
	t.Parallel()
	many := make([]RuleSpec, maxRules+1)
	for i := range many {
		many[i] = RuleSpec{Schedule: "0 0 * * *", Duration: "1h"}
	}
	_, problems := Parse(Spec{TimeZone: "../../etc/passwd", Allow: []RuleSpec{{Schedule: "0 0 31 2 *", Duration: "0s"}, {Schedule: "@every 1h", Duration: "1h"}}, Deny: many})
	got := map[string]bool{}
	for _, p := range problems {
		got[p.Attribute] = true
	}
	for _, want := range []string{"time_zone", "allow[0].schedule", "allow[0].duration", "allow[1].schedule", "deny"} {
		if !got[want] {
			t.Errorf("no problem at %s; got %+v", want, problems)
		}
	}
	if len(problems) != 5 {
		t.Errorf("%d problems, want 5: %+v", len(problems), problems)
	}
}

func rules(n int, schedule, duration string) []RuleSpec {
	out := make([]RuleSpec, n)
	for i := range out {
		out[i] = RuleSpec{Schedule: schedule, Duration: duration}
	}
	return out
}

// TestHostileCalendarsTerminate: calendars that never open, or open once in years, end their search
// with Exhausted or a time; none hangs (the test's own deadline is the bound).
func TestHostileCalendarsTerminate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 29, 1, 59, 0, 0, time.UTC) // Europe/Berlin's spring-forward night
	cases := []struct {
		name            string
		spec            Spec
		open, exhausted bool
	}{
		{"deny everything for a year, every minute", Spec{TimeZone: "Europe/Berlin", Deny: rules(1, "* * * * *", "8784h")}, false, true},
		{"deny every minute for a minute", Spec{TimeZone: "Europe/Berlin", Deny: rules(maxRules, "* * * * *", "1m")}, false, true},
		{"allow only leap days, deny every minute", Spec{TimeZone: "Europe/Berlin", Allow: rules(maxRules, "0 0 29 2 *", "1m"), Deny: rules(maxRules, "* * * * *", "1m")}, false, true},
		{"allow only leap days", Spec{TimeZone: "Europe/Berlin", Allow: rules(maxRules, "0 0 29 2 *", "1m")}, false, false},
		{"allow a minute, deny the same minute", Spec{TimeZone: "America/New_York", Allow: rules(maxRules, "* * * * *", "1m"), Deny: rules(maxRules, "* * * * *", "1m")}, false, true},
		{"allow the hour a DST change skips, an hour later", Spec{TimeZone: "Europe/Berlin", Allow: rules(maxRules, "* 2 29 3 *", "1m")}, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cal := mustCalendar(t, c.spec)
			start := time.Now()
			d := cal.Decide(now, Change{})
			t.Logf("%s: %s in %s", c.name, d.Reason(), time.Since(start))
			if d.Open != c.open || d.Exhausted != c.exhausted {
				t.Errorf("Decide = open %v, exhausted %v; want open %v, exhausted %v: %s", d.Open, d.Exhausted, c.open, c.exhausted, d.Reason())
			}
		})
	}
}
