// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"reflect"
	"testing"
	"text/template"
)

func TestMayModify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want bool
	}{
		{`plain text`, false},
		{`{{ .ConfigData.region }} {{ toYaml .ConfigData | indent 2 }}`, false},
		{`{{ range $k, $v := .ConfigData }}{{ $k }}={{ $v }}{{ else }}none{{ end }}`, false},
		{`{{ $c := dict "a" 1 }}{{ pick $c "a" | toYaml }}{{ append (list 1) 2 }}`, false},
		{`{{ set .ConfigData "region" "east" }}`, true},
		{`{{ $_ := unset .ConfigData "region" }}`, true},
		{`{{ if .ConfigData }}{{ else }}{{ merge .ConfigData (dict) }}{{ end }}`, true},
		{`{{ with .ConfigData }}{{ range . }}{{ (mergeOverwrite (dict) .) }}{{ end }}{{ end }}`, true},
		{`{{ define "inner" }}{{ mustMerge .ConfigData (dict) }}{{ end }}{{ template "inner" . }}`, true},
		{`{{ (set (dict) "a" 1).a }}`, true},
		{`{{ "set" }} {{/* set */}} {{ .ConfigData.set }}`, false},
	}
	for _, c := range cases {
		tmpl, err := template.New("t").Funcs(funcMap).Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := mayModify(tmpl); got != c.want {
			t.Errorf("mayModify(%s) = %v, want %v", c.text, got, c.want)
		}
	}
}

// The renderer hands one composed config to every assignment that matches the same sources. A template
// that modifies it must work on a copy, or the next assignment would render someone else's change.
func TestExecuteNeverModifiesSharedConfig(t *testing.T) {
	t.Parallel()
	shared := map[string]interface{}{"region": "west", "nested": map[string]interface{}{"k": "v"}}
	want := map[string]interface{}{"region": "west", "nested": map[string]interface{}{"k": "v"}}
	e := NewEngine()

	first := &Data{ConfigData: shared}
	out, err := e.ExecuteAll([]string{
		`{{ $_ := set .ConfigData "region" "east" }}{{ $_ := set .ConfigData.nested "k" "changed" }}{{ .ConfigData.region }}`,
		// A later manifest of the same assignment sees the assignment's own change.
		`{{ .ConfigData.region }}/{{ .ConfigData.nested.k }}`,
	}, first)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, []string{"east", "east/changed"}) {
		t.Errorf("rendered %q", out)
	}
	if !reflect.DeepEqual(shared, want) {
		t.Errorf("the shared config changed: %#v", shared)
	}

	// Re-rendered output is checked too: here `set` only appears after the first render.
	cmdOnly := map[string]interface{}{"cmd": `{{ "{{" }} $_ := unset .ConfigData "cmd" }}{{ "{{" }} len .ConfigData }}`}
	if out, err := e.Execute(`{{ .ConfigData.cmd }}`, &Data{ConfigData: cmdOnly}); err != nil || out != "0" {
		t.Fatalf("re-render with unset: %q, %v", out, err)
	}
	if _, ok := cmdOnly["cmd"]; !ok {
		t.Errorf("a re-rendered unset removed the key from the caller's map")
	}

	// A template that only reads shares the map: no copy is made.
	reader := &Data{ConfigData: shared}
	if _, err := e.Execute(`{{ toYaml .ConfigData }}`, reader); err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(reader.ConfigData).Pointer() != reflect.ValueOf(shared).Pointer() {
		t.Errorf("a read-only template copied the config")
	}
}
