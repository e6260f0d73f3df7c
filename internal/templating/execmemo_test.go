// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fields is a test's way to write a fieldSet.
func fields(names ...string) fieldSet {
	var s fieldSet
	for _, n := range names {
		f, ok := fieldByName(n)
		if !ok {
			panic(n)
		}
		s |= 1 << f
	}
	return s
}

func TestAnalyseReads(t *testing.T) {
	t.Parallel()
	everything := readSet{}
	cases := []struct {
		text string
		want readSet
	}{
		{`plain text`, readSet{memo: true}},
		{`name: "{{ .DeploymentTargetName}}"`, readSet{memo: true, splice: fields("DeploymentTargetName")}},
		{`{{ .Namespace | quote }} {{ quote .Workload }} {{ $.Environment }}`, readSet{memo: true, splice: fields("Namespace", "Workload", "Environment")}},
		// Printed once as it is, used once otherwise: a key.
		{`{{ .Namespace }} {{ upper .Namespace }}`, readSet{memo: true, key: fields("Namespace")}},
		{`{{ .Namespace | squote }}`, readSet{memo: true, key: fields("Namespace")}},
		{`{{ len .Namespace }}`, readSet{memo: true, key: fields("Namespace")}},
		{`{{ if .Namespace }}{{ .Workload }}{{ end }}`, readSet{memo: true, key: fields("Namespace"), splice: fields("Workload")}},
		{`url: {{ .Manifests.repo }} {{ index .Labels "a" }} {{ (.Labels).b }}`, readSet{memo: true, key: fields("Manifests", "Labels")}},
		{`{{ toYaml .ConfigData | indent 2 }} {{ .ConfigFrozen }}`, readSet{memo: true, key: fields("ConfigData", "ConfigFrozen")}},
		{`{{ $x := .ClusterType }}{{ $x }}`, readSet{memo: true, key: fields("ClusterType")}},
		// Inside range and with, dot is a value of the pipeline, whose reads are counted; `$` is the root.
		{`{{ range $k, $v := .Labels }}{{ $k }}={{ .x }}{{ $.Namespace }}{{ end }}`, readSet{memo: true, key: fields("Labels"), splice: fields("Namespace")}},
		{`{{ with .Manifests }}{{ .repo }}{{ else }}{{ .Workspace }}{{ end }}`, readSet{memo: true, key: fields("Manifests"), splice: fields("Workspace")}},
		{`{{ range .ConfigData.list }}{{ .Namespace }}{{ else }}{{ .Namespace }}{{ end }}`, readSet{memo: true, key: fields("ConfigData"), splice: fields("Namespace")}},
		{`{{ with $.ConfigData }}{{ $.Namespace | upper }}{{ end }}`, readSet{memo: true, key: fields("ConfigData", "Namespace")}},
		// The whole data, anywhere.
		{`{{ . }}`, everything},
		{`{{ toYaml . }}`, everything},
		{`{{ toYaml $ }}`, everything},
		{`{{ $d := . }}{{ $d.Namespace }}`, everything},
		{`{{ with . }}{{ .Namespace }}{{ end }}`, everything},
		{`{{ range $i, $e := list 1 2 }}{{ $ }}{{ end }}`, everything},
		{`{{ (.).Namespace }}`, everything},
		{`{{ define "x" }}{{ .Namespace }}{{ end }}{{ template "x" . }}`, everything},
		{`{{ block "x" . }}{{ .Namespace }}{{ end }}`, everything},
		{`{{ .NoSuchField }}`, everything},
		// Results that differ between calls, or functions that modify their arguments.
		{`{{ now }}`, everything},
		{`{{ uuidv4 }}`, everything},
		{`{{ randAlphaNum 5 }}`, everything},
		{`{{ date "2006" .Namespace }}`, everything},
		{`{{ keys .Labels | join "," }}`, everything},
		{`{{ if false }}{{ randInt 1 9 }}{{ end }}`, everything},
		{`{{ $_ := set .ConfigData "a" "b" }}`, everything},
	}
	for _, c := range cases {
		tmpl, err := parseTemplate(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := analyseReads(tmpl); got != c.want {
			t.Errorf("analyseReads(%s) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

// memoTemplates are templates of every kind the analysis tells apart; each is executed through a memo
// on many Data values and compared with a direct execution.
var memoTemplates = []string{
	`plain text`,
	`name: "{{ .DeploymentTargetName}}"
namespace: {{ .Namespace }}
env: {{ .Environment | quote }} ws: {{ quote .Workspace }} wl: {{ $.Workload }} ct: {{ .ClusterType }}`,
	`{{ .Namespace }}{{ .Namespace }}-{{ .Namespace | quote }}{{ upper .Namespace }}`,
	// Values that quoting changes (`quo"te`), or that would make `{{` with the text before them.
	`ns: {{ .Namespace | quote }} {{ quote .DeploymentTargetName }}`,
	`x{{ "{" }}{{ .Namespace }}`,
	`{{ if eq .ClusterType "large" }}big {{ .Namespace }}{{ else }}small{{ end }}`,
	`url: {{ .Manifests.repo }} path: {{ index .Manifests "path" | quote }} {{ .Labels.purpose }} {{ (.Labels).edge }}`,
	`data:
{{ toYaml .ConfigData | indent 2 }}
{{ range $k, $v := .ConfigData }}{{ $k }}={{ $v }} in {{ $.Namespace }}
{{ end }}`,
	`{{ with .ConfigData.REGION }}{{ . }}{{ else }}{{ .Namespace }}{{ end }}`,
	`{{ range $i, $t := .Labels }}{{ $i }}:{{ $t }}/{{ $.DeploymentTargetName | quote }};{{ else }}none {{ .ClusterType }}{{ end }}`,
	`{{ $ns := .Namespace }}{{ $ns }}-{{ $ns | len }}`,
	`{{ define "inner" }}[{{ .Namespace }}]{{ end }}{{ template "inner" . }}`,
	`{{ toYaml . }}`,
	`{{ stringify .ConfigData }} {{ hash .Labels }} {{ .ConfigFrozen }}`,
	`{{ .Namespace | trunc 5 }}`,
	`{{ printf "%s/%s" .Namespace .Workload }}`,
	// A config value holding `{{ .ClusterType }}` is executed again and reads the cluster type.
	`{{ .ConfigData.tmpl }} {{ .Namespace }}`,
	// Issue 34: config values with actions (rerenderedEntry), one that prints a spliced value into the
	// actions of the next render, one whose re-render keys on a spliced field.
	"ns: {{ .Namespace }}\n{{ toYaml .ConfigData }}",
	`{{ "{{ printf \"%s!\" \"" }}{{ .Namespace }}{{ "\" }}" }} {{ .ConfigData.GREETING }}`,
	`{{ .Namespace }} {{ "{{ .Namespace | upper }}" }} {{ .ConfigData.ROUTE }}`,
	// Errors name what they failed on.
	`{{ .Namespace }}{{ fail (printf "no %s" .Workload) }}`,
	`{{ .Namespace }}{{ required "missing REGION" .ConfigData.MISSING }}`,
	`{{ .Namespace }} {{ .Manifests.repo | required "no repo" }}`,
	// Results that differ between calls are never memoized.
	`{{ .Namespace }} {{ uuidv4 }}`,
	`{{ .Namespace }} {{ now | date "15:04:05.000000000" }}`,
	`{{ .Namespace }} {{ randAlphaNum 12 }}`,
	`{{ $c := dict "a" .Namespace }}{{ $_ := set $c "b" 1 }}{{ toYaml $c }}`,
}

// memoData returns n Data values that share their maps the way a render does: targets' Labels and
// Manifests maps and frozen composed configs are shared, never modified.
func memoData(r *rand.Rand, n int) []*Data {
	namespaces := []string{"dev-large-app", "dev-small-app", "dev-large-app-canary", "a", "", "has space", `quo"te`, "{brace", "UPPER-ok", "x.y_z", "dev-" + strings.Repeat("n", 60)}
	labels := []map[string]string{nil, {"purpose": "web"}, {"purpose": "db", "edge": "true"}, {"purpose": "{{ .ClusterType }}"}}
	manifests := []map[string]string{nil, {"repo": "https://example.com/a", "path": "./a"}, {"repo": "https://example.com/b", "path": "./b", "branch": "main"}}
	configs := []map[string]interface{}{
		nil,
		{"REGION": "west", "list": []interface{}{"a", "b"}},
		{"REGION": "east", "nested": map[string]interface{}{"k": "v"}},
		{"tmpl": "{{ .ClusterType }}", "REGION": "{{ .Namespace }}"},
		{"tmpl": "{{ .ClusterType }}{{ .Workload }}"},
		{"GREETING": "Hello {{ .ClusterType }} / {{ .DeploymentTargetName }}", "ROUTE": `{{ printf "%s.{{ .ClusterType }}.example.com" .Environment }}`},
		{"GREETING": `{{ if eq .Environment "dev" }}{{ .Workload }}{{ else }}{{ .Workspace | quote }}{{ end }}`, "REGION": "west"},
	}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	out := make([]*Data, n)
	for i := range out {
		out[i] = &Data{
			DeploymentTargetName: pick([]string{"app", "app-canary", "db", "x y"}),
			Namespace:            pick(namespaces),
			Environment:          pick([]string{"dev", "stage"}),
			Workspace:            pick([]string{"ws", "ws-2"}),
			Workload:             pick([]string{"app", "db", "billing"}),
			ClusterType:          pick([]string{"large", "small", "edge"}),
			Labels:               labels[r.IntN(len(labels))],
			Manifests:            manifests[r.IntN(len(manifests))],
			ConfigData:           configs[r.IntN(len(configs))],
			ConfigFrozen:         r.IntN(4) != 0,
		}
	}
	return out
}

// copyData is d with a copy of its config, for the direct execution: a template that modifies the config
// gets its own copy anyway, and the comparison must not depend on what the other side did.
func copyData(d *Data) *Data {
	c := *d
	return &c
}

// The memo gives exactly the bytes, and the errors, of executing each template on each Data value,
// whatever the order of the executions.
func TestExecMemoMatchesDirectExecution(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	data := memoData(r, 400)
	direct, memoized := NewEngine(), NewEngine()
	for round := 0; round < 3; round++ {
		memo := NewExecMemo()
		for _, i := range r.Perm(len(data)) {
			d := data[i]
			want, wantErr := direct.ExecuteAllLimited(memoTemplates, copyData(d), Limits{})
			got, shapes, gotErr := memoized.ExecuteAllMemo(memo, memoTemplates, copyData(d), Limits{})
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("data %+v: error %v, want %v", d, gotErr, wantErr)
			}
			if wantErr != nil {
				continue
			}
			if len(shapes) != len(got) {
				t.Fatalf("%d shapes for %d outputs", len(shapes), len(got))
			}
			for k := range want {
				if strings.Contains(memoTemplates[k], "uuidv4") || strings.Contains(memoTemplates[k], "now") || strings.Contains(memoTemplates[k], "rand") {
					continue // differs from run to run; TestExecMemoNeverMemoizesWhatDiffersBetweenCalls
				}
				if got[k] != want[k] {
					t.Fatalf("template %q on %+v:\ngot  %q\nwant %q", memoTemplates[k], d, got[k], want[k])
				}
			}
		}
		if hits, _ := memo.Stats(); hits == 0 {
			t.Fatal("the memo answered no execution")
		}
	}
	// Each template on its own, so that one template's error does not hide the others.
	for _, text := range memoTemplates {
		memo := NewExecMemo()
		for _, d := range data {
			want, wantErr := direct.ExecuteLimited(text, copyData(d), Limits{})
			got, _, gotErr := memoized.executeMemo(memo, text, copyData(d), Limits{})
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("template %q on %+v: error %v, want %v", text, d, gotErr, wantErr)
			}
			if got != want && !strings.Contains(text, "uuidv4") && !strings.Contains(text, "now") && !strings.Contains(text, "rand") {
				t.Fatalf("template %q on %+v:\ngot  %q\nwant %q", text, d, got, want)
			}
		}
	}
}

func TestExecMemoNeverMemoizesWhatDiffersBetweenCalls(t *testing.T) {
	t.Parallel()
	for _, text := range []string{`{{ uuidv4 }}`, `{{ now }}`, `{{ randAlphaNum 8 }}`, `{{ randInt 0 1000000 }}`, `{{ date "05.000000000" .Namespace }}`,
		`{{ $d := dict "a" 1 "b" 2 "c" 3 "d" 4 }}{{ keys $d | join "," }}`, `{{ $_ := set .ConfigData "a" "b" }}{{ .ConfigData.a }}`} {
		e, memo := NewEngine(), NewExecMemo()
		seen := map[string]bool{}
		for i := 0; i < 20; i++ {
			out, _, err := e.ExecuteAllMemo(memo, []string{text}, &Data{Namespace: "ns", ConfigData: map[string]interface{}{}, ConfigFrozen: true}, Limits{})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			seen[strings.Join(out, "")] = true
		}
		if hits, misses := memo.Stats(); hits != 0 || misses != 0 {
			t.Errorf("%s: the memo was used (%d hits, %d misses)", text, hits, misses)
		}
		if strings.Contains(text, "uuid") && len(seen) != 20 {
			t.Errorf("%s: %d distinct outputs of 20", text, len(seen))
		}
	}
}

// A spliced value longer than the sentinel can take the output past the limit: the memo's output must
// then be the limit error an execution gives, not a text longer than the limit.
func TestExecMemoKeepsTheOutputLimit(t *testing.T) {
	t.Parallel()
	e, memo := NewEngine(), NewExecMemo()
	text := `{{ .Namespace }}{{ .Namespace | quote }}`
	lim := Limits{MaxOutput: 80}
	for _, ns := range []string{"short", strings.Repeat("a", 39), strings.Repeat("b", 40), "short2", strings.Repeat("c", 30)} {
		want, wantErr := NewEngine().ExecuteLimited(text, &Data{Namespace: ns}, lim)
		got, _, gotErr := e.executeMemo(memo, text, &Data{Namespace: ns}, lim)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("namespace of %d bytes: %q, %v; want %q, %v", len(ns), got, gotErr, want, wantErr)
		}
		if len(ns) == 40 {
			if _, ok := AsLimitError(gotErr); !ok {
				t.Errorf("namespace of 40 bytes: want a limit error, got %v", gotErr)
			}
		}
	}
	if hits, _ := memo.Stats(); hits == 0 {
		t.Error("the memo answered no execution")
	}
}

// A canceled render or an expired deadline is not answered from the memo.
func TestExecMemoStopsWithTheRender(t *testing.T) {
	t.Parallel()
	e, memo := NewEngine(), NewExecMemo()
	text := `{{ .Namespace }}`
	if _, _, err := e.executeMemo(memo, text, &Data{Namespace: "a"}, Limits{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, lim := range []Limits{{Context: ctx}, {Deadline: time.Now().Add(-time.Second)}} {
		_, _, err := e.executeMemo(memo, text, &Data{Namespace: "b"}, lim)
		var le *LimitError
		if !errors.As(err, &le) {
			t.Errorf("%+v: got %v, want a limit error", lim, err)
		}
	}
}

// An unfrozen config may change between executions: a template that reads it is not memoized.
func TestExecMemoLeavesUnfrozenConfigsAlone(t *testing.T) {
	t.Parallel()
	e, memo := NewEngine(), NewExecMemo()
	config := map[string]interface{}{"a": "1"}
	text := `{{ .ConfigData.a }}`
	for _, v := range []string{"1", "2", "3"} {
		config["a"] = v
		got, _, err := e.executeMemo(memo, text, &Data{ConfigData: config}, Limits{})
		if err != nil || got != v {
			t.Fatalf("got %q, %v; want %q", got, err, v)
		}
	}
	if hits, misses := memo.Stats(); hits+misses != 0 {
		t.Errorf("the memo was used (%d hits, %d misses)", hits, misses)
	}
}

// Outputs of one Shape differ only in maskable names of the same lengths; another length, or a value that
// is not one (not a DNS name, or one that starts with a digit), gives another Shape or none.
func TestExecMemoShapes(t *testing.T) {
	t.Parallel()
	e, memo := NewEngine(), NewExecMemo()
	text := `ns: {{ .Namespace }}`
	shape := func(ns string) Shape {
		_, s, err := e.executeMemo(memo, text, &Data{Namespace: ns}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c, d, digit := shape("dev-abc"), shape("dev-xyz"), shape("dev-abcd"), shape("Dev-abc"), shape("1-abc")
	if a.IsZero() || a != b {
		t.Errorf("equal lengths: %v, %v", a, b)
	}
	if c == a || c.IsZero() {
		t.Errorf("another length: %v", c)
	}
	if !d.IsZero() {
		t.Errorf("not a DNS name: %v", d)
	}
	if !digit.IsZero() {
		t.Errorf("a name that starts with a digit: %v", digit)
	}
}
