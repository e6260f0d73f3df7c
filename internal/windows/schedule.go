// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Schedule is a standard 5-field cron expression (minute, hour, day of month, month, day of week), read
// as crontab(5) reads it: lists, ranges, steps, month and weekday names, 7 for Sunday, and the
// descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly. When both the day of
// month and the day of week are restricted (neither is "*"), a day matches either, as in cron.
//
// A schedule names wall-clock minutes of a time zone. A minute that a DST change skips (02:30 on the
// spring-forward night in Europe/Berlin) starts at the same distance past the change (03:30 CEST); a
// minute that a DST change repeats starts at its first occurrence only. Both rules are deterministic,
// unlike time.Date's choice, which differs between zones east and west of UTC.
type Schedule struct {
	text                          string
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
}

// field is one of the five fields: its name for errors and its range.
type field struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i (month and weekday names)
}

var (
	minuteField = field{name: "minute", min: 0, max: 59}
	hourField   = field{name: "hour", min: 0, max: 23}
	domField    = field{name: "day of month", min: 1, max: 31}
	monthField  = field{name: "month", min: 1, max: 12,
		names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}}
	// 7 is Sunday too; it is folded onto 0 after parsing.
	dowField = field{name: "day of week", min: 0, max: 7, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}}
)

var descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
	"@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// maxScheduleLength bounds the text a schedule may have: a crontab line is short, and the parser's work
// is linear in it.
const maxScheduleLength = 1024

// ParseSchedule reads a 5-field cron expression. The error says which field is wrong and why.
func ParseSchedule(text string) (*Schedule, error) {
	if len(text) > maxScheduleLength {
		return nil, fmt.Errorf("the schedule is %d bytes long; a cron expression has at most %d", len(text), maxScheduleLength)
	}
	expr := strings.TrimSpace(text)
	if strings.HasPrefix(expr, "@") {
		d, ok := descriptors[strings.ToLower(expr)]
		if !ok {
			return nil, fmt.Errorf("%q is not a cron descriptor: use 5 fields (minute hour day-of-month month day-of-week), or one of @yearly, @monthly, @weekly, @daily, @hourly", expr)
		}
		expr = d
	}
	if strings.Contains(expr, "TZ=") {
		return nil, fmt.Errorf("%q names a time zone inside the schedule: set change_windows.time_zone instead", text)
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, fmt.Errorf("%q has %d fields; a schedule has 5: minute hour day-of-month month day-of-week, for example \"0 8 * * 1-5\"", text, len(parts))
	}
	s := &Schedule{text: text, domStar: parts[2] == "*", dowStar: parts[4] == "*"}
	var err error
	for i, f := range []struct {
		field
		bits *uint64
	}{{minuteField, &s.minute}, {hourField, &s.hour}, {domField, &s.dom}, {monthField, &s.month}, {dowField, &s.dow}} {
		if *f.bits, err = parseField(parts[i], f.field); err != nil {
			return nil, fmt.Errorf("%q: %w", text, err)
		}
	}
	if s.dow&(1<<7) != 0 {
		s.dow = s.dow&^(1<<7) | 1
	}
	if !s.matchesSomeDay() {
		return nil, fmt.Errorf("%q never matches: no month it names has such a day of month", text)
	}
	return s, nil
}

// String is the schedule as written.
func (s *Schedule) String() string { return s.text }

func parseField(text string, f field) (uint64, error) {
	var set uint64
	for _, item := range strings.Split(text, ",") {
		b, err := parseItem(item, f)
		if err != nil {
			return 0, err
		}
		set |= b
	}
	return set, nil
}

// parseItem reads "*", "*/s", "a", "a-b", "a-b/s" or "a/s" (a to the field's maximum, every s).
func parseItem(item string, f field) (uint64, error) {
	rng, stepText, hasStep := strings.Cut(item, "/")
	lo, hi := f.min, f.max
	if f.name == dowField.name {
		hi = 6 // "*" is Sunday to Saturday once; 7 only when written
	}
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || n > f.max-f.min+1 {
			return 0, fmt.Errorf("the %s step %q must be a whole number from 1 to %d", f.name, stepText, f.max-f.min+1)
		}
		step = n
	}
	switch rng {
	case "*":
	case "":
		return 0, fmt.Errorf("the %s field has an empty item; write a value, a range a-b or *", f.name)
	default:
		a, b, isRange := strings.Cut(rng, "-")
		var err error
		if lo, err = f.value(a); err != nil {
			return 0, err
		}
		hi = lo
		if isRange {
			if hi, err = f.value(b); err != nil {
				return 0, err
			}
			if hi < lo {
				return 0, fmt.Errorf("the %s range %q runs backwards; write the smaller value first", f.name, rng)
			}
		} else if hasStep {
			hi = f.max
		}
	}
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << uint(v)
	}
	return set, nil
}

// value reads a number or a name of the field.
func (f field) value(text string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(text, n) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < f.min || n > f.max {
		what := fmt.Sprintf("a whole number from %d to %d", f.min, f.max)
		if len(f.names) > 0 {
			what += " or a name such as " + f.names[1]
		}
		return 0, fmt.Errorf("the %s value %q must be %s", f.name, text, what)
	}
	return n, nil
}

// daysInMonth is the most days a month has (February 29 in a leap year).
var daysInMonth = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// matchesSomeDay is false for a schedule such as "0 0 31 2 *" that names no real day. With both day
// fields restricted a day matches either, and some weekday occurs in every month.
func (s *Schedule) matchesSomeDay() bool {
	if !s.domStar && !s.dowStar {
		return true
	}
	for m := 1; m <= 12; m++ {
		if s.month&(1<<uint(m)) == 0 {
			continue
		}
		if s.domStar {
			return true
		}
		for d := 1; d <= daysInMonth[m]; d++ {
			if s.dom&(1<<uint(d)) != 0 {
				return true
			}
		}
	}
	return false
}

// dayMatches reports whether the calendar day matches the day fields.
func (s *Schedule) dayMatches(day time.Time) bool {
	if s.month&(1<<uint(day.Month())) == 0 {
		return false
	}
	dom, dow := s.dom&(1<<uint(day.Day())) != 0, s.dow&(1<<uint(day.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// searchDays bounds how far Next and Prev look: February 29 recurs within 8 years (2096 to 2104).
const searchDays = 9 * 366

// Next is the earliest start strictly after t in loc; ok is false when none lies within searchDays.
func (s *Schedule) Next(t time.Time, loc *time.Location) (time.Time, bool) {
	return s.scan(t, loc, 1)
}

// Prev is the latest start at or before t in loc; ok is false when none lies within searchDays.
func (s *Schedule) Prev(t time.Time, loc *time.Location) (time.Time, bool) {
	return s.scan(t, loc, -1)
}

// scan walks calendar days from t's local day in direction dir (1 or -1) and returns the first start
// beyond t (after t going forward, at or before it going back).
func (s *Schedule) scan(t time.Time, loc *time.Location, dir int) (time.Time, bool) {
	local := t.In(loc)
	// Calendar days are counted in UTC, where every day has 24 hours.
	first := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	// A start on the day before may lie after t (a skipped minute moved forward past midnight, or a
	// repeated hour), so going forward starts one day early; going back, one day late.
	var best time.Time
	found := false
	for i := -1; i < searchDays; i++ {
		if found && i > 0 {
			break
		}
		day := first.AddDate(0, 0, dir*i)
		if !s.dayMatches(day) {
			continue
		}
		if at, ok := s.bestOnDay(day, t, loc, dir); ok && (!found || closer(at, best, dir)) {
			best, found = at, true
		}
	}
	return best, found
}

// closer reports whether a is nearer than b in direction dir: earlier going forward, later going back.
func closer(a, b time.Time, dir int) bool {
	if dir > 0 {
		return a.Before(b)
	}
	return a.After(b)
}

// bestOnDay is the start on day closest to t in direction dir: the earliest after t (dir 1) or the
// latest at or before t (dir -1).
func (s *Schedule) bestOnDay(day time.Time, t time.Time, loc *time.Location, dir int) (time.Time, bool) {
	var best time.Time
	found := false
	regular := regularDay(day, loc)
	local := t.In(loc)
	localDay := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	sameDay := localDay.Equal(day)
	if regular && (dir > 0 && day.Before(localDay) || dir < 0 && day.After(localDay)) {
		return time.Time{}, false // the whole day lies on the wrong side of t
	}
	// A wall time's instant lies within its naive UTC reading less the largest and the smallest offset
	// in force around the day. Those bounds skip every minute that cannot beat t or the best so far
	// without asking the zone, and end the walk once none can: without them a day with a zone change
	// asks the zone for all 1,440 minutes of "* * * * *", and the search for the next opening does so
	// for every rule at every step (minutes per plan for a deny list of every-minute windows).
	minOff, maxOff := offsetsAround(day, loc)
	for _, h := range setBits(s.hour, dir) {
		if regular && sameDay && (dir > 0 && h < local.Hour() || dir < 0 && h > local.Hour()) {
			continue // wall-clock order is instant order: the whole hour lies on the wrong side of t
		}
		for _, m := range setBits(s.minute, dir) {
			naive := day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
			earliest, latest := naive.Add(-maxOff), naive.Add(-minOff)
			if dir > 0 && !latest.After(t) || dir < 0 && earliest.After(t) {
				continue // on the wrong side of t whatever the offset
			}
			if found && (dir > 0 && !earliest.Before(best) || dir < 0 && !latest.After(best)) {
				return best, true // minutes come in wall-clock order: none after this one is closer
			}
			at := wallInstant(day.Year(), day.Month(), day.Day(), h, m, loc)
			if dir > 0 && !at.After(t) || dir < 0 && at.After(t) {
				continue
			}
			if !found || closer(at, best, dir) {
				best, found = at, true
			}
			if regular {
				// Without a zone change in the day, wall-clock order is instant order: the first hit is the best.
				return best, true
			}
		}
	}
	return best, found
}

// regularDay reports whether loc keeps one UTC offset over the whole local day (and a margin around it).
func regularDay(day time.Time, loc *time.Location) bool {
	// Offsets lie within -12h and +14h: these instants bracket the local day in every zone.
	from, to := day.Add(-15*time.Hour), day.Add(24*time.Hour+13*time.Hour)
	start, end := from.In(loc).ZoneBounds()
	return !start.After(from) && (end.IsZero() || end.After(to))
}

// offsetsAround is the smallest and the largest UTC offset loc has from 12 hours before day (a UTC
// midnight standing for a local calendar day) to 36 hours after it: every offset wallInstant may read
// for a wall time of that day.
func offsetsAround(day time.Time, loc *time.Location) (lowest, highest time.Duration) {
	from, to := day.Add(-12*time.Hour), day.Add(36*time.Hour)
	_, off := from.In(loc).Zone()
	lowest, highest = time.Duration(off)*time.Second, time.Duration(off)*time.Second
	for at := from; ; {
		_, end := at.In(loc).ZoneBounds()
		if end.IsZero() || end.After(to) || !end.After(at) {
			return lowest, highest
		}
		at = end
		_, off := at.In(loc).Zone()
		lowest, highest = min(lowest, time.Duration(off)*time.Second), max(highest, time.Duration(off)*time.Second)
	}
}

// wallInstant is the instant of a wall-clock minute in loc: the first occurrence of a repeated minute,
// and a skipped minute moved forward by the length of the gap.
func wallInstant(year int, month time.Month, day, hour, minute int, loc *time.Location) time.Time {
	asUTC := time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
	var best time.Time
	found := false
	// The offsets in force around that wall time; every zone change is more than 12 hours from the next.
	for _, probe := range []time.Time{asUTC.Add(-12 * time.Hour), asUTC, asUTC.Add(12 * time.Hour)} {
		_, offset := probe.In(loc).Zone()
		at := asUTC.Add(-time.Duration(offset) * time.Second)
		l := at.In(loc)
		ly, lm, ld := l.Date()
		lh, lmin, _ := l.Clock()
		if ly == year && lm == month && ld == day && lh == hour && lmin == minute && (!found || at.Before(best)) {
			best, found = at, true
		}
	}
	if found {
		return best
	}
	// Skipped by a change: read with the offset before the change, the wall time lies past the gap.
	_, before := asUTC.Add(-12 * time.Hour).In(loc).Zone()
	return asUTC.Add(-time.Duration(before) * time.Second)
}

// setBits lists the set bits of b in ascending order (dir 1) or descending (dir -1).
func setBits(b uint64, dir int) []int {
	out := make([]int, 0, bits.OnesCount64(b))
	for b != 0 {
		i := bits.TrailingZeros64(b)
		out = append(out, i)
		b &^= 1 << uint(i)
	}
	if dir < 0 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}
