// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mitchellh/hashstructure"
)

type m = map[interface{}]interface{}

func TestToYAML(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   interface{}
		want string
	}{
		{"natural key order, quoting, 4-space indent", map[string]interface{}{
			"A10": 1, "A9": 2, "b": "true", "c": "y", "d": "1", "e": map[string]interface{}{"x": 1}, "f": []interface{}{"a", "b"},
		}, "A9: 2\nA10: 1\nb: \"true\"\nc: \"y\"\nd: \"1\"\ne:\n    x: 1\nf:\n    - a\n    - b"},
		{"yaml.v2 maps with interface keys", m{"z": m{"k2": "v", "k10": "w"}, "a": []interface{}{m{"name": "web"}}},
			"a:\n    - name: web\nz:\n    k2: v\n    k10: w"},
		{"strings that look like other types are quoted", []interface{}{"on", "off", "no", "n", "null", "~", "1.5", "0x10", ""},
			"- \"on\"\n- \"off\"\n- \"no\"\n- \"n\"\n- \"null\"\n- \"~\"\n- \"1.5\"\n- \"0x10\"\n- \"\""},
		{"plain strings are not quoted", "hello world", "hello world"},
		{"multi-line strings use a literal block", map[string]interface{}{"s": "a\nb"}, "s: |-\n    a\n    b"},
		{"booleans and numbers", []interface{}{true, 3, 1.5}, "- true\n- 3\n- 1.5"},
		{"nil", nil, "null"},
		{"empty map", map[string]interface{}{}, "{}"},
		{"empty list", []interface{}{}, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ToYAML(c.in); got != c.want {
				t.Errorf("ToYAML =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// The expected texts follow upstream's stringify (scheduler/templater.go at 1f5fef0): only a
// map[string]interface{} is stringified, only its map[string]interface{} and []interface{} values are
// replaced, and their yaml.v3 text keeps its final newline, so toYaml prints a `|` block, not `|-`.
func TestStringify(t *testing.T) {
	t.Parallel()
	type sm = map[string]interface{}
	cases := []struct {
		name string
		in   interface{}
		want string
	}{
		{"list values become untrimmed YAML text", sm{"list": []interface{}{"a", "b"}, "num": 1, "s": "x"},
			"list: |\n    - a\n    - b\nnum: 1\ns: x"},
		{"nested string-keyed maps become YAML text too", sm{"m": sm{"k": "v"}, "l": []interface{}{m{"name": "a"}}},
			"l: |\n    - name: a\nm: |\n    k: v"},
		{"a yaml.v2 map value (a parsed ConfigMap value) stays a map", sm{"db": m{"host": "h", "port": 5432}},
			"db:\n    host: h\n    port: 5432"},
		{"a []string value is not a []interface{}", sm{"l": []string{"a"}}, "l:\n    - a"},
		{"a top-level yaml.v2 map is just toYaml", m{"ports": []interface{}{80, 443}}, "ports:\n    - 80\n    - 443"},
		{"map[string]string (.Labels) is just toYaml", map[string]string{"a": "true"}, "a: \"true\""},
		{"non-map is toYaml", []interface{}{"a"}, "- a"},
		{"scalar is toYaml", "y", "\"y\""},
		{"nil is toYaml", nil, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Stringify(c.in); got != c.want {
				t.Errorf("Stringify =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// A config list rendered through stringify keeps the byte that `|-` would drop.
func TestStringifyInTemplate(t *testing.T) {
	t.Parallel()
	d := testData()
	d.ConfigData = map[string]interface{}{"HOSTS": []interface{}{"a", "b"}, "NAME": "x"}
	out, err := NewEngine().Execute("data:\n  {{- stringify .ConfigData | nindent 2 }}\n", d)
	if err != nil {
		t.Fatal(err)
	}
	if want := "data:\n  HOSTS: |\n      - a\n      - b\n  NAME: x\n"; out != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	a := map[string]interface{}{"x": 1, "y": []interface{}{"a", "b"}}
	b := map[string]interface{}{"y": []interface{}{"a", "b"}, "x": 1}
	ha, err := Hash(a)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hashstructure.Hash(a, nil)
	if ha != want {
		t.Errorf("Hash = %d, want hashstructure v1 %d", ha, want)
	}
	if hb, _ := Hash(b); hb != ha {
		t.Errorf("hash depends on map order")
	}
	if hc, _ := Hash(map[string]interface{}{"x": 2, "y": []interface{}{"a", "b"}}); hc == ha {
		t.Errorf("hash does not change with content")
	}
	out, err := NewEngine().Execute("{{ hash .ConfigData }}", &Data{ConfigData: a})
	if err != nil {
		t.Fatal(err)
	}
	if out != strconv.FormatUint(want, 10) {
		t.Errorf("template hash = %q, want decimal %d", out, want)
	}
}

func TestUnquote(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`"abc"`:      "abc",
		`'abc'`:      "abc",
		`  "abc"  `:  "abc",
		`"'abc'"`:    "abc",
		`'"abc"'`:    `"abc"`,
		`""abc""`:    "abc",
		`abc`:        "abc",
		`" spaced "`: " spaced ",
		"\t'x'\n":    "x",
		`"a"b"`:      `a"b`,
		``:           "",
		`"`:          "",
	}
	for in, want := range cases {
		if got := Unquote(in); got != want {
			t.Errorf("Unquote(%q) = %q, want %q", in, got, want)
		}
	}
	// Upstream's unquote of anything but a string is "", never an error.
	for _, in := range []interface{}{42, 1.5, true, nil, map[string]interface{}{"a": "b"}, []interface{}{"'x'"}} {
		if got := Unquote(in); got != "" {
			t.Errorf("Unquote(%#v) = %q, want \"\"", in, got)
		}
	}
	e := NewEngine()
	for _, text := range []string{"{{ unquote 42 }}", "{{ unquote .ConfigData.LIST }}", "{{ unquote .ConfigData.missing }}", "{{ unquote nil }}"} {
		got, err := e.Execute("["+text+"]", testData())
		if err != nil || got != "[]" {
			t.Errorf("%s = %q, %v; want \"[]\" and no error", text, got, err)
		}
	}
}

func testData() *Data {
	return &Data{
		DeploymentTargetName: "app-func",
		Namespace:            "dev-large-app-func",
		Environment:          "dev",
		Workspace:            "kaizen",
		Workload:             "app",
		Labels:               map[string]string{"purpose": "test", "workload": "app", "workspace": "kaizen"},
		Manifests:            map[string]string{"repo": "https://r", "branch": "dev", "path": "./p"},
		ClusterType:          "large",
		ConfigData: map[string]interface{}{
			"GREETING": "hello {{ .Workload }}",
			"CHAIN":    "{{ .ConfigData.GREETING }} in {{ .Environment }}",
			"SELF":     "{{ .ConfigData.SELF }}",
			"BROKEN":   "{{ unclosed",
			"PLAIN":    "plain",
			"LIST":     []interface{}{"a", "b"},
		},
	}
}

func TestExecute(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, want string
	}{
		{"fields", "{{ .DeploymentTargetName }}|{{ .Namespace }}|{{ .Environment }}|{{ .Workspace }}|{{ .Workload }}|{{ .ClusterType }}|{{ .Manifests.repo }}|{{ .Labels.purpose }}",
			"app-func|dev-large-app-func|dev|kaizen|app|large|https://r|test"},
		{"missing label prints <no value>", "{{ .Labels.missing }}", "<no value>"},
		{"missing manifests key prints <no value>", "{{ .Manifests.missing }}", "<no value>"},
		{"missing config key prints <no value>", "{{ .ConfigData.missing }}", "<no value>"},
		{"config value with actions is rendered again", "{{ .ConfigData.GREETING }}", "hello app"},
		{"chained re-render", "{{ .ConfigData.CHAIN }}", "hello app in dev"},
		{"sprig functions", `{{ "abc" | upper }} {{ list 1 2 | join "," }} {{ .Workload | quote }}`, `ABC 1,2 "app"`},
		{"toYaml in a template", "{{ toYaml .ConfigData.LIST }}", "- a\n- b"},
		{"unquote in a template", `{{ unquote "'x'" }}`, "x"},
		{"whitespace is kept", "  {{ .Workload }}\n\n", "  app\n\n"},
		{"trim markers", "a\n{{- .Workload -}}\nb", "aappb"},
		{"no actions", "kind: Namespace\n", "kind: Namespace\n"},
	}
	e := NewEngine()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := e.Execute(c.text, testData())
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got != c.want {
				t.Errorf("Execute(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestExecuteErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, wantErr string
	}{
		{"parse error", "{{ .Workload ", "template does not parse"},
		{"unknown function", "{{ nope }}", "template does not parse"},
		{"unknown field", "{{ .Nope }}", "template execution failed"},
		{"fail", `{{ fail "boom" }}`, "boom"},
		{"integer division by zero does not panic", "{{ div 1 0 }}", "template execution failed"},
		{"value that renders to itself hits the depth limit", "{{ .ConfigData.SELF }}", "after 10 renders"},
		{"re-rendered output that does not parse", "{{ .ConfigData.BROKEN }}", "re-rendering output"},
		{"literal braces are rendered again", `{{ "{{" }}`, "re-rendering output"},
	}
	e := NewEngine()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := e.Execute(c.text, testData())
			if err == nil {
				t.Fatalf("no error, output %q", got)
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("error %q does not contain %q", err, c.wantErr)
			}
		})
	}
	// Cached parse errors are returned again.
	if _, err := e.Execute("{{ .Workload ", testData()); err == nil {
		t.Errorf("cached parse error lost")
	}
}

func TestDepthLimitCountsRenders(t *testing.T) {
	t.Parallel()
	// A chain of n values that each render to the next needs n+1 renders.
	chain := func(n int) *Data {
		d := testData()
		d.ConfigData = map[string]interface{}{}
		for i := 0; i < n; i++ {
			d.ConfigData["V"+strconv.Itoa(i)] = "{{ .ConfigData.V" + strconv.Itoa(i+1) + " }}"
		}
		d.ConfigData["V"+strconv.Itoa(n)] = "end"
		return d
	}
	e := NewEngine()
	if got, err := e.Execute("{{ .ConfigData.V0 }}", chain(MaxRenderDepth-2)); err != nil || got != "end" {
		t.Errorf("chain within the limit: %q %v", got, err)
	}
	if _, err := e.Execute("{{ .ConfigData.V0 }}", chain(MaxRenderDepth+5)); err == nil {
		t.Errorf("chain beyond the limit must fail")
	}
}

func TestExecuteAll(t *testing.T) {
	t.Parallel()
	e := NewEngine()
	got, err := e.ExecuteAll([]string{"a", "{{ if false }}x{{ end }}", "  \n", "", "{{ .Workload }}"}, testData())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "  \n", "app"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExecuteAll = %q, want %q", got, want)
	}
	if got, err := e.ExecuteAll(nil, testData()); err != nil || len(got) != 0 {
		t.Errorf("no manifests: %q %v", got, err)
	}
	_, err = e.ExecuteAll([]string{"ok", "{{ fail \"second\" }}"}, testData())
	if err == nil || !strings.HasPrefix(err.Error(), "manifests[1]: ") || !strings.Contains(err.Error(), "second") {
		t.Errorf("error must name the manifest: %v", err)
	}
}

func TestEngineConcurrentUse(t *testing.T) {
	t.Parallel()
	e := NewEngine()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			d := testData()
			d.Workload = "w" + strconv.Itoa(i)
			for j := 0; j < 20; j++ {
				got, err := e.Execute("{{ .ConfigData.GREETING }}", d)
				if err != nil || got != "hello "+d.Workload {
					errs <- err
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent execute failed: %v", err)
	}
}

// Execute starts each output buffer at the size of the manifest's previous output. The output must not
// depend on that: longer, shorter and empty outputs after each other, alone or concurrently, render
// exactly as on a fresh engine.
func TestExecuteOutputDoesNotDependOnEarlierOutputSizes(t *testing.T) {
	t.Parallel()
	const manifest = "name: {{ .DeploymentTargetName }}\n{{ range $k, $v := .Labels }}{{ $k }}: {{ $v }}\n{{ end }}"
	data := func(i int) *Data {
		labels := map[string]string{}
		for j := 0; j < (i*7)%40; j++ {
			labels["k"+strconv.Itoa(j)] = strings.Repeat("v", (i*13+j)%300)
		}
		return &Data{DeploymentTargetName: strings.Repeat("t", i%50), Labels: labels}
	}
	want := make([]string, 60)
	for i := range want {
		out, err := NewEngine().Execute(manifest, data(i))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = out
	}
	shared := NewEngine()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range want {
				if got, err := shared.Execute(manifest, data(i)); err != nil || got != want[i] {
					t.Errorf("execution %d: %q, %v; want %q", i, got, err, want[i])
				}
			}
		}()
	}
	wg.Wait()
}

func TestNonDeterministicCall(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"{{ uuidv4 }}": "uuidv4", "{{ now | date \"2006\" }}": "now", "{{ if .X }}{{ randAlphaNum 5 }}{{ end }}": "randAlphaNum",
		"{{ define \"t\" }}{{ genPrivateKey \"rsa\" }}{{ end }}x": "genPrivateKey", "{{ .Namespace | upper }}": "", "{{ toYaml .ConfigData }}": "",
		"{{ date \"2006\" .When }}": "", "{{ broken": "", "plain text": "",
	} {
		if got := NonDeterministicCall(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
