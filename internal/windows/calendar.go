// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"fmt"
	"strings"
	"time"

	// The time zone database is part of the binary: a fresh machine, a container without /usr/share/zoneinfo
	// or Windows decides exactly as the machine the tests ran on.
	_ "time/tzdata"
)

// MaxDuration bounds a window's duration: a freeze longer than a year is a schedule written wrong.
const MaxDuration = 366 * 24 * time.Hour

// maxRules bounds each of the allow and deny lists.
const maxRules = 100

// Spec is the change_windows attribute in plain values.
type Spec struct {
	// TimeZone is an IANA name such as "Europe/Berlin"; "" is UTC.
	TimeZone    string
	Allow, Deny []RuleSpec
	// RollbackDuringFreeze lets a rollback through a deny window (Change.Rollback).
	RollbackDuringFreeze bool
}

// RuleSpec is one window as configured.
type RuleSpec struct {
	Schedule, Duration, Description string
}

// Problem is a configuration error at an attribute, relative to change_windows ("allow[0].schedule").
type Problem struct {
	Attribute, Detail string
}

// Rule is one window: it opens at each start of its schedule and stays open for its duration.
type Rule struct {
	// Kind is "allow" or "deny"; Index the position in its list.
	Kind        string
	Index       int
	Schedule    *Schedule
	Duration    time.Duration
	Description string
}

// Name is how messages name the rule: its description, else its position, with its schedule.
func (r *Rule) Name() string {
	if r.Description != "" {
		return fmt.Sprintf("%s window %q (%s, %s)", r.Kind, r.Description, r.Schedule, formatDuration(r.Duration))
	}
	return fmt.Sprintf("%s window %d (%s, %s)", r.Kind, r.Index, r.Schedule, formatDuration(r.Duration))
}

// Calendar decides when changes may be written.
type Calendar struct {
	Location             *time.Location
	Allow, Deny          []Rule
	RollbackDuringFreeze bool
}

// Parse checks spec and builds its calendar. Every problem is reported, each at its attribute.
func Parse(spec Spec) (*Calendar, []Problem) {
	var problems []Problem
	c := &Calendar{Location: time.UTC, RollbackDuringFreeze: spec.RollbackDuringFreeze}
	if loc, err := LoadZone(spec.TimeZone); err != nil {
		problems = append(problems, Problem{"time_zone", err.Error()})
	} else {
		c.Location = loc
	}
	for _, list := range []struct {
		kind  string
		specs []RuleSpec
		out   *[]Rule
	}{{"allow", spec.Allow, &c.Allow}, {"deny", spec.Deny, &c.Deny}} {
		if len(list.specs) > maxRules {
			problems = append(problems, Problem{list.kind, fmt.Sprintf("%d windows; at most %d are allowed", len(list.specs), maxRules)})
			continue
		}
		for i, rs := range list.specs {
			at := fmt.Sprintf("%s[%d]", list.kind, i)
			r := Rule{Kind: list.kind, Index: i, Description: rs.Description}
			var err error
			if r.Schedule, err = ParseSchedule(rs.Schedule); err != nil {
				problems = append(problems, Problem{at + ".schedule", err.Error()})
			}
			if r.Duration, err = ParseDuration(rs.Duration); err != nil {
				problems = append(problems, Problem{at + ".duration", err.Error()})
			}
			*list.out = append(*list.out, r)
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return c, nil
}

// LoadZone loads an IANA time zone. "" is UTC; "Local" is refused: it would make the decision depend on
// the machine that runs the plan.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("%q depends on the machine that runs Terraform; name an IANA time zone such as \"Europe/Berlin\" or \"UTC\"", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone; use a name such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\"", name)
	}
	return loc, nil
}

// ParseDuration reads a Go duration ("9h", "30m", "336h", "1h30m"), positive and at most MaxDuration.
func ParseDuration(text string) (time.Duration, error) {
	d, err := time.ParseDuration(text)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration; write hours and minutes such as \"9h\", \"90m\" or \"336h\" (days are written in hours)", text)
	case d <= 0:
		return 0, fmt.Errorf("%q: a window lasts longer than zero", text)
	case d > MaxDuration:
		return 0, fmt.Errorf("%q is longer than %s (366 days)", text, formatDuration(MaxDuration))
	}
	return d, nil
}

// Change is what a decision is asked about.
type Change struct {
	// Rollback is true for a rollback (Calendar.RollbackDuringFreeze lets it through deny windows).
	Rollback bool
}

// Occurrence is one opening of a rule: from Start to End.
type Occurrence struct {
	Rule       *Rule
	Start, End time.Time
}

// Decision is whether a change may be written at a time.
type Decision struct {
	At   time.Time
	Open bool
	// Closes is when the open window closes (zero when it stays open past the search, or no allow list
	// and no deny window limits it).
	Closes time.Time
	// Blocker is the deny occurrence that closes the calendar, or nil when the time lies outside every
	// allow window (or when Open).
	Blocker *Occurrence
	// NextOpen is when changes may next be written (zero when Open, or when no window opens within the
	// search: Exhausted).
	NextOpen  time.Time
	Exhausted bool
	// RollbackThroughFreeze is true when a deny window blocks and the change passes as a rollback.
	RollbackThroughFreeze bool

	loc *time.Location
}

// maxSteps bounds the walk to the next opening: each step moves past a deny window or to an allow
// window's start, so only a calendar whose deny windows cover nearly everything reaches it.
const maxSteps = 2000

// maxScans bounds the schedule searches of one walk: each step searches every rule, so a calendar of
// many rules gets fewer steps (100 deny windows of "* * * * *" for a minute each get 80 steps instead of
// 2,000: seconds instead of minutes on a DST night). A calendar of a few rules keeps maxSteps.
const maxScans = 8000

// steps is how many steps a walk over rules rules may take.
func steps(rules int) int {
	return min(maxSteps, maxScans/max(1, rules))
}

// Decide says whether a change may be written at now. A deny window wins over an allow window; without
// allow windows every time outside the deny windows is open.
func (c *Calendar) Decide(now time.Time, change Change) Decision {
	d := Decision{At: now, loc: c.Location}
	if deny := c.openDeny(now); deny != nil {
		if change.Rollback && c.RollbackDuringFreeze && c.openAllow(now) {
			d.Open, d.RollbackThroughFreeze, d.Blocker = true, true, deny
			return d
		}
		d.Blocker = deny
	} else if c.openAllow(now) {
		d.Open = true
		d.Closes = c.closes(now)
		return d
	}
	d.NextOpen, d.Exhausted = c.nextOpen(now)
	return d
}

// openDeny is the deny occurrence covering t that ends last, or nil.
func (c *Calendar) openDeny(t time.Time) *Occurrence {
	var out *Occurrence
	for i := range c.Deny {
		if o, ok := c.Deny[i].covering(t, c.Location); ok && (out == nil || o.End.After(out.End)) {
			out = &o
		}
	}
	return out
}

// openAllow reports whether t lies in an allow window (always, without allow windows).
func (c *Calendar) openAllow(t time.Time) bool {
	if len(c.Allow) == 0 {
		return true
	}
	for i := range c.Allow {
		if _, ok := c.Allow[i].covering(t, c.Location); ok {
			return true
		}
	}
	return false
}

// covering is the occurrence of r that covers t: its latest start at or before t, if still open at t.
func (r *Rule) covering(t time.Time, loc *time.Location) (Occurrence, bool) {
	start, ok := r.Schedule.Prev(t, loc)
	if !ok || !start.Add(r.Duration).After(t) {
		return Occurrence{}, false
	}
	return Occurrence{Rule: r, Start: start, End: start.Add(r.Duration)}, true
}

// nextOpen walks forward from a closed time t to the first time that no deny window covers and an allow
// window (if any) does.
func (c *Calendar) nextOpen(t time.Time) (time.Time, bool) {
	for range steps(len(c.Deny) + 2*len(c.Allow)) {
		if deny := c.openDeny(t); deny != nil {
			t = deny.End
			continue
		}
		if c.openAllow(t) {
			return t, false
		}
		next, found := time.Time{}, false
		for i := range c.Allow {
			if s, ok := c.Allow[i].Schedule.Next(t, c.Location); ok && (!found || s.Before(next)) {
				next, found = s, true
			}
		}
		if !found {
			return time.Time{}, true
		}
		t = next
	}
	return time.Time{}, true
}

// closes is when an open calendar next closes: the first time after t that a deny window starts or no
// allow window covers. Zero when nothing closes it within the search.
func (c *Calendar) closes(t time.Time) time.Time {
	var end time.Time
	if len(c.Allow) > 0 {
		// The allow windows covering t, chained while another one covers the end of the last.
		at := t
		for range steps(len(c.Allow)) {
			latest, found := time.Time{}, false
			for i := range c.Allow {
				if o, ok := c.Allow[i].covering(at, c.Location); ok && (!found || o.End.After(latest)) {
					latest, found = o.End, true
				}
			}
			if !found {
				end = at
				break
			}
			at = latest
		}
	}
	for i := range c.Deny {
		if s, ok := c.Deny[i].Schedule.Next(t, c.Location); ok && (end.IsZero() || s.Before(end)) {
			end = s
		}
	}
	return end
}

// Reason says why a closed decision is closed and when the next window opens, with times in the
// calendar's zone: `deny window "year-end freeze" (0 0 20 12 *, 336h) is open from ... until ...; the
// next change window opens ...`.
func (d Decision) Reason() string {
	var b strings.Builder
	if d.Open && !d.RollbackThroughFreeze {
		if d.Closes.IsZero() {
			return "the change window is open"
		}
		return "the change window is open until " + d.format(d.Closes)
	}
	if d.Blocker != nil {
		fmt.Fprintf(&b, "%s is open from %s until %s", d.Blocker.Rule.Name(), d.format(d.Blocker.Start), d.format(d.Blocker.End))
	} else {
		fmt.Fprintf(&b, "%s lies outside every allow window", d.format(d.At))
	}
	switch {
	case d.Open:
		b.WriteString("; a rollback passes it (change_windows.rollback_during_freeze)")
	case d.Exhausted:
		b.WriteString("; no change window opens within the searched time (check the allow and deny schedules)")
	default:
		fmt.Fprintf(&b, "; the next change window opens %s", d.format(d.NextOpen))
	}
	return b.String()
}

// format is a time in the calendar's zone, with its abbreviation and offset, and the weekday.
func (d Decision) format(t time.Time) string {
	loc := d.loc
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2006-01-02 15:04 MST (-07:00)")
}

// formatDuration prints a duration as configured ("9h", "336h", "1h30m").
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
