// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"regexp"
	"strings"
	"testing"
)

// Functions whose cost grows with an argument (or that reach the network or the environment) are left out:
// the fuzzer would spend its time allocating, not finding crashes.
var expensive = regexp.MustCompile(`until|repeat|seq|range|env|getHostByName|gen[A-Z]|bcrypt|htpasswd|derivePassword|buildCustomCert|rand|mul|pow|\d{4,}`)

// FuzzTemplateExecute executes an arbitrary manifest with an arbitrary config value, which may itself hold
// template actions. Execution must end (the re-render depth is bounded), never panic, and drop only "".
func FuzzTemplateExecute(f *testing.F) {
	f.Add("{{ .Workload }}", "x")
	f.Add("{{ .ConfigData.V }}", "{{ .ConfigData.V }}")
	f.Add("{{ .ConfigData.V }}", "{{ .Environment }}-{{ .ConfigData.W }}")
	f.Add("{{ toYaml .ConfigData }}", "a: 1")
	f.Add("{{ stringify .ConfigData }}", "[1, 2]")
	f.Add("{{ hash .ConfigData }}", "")
	f.Add("{{ unquote .ConfigData.V }}", "' x '")
	f.Add(`{{ fail "boom" }}`, "")
	f.Add("{{ .ConfigData.V }}", "{{ unclosed")
	f.Add(`{{ "{{" }}{{ "}}" }}`, "")
	f.Add("{{ .Labels.missing }}", "")
	f.Add("{{ div 1 0 }}", "")
	f.Add("{{ index .ConfigData.V 5 }}", "[1]")
	f.Fuzz(func(t *testing.T, text, value string) {
		if len(text) > 512 || len(value) > 512 || expensive.MatchString(text) || expensive.MatchString(value) {
			t.Skip()
		}
		d := &Data{
			DeploymentTargetName: "app-t", Namespace: "dev-ct-app-t", Environment: "dev", Workspace: "ws", Workload: "app",
			Labels: map[string]string{"workload": "app"}, Manifests: map[string]string{"repo": "r"}, ClusterType: "ct",
			ConfigData: map[string]interface{}{"V": value, "W": "w", "M": map[interface{}]interface{}{"k": []interface{}{1, "y"}}},
		}
		e := NewEngine()
		out, err := e.Execute(text, d)
		if err == nil && strings.Contains(out, "{{") {
			t.Fatalf("output %q still holds template actions", out)
		}
		all, errAll := e.ExecuteAll([]string{text, text}, d)
		if (err == nil) != (errAll == nil) {
			t.Fatalf("Execute and ExecuteAll disagree: %v / %v", err, errAll)
		}
		if errAll == nil {
			want := 2
			if out == "" {
				want = 0
			}
			if len(all) != want {
				t.Fatalf("ExecuteAll kept %d results for %q, want %d", len(all), out, want)
			}
		}
	})
}

// Functions whose result differs between calls: a memoized and a direct execution of them differ anyway.
var differsBetweenCalls = regexp.MustCompile(`uuid|now|date|ago|shuffle|keys|values|encrypt|genPriv`)

// FuzzExecMemo executes an arbitrary manifest through an ExecMemo on several Data values that share a
// frozen config and differ in their names, and compares every result with a direct execution: the same
// bytes, or the same error.
func FuzzExecMemo(f *testing.F) {
	f.Add(`ns: {{ .Namespace }} {{ .Namespace | quote }}`, "dev-a-b", "x")
	f.Add(`{{ if eq .ClusterType "a" }}{{ .Namespace }}{{ end }}`, "a", "x")
	f.Add(`{{ .ConfigData.V }} {{ .Namespace }}`, "dev", "{{ .ClusterType }}")
	f.Add(`{{ range $k, $v := .Labels }}{{ $k }}{{ $.Namespace }}{{ end }}`, "n", "")
	f.Add(`x{{ "{" }}{{ .Namespace }}`, "{y", "")
	f.Add(`{{ quote .Namespace }}`, `a"b`, "")
	// Issue 34: values with actions, memoized with their re-renders (rerenderedEntry).
	f.Add("ns: {{ .Namespace }}\n{{ toYaml .ConfigData }}", "dev-a", "Hello {{ .ClusterType }} / {{ .DeploymentTargetName | quote }}")
	f.Add("{{ .Namespace }} {{ .ConfigData.V }} {{ .Namespace }}", "dev-a", `{{ printf "%s.{{ .ClusterType }}" .Environment -}}`)
	f.Fuzz(func(t *testing.T, text, namespace, value string) {
		if len(text) > 512 || len(value) > 512 || len(namespace) > 64 || expensive.MatchString(text) || expensive.MatchString(value) ||
			differsBetweenCalls.MatchString(text) || differsBetweenCalls.MatchString(value) {
			t.Skip()
		}
		config := map[string]interface{}{"V": value, "W": "w"}
		data := func(ns, ct string) *Data {
			return &Data{
				DeploymentTargetName: "app-t", Namespace: ns, Environment: "dev", Workspace: "ws", Workload: "app",
				Labels: map[string]string{"workload": "app"}, Manifests: map[string]string{"repo": "r"}, ClusterType: ct,
				ConfigData: config, ConfigFrozen: true,
			}
		}
		e, direct, memo := NewEngine(), NewEngine(), NewExecMemo()
		lim := Limits{MaxOutput: 4096}
		for _, names := range [][2]string{{namespace, "a"}, {"dev-b-app-t", "b"}, {namespace + "x", "a"}, {namespace, "c"}, {namespace, "a"}} {
			d := data(names[0], names[1])
			want, wantErr := direct.ExecuteLimited(text, data(names[0], names[1]), lim)
			got, _, gotErr := e.executeMemo(memo, text, d, lim)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Fatalf("%+v: error %v, want %v", d, gotErr, wantErr)
			}
			if got != want {
				t.Fatalf("%+v:\ngot  %q\nwant %q", d, got, want)
			}
		}
	})
}
