// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"strings"
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestParseSchedule_Errors(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"0 8 * *", "has 4 fields"},
		{"0 8 * * * *", "has 6 fields"},
		{"60 8 * * *", "minute value \"60\" must be a whole number from 0 to 59"},
		{"0 24 * * *", "hour value \"24\""},
		{"0 8 0 * *", "day of month value \"0\""},
		{"0 8 * 13 *", "month value \"13\""},
		{"0 8 * * 8", "day of week value \"8\""},
		{"0 17-8 * * *", "runs backwards"},
		{"*/0 * * * *", "minute step \"0\""},
		{"0 8 * * mon-", "day of week value \"\""},
		{"0 8 ,1 * *", "empty item"},
		{"0 0 31 2 *", "never matches"},
		{"0 0 30 2,4 *", ""}, // April 30 exists
		{"CRON_TZ=Europe/Berlin 0 8 * * *", "change_windows.time_zone"},
		{"@every 1h", "not a cron descriptor"},
		{strings.Repeat("1,", 600) + "1 * * * *", "bytes long"},
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

// TestScheduleNext covers DST changes in both directions east and west of UTC, year end, leap days and
// cron's day-of-month/day-of-week rule.
func TestScheduleNext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, zone, expr, after, want string
	}{
		{"weekday morning", "Europe/Berlin", "0 8 * * 1-5", "2026-11-27T17:00:00+01:00", "2026-11-30T08:00:00+01:00"},
		{"names", "Europe/Berlin", "0 8 * * MON-fri", "2026-11-27T17:00:00+01:00", "2026-11-30T08:00:00+01:00"},
		{"strictly after", "UTC", "0 8 * * *", "2026-11-27T08:00:00Z", "2026-11-28T08:00:00Z"},
		{"7 is Sunday", "UTC", "0 0 * * 7", "2026-11-27T00:00:00Z", "2026-11-29T00:00:00Z"},
		{"steps", "UTC", "*/20 9-10 * * *", "2026-11-27T09:41:00Z", "2026-11-27T10:00:00Z"},
		{"start/step", "UTC", "5/30 * * * *", "2026-11-27T09:06:00Z", "2026-11-27T09:35:00Z"},
		{"day of month or day of week", "UTC", "0 0 13 * 5", "2026-11-27T01:00:00Z", "2026-12-04T00:00:00Z"},
		{"day of month or day of week, the 13th", "UTC", "0 0 13 * 5", "2026-12-05T00:00:00Z", "2026-12-11T00:00:00Z"},
		{"year end", "Europe/Berlin", "0 0 1 1 *", "2026-12-31T23:59:00+01:00", "2027-01-01T00:00:00+01:00"},
		{"leap day", "UTC", "0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},
		{"yearly descriptor", "UTC", "@yearly", "2026-06-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		// Europe/Berlin: 2026-03-29 02:00 CET -> 03:00 CEST; 2026-10-25 03:00 CEST -> 02:00 CET.
		{"Berlin spring: a skipped start moves past the gap", "Europe/Berlin", "30 2 * * *", "2026-03-29T00:00:00+01:00", "2026-03-29T03:30:00+02:00"},
		{"Berlin spring: the day after is normal", "Europe/Berlin", "30 2 * * *", "2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00"},
		{"Berlin spring: an 8:00 window opens at 8:00 summer time", "Europe/Berlin", "0 8 * * 1-5", "2026-03-27T17:00:00+01:00", "2026-03-30T08:00:00+02:00"},
		{"Berlin autumn: a repeated start is the first", "Europe/Berlin", "30 2 * * *", "2026-10-25T00:00:00+02:00", "2026-10-25T02:30:00+02:00"},
		{"Berlin autumn: not again in the repeated hour", "Europe/Berlin", "30 2 * * *", "2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"},
		{"Berlin autumn: hourly runs once at 02:00 and goes on", "Europe/Berlin", "0 * * * *", "2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00"},
		// America/New_York: 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST.
		{"New York spring: a skipped start moves past the gap", "America/New_York", "30 2 * * *", "2026-03-08T00:00:00-05:00", "2026-03-08T03:30:00-04:00"},
		{"New York autumn: a repeated start is the first", "America/New_York", "30 1 * * *", "2026-11-01T00:00:00-04:00", "2026-11-01T01:30:00-04:00"},
		{"New York autumn: not again in the repeated hour", "America/New_York", "30 1 * * *", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"},
		{"a zone far east", "Pacific/Kiritimati", "0 0 1 1 *", "2026-12-31T09:59:00Z", "2026-12-31T10:00:00Z"},
		{"a zone with a half-hour offset", "Asia/Kolkata", "0 9 * * *", "2026-11-27T03:00:00Z", "2026-11-27T03:30:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSchedule(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Next(mustTime(t, c.after), mustZone(t, c.zone))
			if want := mustTime(t, c.want); !ok || !got.Equal(want) {
				t.Errorf("Next(%s) = %s, %v; want %s", c.after, got, ok, want)
			}
		})
	}
}

func TestSchedulePrev(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, zone, expr, at, want string
	}{
		{"at a start", "UTC", "0 8 * * *", "2026-11-27T08:00:00Z", "2026-11-27T08:00:00Z"},
		{"weekend", "Europe/Berlin", "0 8 * * 1-5", "2026-11-29T12:00:00+01:00", "2026-11-27T08:00:00+01:00"},
		{"across the year end", "Europe/Berlin", "0 0 20 12 *", "2027-01-02T10:00:00+01:00", "2026-12-20T00:00:00+01:00"},
		{"Berlin spring gap", "Europe/Berlin", "30 2 * * *", "2026-03-29T04:00:00+02:00", "2026-03-29T03:30:00+02:00"},
		{"Berlin autumn: the first of the repeated hour", "Europe/Berlin", "30 2 * * *", "2026-10-25T02:45:00+01:00", "2026-10-25T02:30:00+02:00"},
		{"New York autumn", "America/New_York", "30 1 * * *", "2026-11-01T01:45:00-05:00", "2026-11-01T01:30:00-04:00"},
		{"leap day", "UTC", "0 0 29 2 *", "2027-06-01T00:00:00Z", "2024-02-29T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSchedule(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Prev(mustTime(t, c.at), mustZone(t, c.zone))
			if want := mustTime(t, c.want); !ok || !got.Equal(want) {
				t.Errorf("Prev(%s) = %s, %v; want %s", c.at, got, ok, want)
			}
		})
	}
}

// TestScheduleNextIsPrevsSuccessor walks every start of a few schedules through a year in zones with
// and without DST: Next of each start is the following one, and Prev of a start is itself.
func TestScheduleNextIsPrevsSuccessor(t *testing.T) {
	t.Parallel()
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"} {
		for _, expr := range []string{"30 2 * * *", "0 */6 * * *", "15 1,2,3 * * 0"} {
			loc := mustZone(t, zone)
			s, err := ParseSchedule(expr)
			if err != nil {
				t.Fatal(err)
			}
			at := mustTime(t, "2026-01-01T00:00:00Z")
			end := at.AddDate(1, 0, 0)
			for n := 0; at.Before(end); n++ {
				next, ok := s.Next(at, loc)
				if !ok || !next.After(at) {
					t.Fatalf("%s %q: Next(%s) = %s, %v", zone, expr, at, next, ok)
				}
				if prev, ok := s.Prev(next, loc); !ok || !prev.Equal(next) {
					t.Fatalf("%s %q: Prev(%s) = %s, %v", zone, expr, next, prev, ok)
				}
				if prev, ok := s.Prev(next.Add(-time.Second), loc); ok && prev.After(at) {
					t.Fatalf("%s %q: a start %s between %s and %s was skipped", zone, expr, prev, at, next)
				}
				at = next
			}
		}
	}
}

func BenchmarkScheduleNext(b *testing.B) {
	s, err := ParseSchedule("* * * * *")
	if err != nil {
		b.Fatal(err)
	}
	loc, _ := LoadZone("Europe/Berlin")
	at := time.Date(2026, 3, 29, 0, 59, 30, 0, loc)
	for b.Loop() {
		s.Next(at, loc)
	}
}
