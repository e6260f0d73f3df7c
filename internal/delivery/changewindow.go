// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kalypso/terraform-provider-kalypso/internal/windows"
)

const (
	// BreakGlassTrailer and TicketTrailer open the trailer lines of a commit that a break-glass let
	// through a closed change window.
	BreakGlassTrailer = "Kalypso-Break-Glass"
	TicketTrailer     = "Kalypso-Ticket"
)

// BreakGlass is the break_glass attribute: the reason and ticket of an override of a closed window.
type BreakGlass struct {
	Reason, Ticket string
}

// Trailers are the commit trailers of a change that b let through.
func (b BreakGlass) Trailers() []string {
	out := []string{BreakGlassTrailer + ": " + b.Reason}
	if b.Ticket != "" {
		out = append(out, TicketTrailer+": "+b.Ticket)
	}
	return out
}

// BreakGlassRecord is what the last apply that a break-glass let through recorded (in private state): a
// break-glass lets one change through, so the same reason and ticket do not let another tree through.
type BreakGlassRecord struct {
	BreakGlass
	// Tree is the managed tree the break-glass let through; At when (RFC 3339).
	Tree, At string
}

// Marshal encodes the record for private state.
func (r BreakGlassRecord) Marshal() []byte {
	b, _ := json.Marshal(struct {
		Reason string `json:"reason"`
		Ticket string `json:"ticket"`
		Tree   string `json:"tree"`
		At     string `json:"at"`
	}{r.Reason, r.Ticket, r.Tree, r.At})
	return b
}

// ParseBreakGlassRecord decodes a record; nil for none or for one it cannot read.
func ParseBreakGlassRecord(b []byte) *BreakGlassRecord {
	if len(b) == 0 {
		return nil
	}
	var v struct {
		Reason string `json:"reason"`
		Ticket string `json:"ticket"`
		Tree   string `json:"tree"`
		At     string `json:"at"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return &BreakGlassRecord{BreakGlass: BreakGlass{Reason: v.Reason, Ticket: v.Ticket}, Tree: v.Tree, At: v.At}
}

// WindowConfig is change_windows and break_glass as configured.
type WindowConfig struct {
	// Known is false while either is unknown at plan time: the apply decides then.
	Known bool
	// Calendar is nil without change_windows; BreakGlass nil without break_glass.
	Calendar   *windows.Calendar
	BreakGlass *BreakGlass
}

// planWindow is the window step of a plan: a plan that writes something (or may: an input is unknown)
// is refused outside change_windows, unless break_glass lets this one change through, which the plan
// states in a warning. A plan that writes nothing is never blocked.
func planWindow(_ context.Context, p *Planning) error {
	w := p.Config.Window
	if !w.Known || w.Calendar == nil {
		return nil
	}
	f := WindowFacts{Calendar: w.Calendar, Now: p.Now, Writes: p.Decision.CommitUnknown, BreakGlass: w.BreakGlass, Used: p.BreakGlassUsed, Rollback: p.RolledBack != nil}
	if p.Changes != nil {
		f.Tree = p.Changes.DesiredTree
	}
	v := CheckWindow(f)
	if v.Err != nil {
		return Explain(p.ID, v.Err)
	}
	if v.Warning != "" {
		summary := "Change window closed"
		if v.BreakGlass != nil {
			summary = "Break-glass: change window closed"
		}
		p.Warn(summary, fmt.Sprintf("kalypso_gitops_commit %s: %s", p.ID, v.Warning))
	}
	return nil
}

// WindowFacts are the inputs of the change-window step of a plan or an apply.
type WindowFacts struct {
	// Calendar is change_windows; nil when not configured (always open).
	Calendar *windows.Calendar
	Now      time.Time
	// Writes is false for a plan that writes nothing: an empty plan is never blocked.
	Writes bool
	// Tree is the desired managed tree ("" while unknown).
	Tree string
	// BreakGlass is break_glass (nil when not configured); Used is the record of the last break-glass apply.
	BreakGlass *BreakGlass
	Used       *BreakGlassRecord
	// Rollback is true when the change is a rollback.
	Rollback bool
	// Apply is true at apply time (the message says the plan was made while the window was open).
	Apply bool
}

// WindowVerdict is the outcome of the change-window step.
type WindowVerdict struct {
	// Err refuses the change (at change_windows, or break_glass when that one was used already).
	Err *Error
	// BreakGlass is set when the window is closed and break_glass lets the change through: the commit
	// carries its trailers, and Warning says so.
	BreakGlass *BreakGlass
	Warning    string
}

// ErrWindowClosed is the class of a change refused by change_windows.
var ErrWindowClosed = errors.New("change window closed")

// CheckWindow is the change-window step: a change is written only while change_windows is open, or
// through break_glass, which lets one change (one desired tree) through with its reason and ticket. It
// runs at plan and again at apply, since plan and apply may run hours apart on different workers.
func CheckWindow(f WindowFacts) WindowVerdict {
	if f.Calendar == nil || !f.Writes {
		return WindowVerdict{}
	}
	d := f.Calendar.Decide(f.Now, windows.Change{Rollback: f.Rollback})
	if d.Open {
		if d.RollbackThroughFreeze {
			return WindowVerdict{Warning: "the rollback passes a closed change window: " + d.Reason() + "."}
		}
		return WindowVerdict{}
	}
	when := "now"
	if f.Apply {
		when = "at apply time (the plan was made while it was open, or by a break-glass that is gone)"
	}
	if f.BreakGlass == nil {
		return WindowVerdict{Err: &Error{Attribute: "change_windows", Summary: "Change window closed", Err: fmt.Errorf("%w %s: %s", ErrWindowClosed, when, d.Reason()),
			Hint: "Nothing was written. Plan and apply again once the window is open, or let this one change through with " +
				"break_glass = { reason = \"...\", ticket = \"...\" }: the plan shows it and the commit carries its reason and ticket as trailers."}}
	}
	if u := f.Used; u != nil && u.BreakGlass == *f.BreakGlass && f.Tree != "" && u.Tree != f.Tree {
		return WindowVerdict{Err: &Error{Attribute: "break_glass", Summary: "Break-glass already used",
			Err: fmt.Errorf("%w %s: %s; break_glass (reason %q, ticket %q) let one change through already (tree %s, at %s), and a break-glass lets one change through",
				ErrWindowClosed, when, d.Reason(), u.Reason, u.Ticket, shortID(u.Tree), u.At),
			Hint: "Nothing was written. Give this change its own break_glass (another ticket or reason), or wait for the window."}}
	}
	// ValidateConfig checks the text when it is known at validate time; one that came from another
	// resource is known only now, and a line break in it would forge trailers in the commit message.
	for _, text := range []struct {
		name, value string
		required    bool
	}{{"reason", f.BreakGlass.Reason, true}, {"ticket", f.BreakGlass.Ticket, false}} {
		if err := CheckBreakGlassText(text.name, text.value, text.required); err != nil {
			return WindowVerdict{Err: &Error{Attribute: "break_glass." + text.name, Summary: "Invalid break-glass", Err: err,
				Hint: "Nothing was written. Give break_glass." + text.name + " one line of plain text (at most 500 bytes)."}}
		}
	}
	bg := *f.BreakGlass
	ticket := bg.Ticket
	if ticket == "" {
		ticket = "none"
	}
	return WindowVerdict{BreakGlass: &bg, Warning: fmt.Sprintf("the change window is closed: %s. break_glass lets this change through (reason %q, ticket %s); "+
		"the commit carries the trailers %s and %s.", d.Reason(), bg.Reason, ticket, BreakGlassTrailer, TicketTrailer)}
}

// CheckBreakGlassText refuses a reason or ticket that cannot be a commit trailer's value.
func CheckBreakGlassText(name, value string, required bool) error {
	switch {
	case required && strings.TrimSpace(value) == "":
		return fmt.Errorf("break_glass.%s is empty; say why this change must pass the closed window", name)
	case strings.ContainsAny(value, "\r\n\x00"):
		return fmt.Errorf("break_glass.%s holds a line break or NUL; it becomes a one-line commit trailer", name)
	case !utf8.ValidString(value):
		return fmt.Errorf("break_glass.%s is not valid UTF-8; write it as plain text", name)
	case strings.IndexFunc(value, isHiddenControl) >= 0:
		r, _ := utf8.DecodeRuneInString(value[strings.IndexFunc(value, isHiddenControl):])
		return fmt.Errorf("break_glass.%s holds the control character %U; it becomes a one-line commit trailer and a plan warning, write it as plain text", name, r)
	case len(value) > 500:
		return fmt.Errorf("break_glass.%s is %d bytes long; at most 500 fit a commit trailer", name, len(value))
	}
	return nil
}

// isHiddenControl reports a character that a reader of the commit or the plan would not see as written:
// control characters other than tab (terminal escapes, C1), the Unicode line and paragraph separators,
// and the bidirectional overrides that reorder what a log shows.
func isHiddenControl(r rune) bool {
	return r != '\t' && unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}
