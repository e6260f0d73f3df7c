// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"strings"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"
)

// FuzzParseValueAndMerge parses two ConfigMap values, merges them and marshals the result, as a render does.
// Nothing may panic, ParseValue keeps the rules of DESIGN §3, and a merge keeps every key of two maps.
func FuzzParseValueAndMerge(f *testing.F) {
	f.Add("a: y\nb: off", "a: n\nc: 1")
	f.Add("- name: a\n  v: 1\n- x", "- name: a\n  w: 2\n- {v: 3}")
	f.Add("'quoted'", "host: port")
	f.Add("[1, 2]", "{a: 1}")
	f.Add("a: &x [1, 2]\nb: *x", "a: [3]")
	f.Add("- {name: {k: v}}", "- {name: {k: v}, z: 1}")
	f.Add("- {name: [1]}", "- {name: [1], z: 1}")
	f.Add("  42  ", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		va, vb := ParseValue(a), ParseValue(b)
		for raw, v := range map[string]interface{}{a: va, b: vb} {
			switch pv := v.(type) {
			case string:
				trimmed := strings.TrimSpace(raw)
				quoted := strings.HasPrefix(trimmed, "'") && strings.HasSuffix(trimmed, "'")
				if quoted && pv != strings.Trim(trimmed, "'") {
					t.Fatalf("ParseValue(%q) = %q, want the quotes stripped", raw, pv)
				}
				if !quoted && pv != raw {
					t.Fatalf("ParseValue(%q) = %q, want the original text", raw, pv)
				}
			case []interface{}, map[interface{}]interface{}:
			default:
				t.Fatalf("ParseValue(%q) = %#v (%T), want a string, list or map", raw, v, v)
			}
		}
		var keysA, keysB []interface{}
		if ma, ok := va.(map[interface{}]interface{}); ok {
			for k := range ma {
				keysA = append(keysA, k)
			}
		}
		mb, bIsMap := vb.(map[interface{}]interface{})
		for k := range mb {
			keysB = append(keysB, k)
		}
		merged := Merge(va, vb)
		if mm, ok := merged.(map[interface{}]interface{}); ok && keysA != nil && bIsMap {
			for _, k := range append(keysA, keysB...) {
				if !hashable(k) {
					continue
				}
				if _, ok := mm[k]; !ok {
					t.Fatalf("merged map lost key %#v", k)
				}
			}
		}
		// The merged value is what templates marshal with toYaml; it must not panic.
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("yaml.v3 cannot marshal the merged value %#v: %v", merged, r)
				}
			}()
			_, _ = yamlv3.Marshal(merged)
		}()
	})
}

func hashable(k interface{}) bool {
	switch k.(type) {
	case []interface{}, map[interface{}]interface{}:
		return false
	}
	return true
}
