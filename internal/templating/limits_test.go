// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"context"
	"strings"
	"testing"
	"time"
)

// goDepthLimit is text/template's own recursion guard, a plain execution error rather than one of our limits.
const goDepthLimit = "exceeded maximum template depth"

// TestLimitsStopHostileTemplates: each template would run for minutes or take gigabytes without the
// limits. Each must stop with the named limit, within the deadline given (well under a second here).
func TestLimitsStopHostileTemplates(t *testing.T) { //nolint:paralleltest // each case spins a CPU-bound template until a limit stops it; beside other tests a deadline could fire before the output limit a case expects
	cases := []struct {
		name, text string
		kind       LimitKind
		detail     string
	}{
		{"range over a huge integer with an empty body", `{{ range 9000000000 }}{{ end }}`, LimitDeadline, "time limit"},
		{"nested ranges", `{{ range 100000 }}{{ range 100000 }}{{ end }}{{ end }}`, LimitDeadline, "time limit"},
		{"exponential template recursion", `{{ define "a" }}{{ if lt . 60 }}{{ template "a" (add . 1) }}{{ template "a" (add . 1) }}{{ end }}{{ end }}{{ template "a" 0 }}`, LimitDeadline, "time limit"},
		{"until allocates 3e9 elements", `{{ range until 3000000000 }}{{ end }}`, LimitOutput, "until would build"},
		{"untilStep", `{{ untilStep 0 3000000000 1 }}`, LimitOutput, "untilStep would build"},
		{"seq", `{{ seq 1 3000000000 }}`, LimitOutput, "seq would build"},
		{"repeat writes 100 MB", `{{ repeat 100000000 "x" }}`, LimitOutput, "repeat would build"},
		{"indent", `{{ indent 1000000000 "a\nb" }}`, LimitOutput, "indent would build"},
		{"nindent", `{{ nindent 1000000000 "a" }}`, LimitOutput, "nindent would build"},
		{"randAlphaNum", `{{ randAlphaNum 1000000000 }}`, LimitOutput, "randAlphaNum would build"},
		{"printf width", `{{ printf "%0999999999d" 1 }}`, LimitOutput, "printf would build"},
		{"printf star width", `{{ printf "%*d" 999999999 1 }}`, LimitOutput, "printf would build"},
		{"replace of the empty string", `{{ $s := repeat 100000 "x" }}{{ replace "" (repeat 100000 "y") $s }}`, LimitOutput, "replace would build"},
		{"regexReplaceAll with group expansion", `{{ $s := repeat 100000 "x" }}{{ regexReplaceAll "x" $s "$0$0$0$0" }}`, LimitOutput, "regexReplaceAll would build"},
		{"wrapWith", `{{ wrapWith 1 (repeat 100000 "-") (repeat 100000 "x") }}`, LimitOutput, "wrapWith would build"},
		{"join with a huge separator", `{{ join (repeat 100000 "-") (until 50000) }}`, LimitOutput, "join would build"},
		{"string doubling in a loop", `{{ $s := "xx" }}{{ range 64 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}`, LimitOutput, "larger than"},
		{"list of itself serialized", `{{ $l := list 1 }}{{ range 64 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}`, LimitOutput, "larger than"},
		{"cyclic dict", `{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ toYaml $d }}`, LimitOutput, "larger than"},
		{"output written in a loop", `{{ range 1000000000 }}{{ repeat 1000 "x" }}{{ end }}`, LimitOutput, "output grew past"},
		{"many medium values", `{{ range 100000 }}{{ $x := repeat 60000 "x" }}{{ end }}`, LimitOutput, "in total"},
		{"uniq is quadratic", `{{ uniq (until 50000) }}`, LimitOutput, "uniq compares every pair"},
		{"re-render of a hostile config value", `{{ .ConfigData.X }}`, LimitDeadline, "time limit"},
		// Found while trying inputs that are not in the issue.
		// text/template stops the recursion at its maximum depth (100,000) in about 0.2 s on an idle machine,
		// before any deadline of ours; a short deadline made the case depend on the machine's load.
		{"the manifest calls itself", `{{ template "manifest" . }}`, LimitDeadline, goDepthLimit},
		{"printf width from an indexed argument", `{{ printf "%[2]*[1]d" 1 999999999 }}`, LimitOutput, "printf would build"},
		{"printf precision", `{{ printf "%.999999999f" 1.0 }}`, LimitOutput, "printf would build"},
		{"dict grown in a loop", `{{ $x := dict }}{{ range until 60000 }}{{ $_ := set $x (toString .) (repeat 100 "x") }}{{ end }}`, LimitOutput, "in total"},
		{"untilStep with a negative step", `{{ untilStep 0 3000000000 -1 }}`, LimitOutput, "untilStep would build"},
	}
	e := NewEngine()
	for _, c := range cases {
		goDepth := c.detail == goDepthLimit
		t.Run(c.name, func(t *testing.T) {
			data := &Data{ConfigData: map[string]interface{}{"X": "{{ range 9000000000 }}{{ end }}"}}
			start := time.Now()
			// A case that expects another limit gets a deadline it cannot reach on a loaded machine, so the
			// limit it names stops it first; the deadline cases keep a short one.
			deadline := 300 * time.Millisecond
			if c.kind != LimitDeadline || goDepth {
				deadline = 15 * time.Second
			}
			out, err := e.ExecuteLimited(c.text, data, Limits{Deadline: time.Now().Add(deadline), MaxOutput: 1 << 20})
			if goDepth {
				if _, ours := AsLimitError(err); err == nil || ours || !strings.Contains(err.Error(), c.detail) || out != "" {
					t.Fatalf("got %q, %v; want text/template's %q", out, err, c.detail)
				}
				return
			}
			le, ok := AsLimitError(err)
			if !ok || le.Kind != c.kind || !strings.Contains(le.Error(), c.detail) || out != "" {
				t.Fatalf("got %q, %v; want limit %d with %q", out, err, c.kind, c.detail)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d) // a backstop against a hang, not a timing assertion
			}
		})
	}
}

// TestLimitsCancel: a canceled context (Terraform's Ctrl-C) stops a running template.
func TestLimitsCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := NewEngine().ExecuteLimited(`{{ range 9000000000 }}{{ end }}`, &Data{}, Limits{Context: ctx, Deadline: time.Now().Add(time.Hour)})
	if le, ok := AsLimitError(err); !ok || le.Kind != LimitCanceled {
		t.Fatalf("err %v", err)
	}
}

// TestLimitsLeaveOrdinaryTemplatesAlone: realistic templates, including loops, sprig and re-renders,
// give the same output as before, and a clone reused after a limit error starts with a fresh budget.
func TestLimitsLeaveOrdinaryTemplatesAlone(t *testing.T) {
	t.Parallel()
	e := NewEngine()
	data := &Data{Namespace: "dev-large-app", ConfigData: map[string]interface{}{"A": "1", "B": []interface{}{"x", "y"}, "T": "{{ .Namespace }}"}}
	text := `{{ range $k, $v := .ConfigData }}{{ $k }}={{ toJson $v }};{{ end }}{{ printf "%05d" 42 }} {{ until 3 }} {{ repeat 3 "ab" }} {{ indent 2 "x" }} {{ .ConfigData.T }}{{ define "d" }}[{{ . }}]{{ end }}{{ template "d" "t" }}`
	want := `A="1";B=["x","y"];T="dev-large-app";00042 [0 1 2] ababab   x dev-large-app[t]`
	for i := 0; i < 3; i++ {
		out, err := e.ExecuteLimited(text, data, Limits{MaxOutput: 1 << 10})
		if err != nil || out != want {
			t.Fatalf("run %d: %q, %v", i, out, err)
		}
		if _, err := e.ExecuteLimited(`{{ repeat 2000 "x" }}`, data, Limits{MaxOutput: 1 << 10}); err == nil {
			t.Fatal("limit not applied")
		}
	}
}
