// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/windows"
)

// hostileBreakGlassTexts are reason/ticket values that would forge or hide commit trailers, each with
// what CheckBreakGlassText must say ("" for a value it accepts).
var hostileBreakGlassTexts = []struct{ name, value, want string }{
	{"trailer injection by LF", "x\nKalypso-Ticket: fake", "line break"},
	{"trailer injection by CRLF", "x\r\nSigned-off-by: someone", "line break"},
	{"a lone CR", "x\rKalypso-Ticket: fake", "line break"},
	{"NUL", "x\x00y", "line break or NUL"},
	{"a blank line ending the trailers", "x\n\nfake body", "line break"},
	{"vertical tab", "x\vy", "U+000B"},
	{"form feed", "x\fy", "U+000C"},
	{"terminal escape", "x\x1b[2Jy", "U+001B"},
	{"DEL", "x\x7fy", "U+007F"},
	{"C1 next line", "x\u0085Kalypso-Ticket: fake", "U+0085"},
	{"Unicode line separator", "x\u2028Kalypso-Ticket: fake", "U+2028"},
	{"Unicode paragraph separator", "x\u2029y", "U+2029"},
	{"right-to-left override", "INC-1\u202e2-CNI", "U+202E"},
	{"isolate", "INC-1\u2066x", "U+2066"},
	{"invalid UTF-8", "INC-\xff", "not valid UTF-8"},
	{"501 bytes", strings.Repeat("x", 501), "501 bytes"},
	{"a tab", "hotfix\tINC-1", ""},
	{"a trailer-like one-liner", "Kalypso-Ticket: fake", ""},
	{"Markdown and HTML", "<script>alert(1)</script> **bold**", ""},
	{"non-ASCII", "Störung behoben – INC-1 ✓", ""},
	{"500 bytes", strings.Repeat("x", 500), ""},
}

func TestHostileBreakGlassText(t *testing.T) {
	t.Parallel()
	for _, c := range hostileBreakGlassTexts {
		for _, field := range []string{"reason", "ticket"} {
			err := CheckBreakGlassText(field, c.value, field == "reason")
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s (%s): %v", c.name, field, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "break_glass."+field)):
				t.Errorf("%s (%s): %v; want an error at break_glass.%s containing %q", c.name, field, err, field, c.want)
			}
		}
	}
}

// TestHostileBreakGlassAtApply: a reason or ticket known only at apply (it came from another resource,
// so ValidateConfig saw it unknown) is checked by the window step itself: a line break never reaches the
// commit's trailers, and nothing is written.
func TestHostileBreakGlassAtApply(t *testing.T) {
	t.Parallel()
	cal, problems := windows.Parse(windows.Spec{TimeZone: "Europe/Berlin", Allow: []windows.RuleSpec{{Schedule: "0 8 * * 1-5", Duration: "9h"}}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	closed := time.Date(2026, 11, 25, 17, 1, 0, 0, cal.Location)
	for _, c := range hostileBreakGlassTexts {
		for _, field := range []string{"reason", "ticket"} {
			bg := &BreakGlass{Reason: "hotfix", Ticket: "INC-1"}
			if field == "reason" {
				bg.Reason = c.value
			} else {
				bg.Ticket = c.value
			}
			v := CheckWindow(WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: bg, Tree: "t1", Apply: true})
			switch {
			case c.want == "" && (v.Err != nil || v.BreakGlass == nil):
				t.Errorf("%s (%s): %+v, want the break-glass to pass", c.name, field, v)
			case c.want != "" && (v.Err == nil || v.Err.Attribute != "break_glass."+field || !strings.Contains(v.Err.Error(), c.want) || v.BreakGlass != nil):
				t.Errorf("%s (%s): %+v, want a refusal at break_glass.%s containing %q", c.name, field, v.Err, field, c.want)
			case c.want == "":
				for _, line := range v.BreakGlass.Trailers() {
					if strings.ContainsAny(line, "\r\n") {
						t.Errorf("%s (%s): trailer %q spans lines", c.name, field, line)
					}
				}
			}
		}
	}
	// An empty reason that reached the engine (unknown at validate) is refused too.
	v := CheckWindow(WindowFacts{Calendar: cal, Now: closed, Writes: true, BreakGlass: &BreakGlass{Reason: " "}, Tree: "t1"})
	if v.Err == nil || v.Err.Attribute != "break_glass.reason" || !strings.Contains(v.Err.Error(), "is empty") {
		t.Errorf("empty reason: %+v", v.Err)
	}
}
