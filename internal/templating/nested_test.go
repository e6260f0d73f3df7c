// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"fmt"
	"strings"
	"testing"
)

// TestRerenderCutIsTheWholeParse renders manifests whose output holds actions three times on one engine,
// for three namespaces, so that the second and third re-render go through the cache of actions parts, and
// compares each output and error with an engine that has never seen the text (a parse of the whole output).
func TestRerenderCutIsTheWholeParse(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		text string
		lim  Limits
		// cut: the second sighting must take the cached path.
		cut bool
	}{
		"greeting":                           {text: "ns: {{ .Namespace }}\ngreeting: Hello {{ `{{ .ClusterType }} / {{ .DeploymentTargetName }}` }}\nend\n", cut: true},
		"left trim":                          {text: "{{ .Namespace }}   \n\t{{ `{{- .Workload }}` }}   tail", cut: true},
		"right trim":                         {text: "{{ `{{ .Workload -}}` }}   \n  {{ .Namespace }}", cut: true},
		"both trims":                         {text: "{{ .Namespace }} \n {{ `{{- .Workload }} x {{ .ClusterType -}}` }}\n\n {{ .Namespace }}", cut: true},
		"minus number, no trim":              {text: "{{ .Namespace }}   {{ `{{-3}}` }}   {{ .Namespace }}", cut: true},
		"ends in text":                       {text: "{{ .Namespace }} {{ `{{ .Workload }} x -}}` }}   after", cut: true},
		"comment":                            {text: "{{ .Namespace }} {{ `{{ .Workload }}{{/* c */ -}}` }}   after"},
		"define":                             {text: "{{ .Namespace }} {{ `{{ define \"x\" }}X{{ end }}{{ template \"x\" }}` }} after"},
		"execution error":                    {text: "{{ .Namespace }}\n{{ `{{ fail \"boom\" }}` }}", cut: true},
		"parse error":                        {text: "{{ .Namespace }} {{ `{{ if .Workload }}x` }} }}"},
		"action opened after the last close": {text: "{{ .Namespace }} {{ `{{0}}{{'` }}\nW: w"},
		"twice nested":                       {text: "{{ .Namespace }} {{ `{{ \"{{ .Workload }}\" }}` }} end", cut: true},
		"modifies the config":                {text: "{{ .Namespace }} {{ `{{ $_ := set .ConfigData \"k\" \"v\" }}{{ .ConfigData.k }}` }}", cut: true},
		"output limit in prefix":             {text: "{{ .Namespace }}{{ repeat 60 `x` }} {{ `{{ .Workload }}` }}", lim: Limits{MaxOutput: 50}},
		"output limit in suffix":             {text: "{{ .Namespace }} {{ `{{ repeat 30 \"y\" }}` }}{{ repeat 40 `x` }}", lim: Limits{MaxOutput: 70}, cut: true},
		"output limit in action":             {text: "{{ .Namespace }} {{ `{{ repeat 100 .Workload }}` }}", lim: Limits{MaxOutput: 80}, cut: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := NewEngine()
			for _, ns := range []string{"ns-a", "ns-b", "ns-c"} {
				data := func() *Data {
					return &Data{Namespace: ns, Workload: "wl", ClusterType: "large", DeploymentTargetName: "target", ConfigData: map[string]interface{}{"k": "old"}}
				}
				want, wantErr := NewEngine().ExecuteLimited(tc.text, data(), tc.lim)
				got, gotErr := e.ExecuteLimited(tc.text, data(), tc.lim)
				if got != want || errorText(gotErr) != errorText(wantErr) {
					t.Fatalf("namespace %s: got %q, %v; the whole parse gives %q, %v", ns, got, gotErr, want, wantErr)
				}
			}
			cut := 0
			for _, p := range e.nested.entries {
				if p != nil && p.parsed != nil {
					cut++
				}
			}
			if tc.cut && cut == 0 {
				t.Errorf("no actions part was cached for reuse; entries: %v", e.nested.entries)
			}
			if !tc.cut && cut != 0 {
				t.Errorf("%d actions parts were cached for reuse, want none", cut)
			}
		})
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSplitActions(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][3]string{
		"a {{ x }} b {{ y }} c": {"a ", "{{ x }} b {{ y }}", " c"},
		"{{x}}":                 {"", "{{x}}", ""},
	} {
		p, a, s, ok := splitActions(text)
		if !ok || [3]string{p, a, s} != want {
			t.Errorf("splitActions(%q) = %q, %q, %q, %v; want %q", text, p, a, s, ok, want)
		}
	}
	for _, text := range []string{"}} {{", "{{}", "no actions", "{{}}", "{{0}}{{", "a {{ x }} }} {{ b"} {
		if _, _, _, ok := splitActions(text); ok && !strings.Contains(text, "{{}}") {
			t.Errorf("splitActions(%q) cut it", text)
		}
	}
}

// TestExecMemoAnswersRerenderedOutput: a config whose values hold actions (issue 34's fleet) is rendered
// once per distinct value of what its renders key on; the others are spliced, with the bytes of a direct
// execution.
func TestExecMemoAnswersRerenderedOutput(t *testing.T) {
	t.Parallel()
	config := map[string]interface{}{
		"GREETING": "Hello {{ .ClusterType }} / {{ .DeploymentTargetName }}",
		"ROUTE":    `{{ printf "%s.{{ .ClusterType }}.example.com" .Environment }}`,
		"REGION":   "West US",
	}
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: {{ .Namespace }}\ndata:\n{{ toYaml .ConfigData | indent 2 }}"
	direct, memoized, memo := NewEngine(), NewEngine(), NewExecMemo()
	for i := range 60 {
		env := "dev"
		if i%20 == 19 {
			env = "stage" // a value the re-render keys on: not answered from dev's entry
		}
		data := func() *Data {
			return &Data{Namespace: fmt.Sprintf("%s-ct-%d-target-%d", env, i%7, i), Environment: env, ClusterType: fmt.Sprintf("ct-%d", i%7),
				DeploymentTargetName: fmt.Sprintf("target-%d", i), ConfigData: config, ConfigFrozen: true}
		}
		want, wantErr := direct.ExecuteLimited(text, data(), Limits{})
		got, shapes, gotErr := memoized.ExecuteAllMemo(memo, []string{text}, data(), Limits{})
		if wantErr != nil || gotErr != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("assignment %d: got %q, %v; want %q, %v", i, got, gotErr, want, wantErr)
		}
		if env == "dev" && i > 2 && shapes[0].IsZero() {
			t.Errorf("assignment %d: no Shape for a memoized output", i)
		}
	}
	if hits, misses := memo.Stats(); hits < 50 {
		t.Errorf("the memo answered %d of 60 executions (%d misses), want at least 50", hits, misses)
	}
}
