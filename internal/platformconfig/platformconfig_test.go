// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

type m = map[interface{}]interface{}
type l = []interface{}

func TestParseValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		raw  string
		want interface{}
	}{
		{"plain scalar stays the original string", "hello", "hello"},
		{"untrimmed scalar keeps its spaces", "  42  ", "  42  "},
		{"top-level y stays a string", "y", "y"},
		{"top-level true stays a string", "true", "true"},
		{"top-level number stays a string", "3", "3"},
		{"null stays a string", "null", "null"},
		{"empty stays empty", "", ""},
		{"url with port is a scalar", "http://host:8080/x", "http://host:8080/x"},
		{"single quotes are stripped", "'quoted value'", "quoted value"},
		{"single quotes with outer spaces", "  'x: y'  ", "x: y"},
		{"single-quoted map text stays a string", "'a: 1'", "a: 1"},
		{"single quotes keep inner spaces", "' spaced '", " spaced "},
		{"double quotes are kept", `"quoted"`, `"quoted"`},
		{"host: port is a map", "host: port", m{"host": "port"}},
		{"nested y and off are booleans (YAML 1.1)", "a: y\nb: off\nc: \"y\"\nd: 3\ne: 1.5\nf: ~", m{"a": true, "b": false, "c": "y", "d": 3, "e": 1.5, "f": nil}},
		{"block list", "- a\n- b\n", l{"a", "b"}},
		{"flow list", "[1, yes, x]", l{1, true, "x"}},
		{"list of maps", "- name: a\n  v: 1\n- name: b\n", l{m{"name": "a", "v": 1}, m{"name": "b"}}},
		{"nested map", "outer:\n  inner:\n    k: v\n", m{"outer": m{"inner": m{"k": "v"}}}},
		{"malformed YAML stays the original", "a: [1, 2", "a: [1, 2"},
		{"duplicate key: yaml.v2 keeps the last", "a: 1\na: 2\n", m{"a": 2}},
		{"tabs stay the original", "a:\n\tb: 1", "a:\n\tb: 1"},
		{"multi-line plain text", "line one\nline two\n", "line one\nline two\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseValue(c.raw)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseValue(%q) = %#v, want %#v", c.raw, got, c.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		existing, incoming interface{}
		want               interface{}
	}{
		{"maps merge recursively", m{"a": m{"x": 1, "y": 2}, "b": 1}, m{"a": m{"y": 3, "z": 4}}, m{"a": m{"x": 1, "y": 3, "z": 4}, "b": 1}},
		{"lists of maps merge by name", l{m{"name": "a", "v": 1}, m{"name": "b", "v": 1}}, l{m{"name": "b", "v": 2}, m{"name": "c"}},
			l{m{"name": "a", "v": 1}, m{"name": "b", "v": 2}, m{"name": "c"}}},
		{"nameless maps match each other", l{m{"v": 1}}, l{m{"w": 2}}, l{m{"v": 1, "w": 2}}},
		{"nameless map does not match a named one", l{m{"name": "a"}}, l{m{"v": 1}}, l{m{"name": "a"}, m{"v": 1}}},
		{"names of different types do not match", l{m{"name": 1}}, l{m{"name": "1"}}, l{m{"name": 1}, m{"name": "1"}}},
		{"every existing element with the name merges", l{m{"name": "a", "x": 1}, m{"name": "a", "y": 1}}, l{m{"name": "a", "z": 1}},
			l{m{"name": "a", "x": 1, "z": 1}, m{"name": "a", "y": 1, "z": 1}}},
		{"nested lists merge inside named elements", l{m{"name": "a", "ports": l{1}}}, l{m{"name": "a", "ports": l{2}}}, l{m{"name": "a", "ports": l{1, 2}}}},
		{"scalar lists append, duplicates kept", l{1, 2}, l{2, 3}, l{1, 2, 2, 3}},
		{"mixed lists", l{m{"name": "a", "x": 1}, "s"}, l{"s", m{"name": "a", "y": 2}}, l{m{"name": "a", "x": 1, "y": 2}, "s", "s"}},
		{"map name values that are maps compare deeply", l{m{"name": m{"k": "v"}, "x": 1}}, l{m{"name": m{"k": "v"}, "y": 2}}, l{m{"name": m{"k": "v"}, "x": 1, "y": 2}}},
		{"map then list replaces", m{"a": 1}, l{1}, l{1}},
		{"list then map replaces", l{1}, m{"a": 1}, m{"a": 1}},
		{"string then map replaces", "text", m{"a": 1}, m{"a": 1}},
		{"map then string replaces", m{"a": 1}, "text", "text"},
		{"strings replace", "old", "new", "new"},
		{"nested type mismatch replaces", m{"a": m{"x": 1}}, m{"a": "flat"}, m{"a": "flat"}},
		{"empty incoming list keeps existing", l{1}, l{}, l{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Merge(c.existing, c.incoming)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Merge = %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	target := Target{
		ClusterTypeName:   "large",
		ClusterTypeLabels: map[string]string{"region": "west-us", "size": "large", "cluster-type": "alias"},
		DeploymentTarget:  "app-func",
		TargetLabels:      map[string]string{"purpose": "functional-test", "workload": "app", "workspace": "kaizen", "region": "east-us"},
	}
	cases := []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"no labels", nil, true},
		{"cluster-type compares with the name", map[string]string{"cluster-type": "large"}, true},
		{"cluster-type does not read the cluster type's label", map[string]string{"cluster-type": "alias"}, false},
		{"deployment-target", map[string]string{"deployment-target": "app-func"}, true},
		{"deployment-target mismatch", map[string]string{"deployment-target": "app"}, false},
		{"workload", map[string]string{"workload": "app"}, true},
		{"workload mismatch", map[string]string{"workload": "other"}, false},
		{"cluster type label", map[string]string{"size": "large"}, true},
		{"target label", map[string]string{"purpose": "functional-test"}, true},
		{"key on both: cluster type's value", map[string]string{"region": "west-us"}, true},
		{"key on both: target's value", map[string]string{"region": "east-us"}, true},
		{"key on both: neither value", map[string]string{"region": "north"}, false},
		{"workspace is an ordinary key", map[string]string{"workspace": "kaizen"}, true},
		{"workspace mismatch", map[string]string{"workspace": "other"}, false},
		{"missing key reads empty", map[string]string{"zone": ""}, true},
		{"missing key does not match a value", map[string]string{"zone": "a"}, false},
		{"empty value does not match when both have the key", map[string]string{"region": ""}, false},
		{"empty value matches when one side lacks the key", map[string]string{"size": ""}, true},
		{"platform-config is ignored", map[string]string{"platform-config": "false"}, true},
		{"flux name label is ignored", map[string]string{"kustomize.toolkit.fluxcd.io/name": "x"}, true},
		{"flux namespace label is ignored", map[string]string{"kustomize.toolkit.fluxcd.io/namespace": "x"}, true},
		{"all must hold", map[string]string{"cluster-type": "large", "purpose": "functional-test", "size": "small"}, false},
		{"all hold", map[string]string{"cluster-type": "large", "purpose": "functional-test", "size": "large", "workload": "app"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := target.Matches(c.labels); got != c.want {
				t.Errorf("Matches(%v) = %v, want %v", c.labels, got, c.want)
			}
		})
	}
}

func configMaps(t *testing.T, docs ...string) []*model.ConfigMap {
	t.Helper()
	set, diags := model.Parse([]string{strings.Join(docs, "---\n")})
	if diags.HasError() {
		t.Fatal(diags)
	}
	return set.ConfigMaps
}

func cm(name string, labels map[string]string, data map[string]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")
	if len(labels) > 0 {
		b.WriteString("  labels:\n")
		for k, v := range labels {
			b.WriteString("    " + k + ": \"" + v + "\"\n")
		}
	}
	b.WriteString("data:\n")
	for k, v := range data {
		b.WriteString("  " + k + ": |-\n")
		for _, ln := range strings.Split(v, "\n") {
			b.WriteString("    " + ln + "\n")
		}
	}
	return b.String()
}

var pc = map[string]string{"platform-config": "true"}

func TestComposeOrderAndMatching(t *testing.T) {
	t.Parallel()
	target := Target{ClusterTypeName: "large", ClusterTypeLabels: map[string]string{"region": "west"}, DeploymentTarget: "app-t", TargetLabels: map[string]string{"workload": "app", "workspace": "ws"}}
	maps := configMaps(t,
		cm("b", pc, map[string]string{"K": "from-b", "LIST": "- b"}),
		cm("a", pc, map[string]string{"K": "from-a", "LIST": "- a", "ONLY_A": "1"}),
		cm("c-unlabelled", nil, map[string]string{"K": "from-c"}),
		cm("d-disabled", map[string]string{"platform-config": "false"}, map[string]string{"K": "from-d"}),
		cm("e-other-cluster", map[string]string{"platform-config": "true", "cluster-type": "small"}, map[string]string{"K": "from-e"}),
		cm("f-this-cluster", map[string]string{"platform-config": "true", "cluster-type": "large", "region": "west"}, map[string]string{"F": "f"}),
		// Azure maps come after every platform map, even though "0" sorts first, and need no platform-config label.
		cm("azure-app-config-0", nil, map[string]string{"AZ": "plain", "cluster-type.large.AZ": "large", "cluster-type.small.AZ": "small", "cluster-type.large.region.west.AZ": "large-west", "LIST": "- azure"}),
		// Upstream ignores an azure map's own labels: only the labels in its keys decide, so FOO and BAR reach
		// every target although the map is labelled for another region.
		cm("azure-app-config-1", map[string]string{"region": "west-us"}, map[string]string{"FOO": "foo", "BAR": "bar", "cluster-type.small.SMALL_ONLY": "s"}),
	)
	s := NewSources(maps)
	got := s.Compose(target)
	want := map[string]interface{}{
		"K":      "from-b",
		"LIST":   l{"a", "b", "azure"},
		"ONLY_A": "1",
		"F":      "f",
		"AZ":     "large-west",
		"FOO":    "foo",
		"BAR":    "bar",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compose =\n%#v\nwant\n%#v", got, want)
	}
	// Merging works in place, so each call must parse afresh and give the same result.
	again := s.Compose(target)
	if !reflect.DeepEqual(again, want) {
		t.Errorf("second Compose differs: %#v", again)
	}
	small := s.Compose(Target{ClusterTypeName: "small", TargetLabels: map[string]string{"workload": "app"}})
	if small["AZ"] != "small" || small["K"] != "from-e" || small["FOO"] != "foo" || small["BAR"] != "bar" || small["SMALL_ONLY"] != "s" {
		t.Errorf("small cluster type: %#v", small)
	}
}

func TestComposeAzureKeysShortestFirst(t *testing.T) {
	t.Parallel()
	// Labelled keys are longer than the plain key, so the most specific key is merged last and wins.
	maps := configMaps(t, cm("azure-app-config", nil, map[string]string{
		"deployment-target.app-t.workload.app.SIZE": "most-specific",
		"SIZE":                   "default",
		"workload.app.SIZE":      "workload",
		"workload.other.SIZE":    "other-workload",
		"workspace.ws.NESTED":    "b: 2",
		"NESTED":                 "a: 1\nb: 1",
		"cluster-type.large.ENV": "'quoted: text'",
	}))
	got := NewSources(maps).Compose(Target{ClusterTypeName: "large", DeploymentTarget: "app-t", TargetLabels: map[string]string{"workload": "app", "workspace": "ws"}})
	want := map[string]interface{}{"SIZE": "most-specific", "NESTED": m{"a": 1, "b": 2}, "ENV": "quoted: text"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compose = %#v, want %#v", got, want)
	}
	got = NewSources(maps).Compose(Target{ClusterTypeName: "small", DeploymentTarget: "x-t", TargetLabels: map[string]string{"workload": "x"}})
	want = map[string]interface{}{"SIZE": "default", "NESTED": m{"a": 1, "b": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compose for unrelated target = %#v, want %#v", got, want)
	}
}

// An azure-app-config* map that is also labelled platform-config: "true" is read twice: in the first pass
// by its own labels with its keys taken literally, in the second key by key, ignoring its own labels.
func TestComposeAzureMapAlsoLabelledPlatformConfig(t *testing.T) {
	t.Parallel()
	maps := configMaps(t, cm("azure-app-config-both", map[string]string{"platform-config": "true", "cluster-type": "small"},
		map[string]string{"cluster-type.large.X": "keyed", "LIST": "- item"}))
	s := NewSources(maps)
	large := s.Compose(Target{ClusterTypeName: "large", TargetLabels: map[string]string{}})
	if want := map[string]interface{}{"X": "keyed", "LIST": l{"item"}}; !reflect.DeepEqual(large, want) {
		t.Errorf("large (second pass only) = %#v, want %#v", large, want)
	}
	small := s.Compose(Target{ClusterTypeName: "small", TargetLabels: map[string]string{}})
	// The first pass keeps the literal key; the second appends LIST to itself.
	if want := map[string]interface{}{"cluster-type.large.X": "keyed", "LIST": l{"item", "item"}}; !reflect.DeepEqual(small, want) {
		t.Errorf("small (both passes) = %#v, want %#v", small, want)
	}
}

// Upstream leaves equal-length keys in an unstable order; here they merge in name order, so the later
// name wins, the same on every run (a documented deviation).
func TestComposeAzureEqualLengthKeysInNameOrder(t *testing.T) {
	t.Parallel()
	maps := configMaps(t, cm("azure-app-config", nil, map[string]string{"zone.east.SIZE": "zone", "tier.gold.SIZE": "tier"}))
	target := Target{ClusterTypeName: "large", ClusterTypeLabels: map[string]string{"zone": "east", "tier": "gold"}, TargetLabels: map[string]string{}}
	for i := 0; i < 20; i++ {
		if got := NewSources(maps).Compose(target)["SIZE"]; got != "zone" {
			t.Fatalf("SIZE = %v, want the later name's value \"zone\"", got)
		}
	}
}

func TestSchemaValidation(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"REPLICAS":{"type":"integer","minimum":1},"RATIO":{"type":"number"},"NAME":{"type":"string"},"NESTED":{"type":"object","properties":{"n":{"type":"integer"}}}},"required":["REPLICAS"]}`
	s, err := CompileSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		data  map[string]interface{}
		field string // "" means valid
	}{
		{"numeric string is an integer", map[string]interface{}{"REPLICAS": "3"}, ""},
		{"float string is a number", map[string]interface{}{"REPLICAS": "3", "RATIO": "0.5"}, ""},
		{"float string is not an integer", map[string]interface{}{"REPLICAS": "3.5"}, "/REPLICAS"},
		{"minimum applies to the number", map[string]interface{}{"REPLICAS": "0"}, "/REPLICAS"},
		{"non-numeric string", map[string]interface{}{"REPLICAS": "three"}, "/REPLICAS"},
		{"untrimmed numeric string stays a string", map[string]interface{}{"REPLICAS": " 3"}, "/REPLICAS"},
		{"numeric string is no longer a string", map[string]interface{}{"REPLICAS": "1", "NAME": "42"}, "/NAME"},
		{"missing required", map[string]interface{}{"RATIO": "1"}, "/"},
		{"nested strings are not converted", map[string]interface{}{"REPLICAS": "1", "NESTED": m{"n": "5"}}, "/NESTED/n"},
		{"nested numbers are numbers", map[string]interface{}{"REPLICAS": "1", "NESTED": m{"n": 5}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Validate(s, c.data)
			switch {
			case c.field == "" && v != nil:
				t.Errorf("unexpected violation %+v", v)
			case c.field != "" && v == nil:
				t.Errorf("no violation, want one at %s", c.field)
			case c.field != "" && (v.Field != c.field || v.Message == ""):
				t.Errorf("violation %+v, want field %s", v, c.field)
			}
		})
	}
	// Validation must not change the data it checks.
	data := map[string]interface{}{"REPLICAS": "3"}
	Validate(s, data)
	if data["REPLICAS"] != "3" {
		t.Errorf("Validate changed the data: %#v", data)
	}
}

func TestCompileSchema(t *testing.T) {
	t.Parallel()
	if _, err := CompileSchema("type: object\nproperties:\n  A: {type: string}\n"); err != nil {
		t.Errorf("YAML schema: %v", err)
	}
	for _, bad := range []string{`{"type": 5}`, `{"type": "object"`, "a: [", `{"$ref": "#/definitions/missing"}`} {
		if _, err := CompileSchema(bad); err == nil {
			t.Errorf("schema %q compiled, want an error", bad)
		}
	}
	// Draft-07 ignores keywords of later drafts.
	s, err := CompileSchema(`{"dependentRequired": {"a": ["b"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if v := Validate(s, map[string]interface{}{"a": "x"}); v != nil {
		t.Errorf("draft-07 must ignore dependentRequired: %+v", v)
	}
	// Draft-07 keywords work.
	s, err = CompileSchema(`{"dependencies": {"a": ["b"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if v := Validate(s, map[string]interface{}{"a": "x"}); v == nil {
		t.Errorf("draft-07 dependencies must apply")
	}
	c := NewSchemaCache()
	s1, err1 := c.Compile(context.Background(), `{"type":"object"}`, Limits{})
	s2, err2 := c.Compile(context.Background(), `{"type":"object"}`, Limits{})
	if err1 != nil || err2 != nil || s1 != s2 {
		t.Errorf("cache must return the same compiled schema")
	}
	if _, err := c.Compile(context.Background(), `{"type": 5}`, Limits{}); err == nil {
		t.Errorf("cache must return compile errors")
	}
}

// Upstream reads a ConfigSchema's text with a JSON decoder, which skips leading whitespace; its own
// validator test schema starts with a newline and indents with tabs, which YAML cannot read.
func TestCompileSchemaJSONWithLeadingWhitespaceAndTabs(t *testing.T) {
	t.Parallel()
	text := "\n\t{\n\t\t\"$schema\": \"http://json-schema.org/draft-07/schema#\",\n\t\t\"type\": \"object\",\n" +
		"\t\t\"properties\": {\"REPLICAS\": {\"type\": \"integer\",\n\t\t\t\"maximum\": 9}},\n\t\t\"required\": [\"REPLICAS\"]\n\t}\n\n"
	s, err := CompileSchema(text)
	if err != nil {
		t.Fatalf("CompileSchema: %v", err)
	}
	if v := Validate(s, map[string]interface{}{"REPLICAS": "3"}); v != nil {
		t.Errorf("valid data: %+v", v)
	}
	if v := Validate(s, map[string]interface{}{"REPLICAS": "10"}); v == nil || v.Field != "/REPLICAS" {
		t.Errorf("the schema must apply: %+v", v)
	}
	// Text that is neither says why for both readings.
	_, err = CompileSchema("\t{\"type\": ")
	if err == nil || !strings.Contains(err.Error(), "neither JSON") || !strings.Contains(err.Error(), "YAML") {
		t.Errorf("error = %v", err)
	}
}

func TestParseValueHostileInput(t *testing.T) {
	t.Parallel()
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
	// yaml.v2 refuses excessive aliasing, so the value stays text.
	if got := ParseValue(bomb); got != bomb {
		t.Errorf("billion laughs parsed to %T", got)
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if _, ok := ParseValue(deep).([]interface{}); !ok {
		t.Errorf("deep list did not parse")
	}
}
