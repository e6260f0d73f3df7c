// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"strings"
	"testing"
)

func TestMemoizedToYAMLEqualsMarshalAndNeverConfusesTypes(t *testing.T) {
	t.Parallel()
	values := []interface{}{
		map[string]interface{}{"A": "1"},
		map[string]interface{}{"A": 1},
		map[string]interface{}{"A": int64(1)},
		map[string]interface{}{"A": "true"},
		map[string]interface{}{"A": true},
		map[string]interface{}{"A": nil},
		map[string]interface{}{"A": []interface{}{"x", "y"}},
		map[string]interface{}{"A": "x", "B": "y"},
		map[string]interface{}{"A": map[interface{}]interface{}{"k": "v"}},
		map[string]interface{}{"A:1": "x"},
		map[string]interface{}{"A": "1:x"},
		map[interface{}]interface{}{1: "x"},
		map[interface{}]interface{}{"1": "x"},
		[]string{"a", "b"},
		map[string]string{"a": "b"},
		1.5,
	}
	// Twice: the second round is served from the memo and must still equal a fresh marshal.
	m := newMemos()
	for round := 0; round < 2; round++ {
		for i, v := range values {
			if got, want := m.toYAML(v), marshalYAML(v); got != want {
				t.Errorf("round %d value %d: ToYAML = %q, marshal = %q", round, i, got, want)
			}
		}
	}
}

func TestCanonicalEncodingDistinguishesLookalikes(t *testing.T) {
	t.Parallel()
	pairs := [][2]interface{}{
		{"1", 1},
		{map[string]interface{}{"a": "b"}, map[string]string{"a": "b"}},
		{[]interface{}{"ab"}, []interface{}{"a", "b"}},
		{map[string]interface{}{"a": "bc"}, map[string]interface{}{"ab": "c"}},
	}
	for _, p := range pairs {
		a, okA := appendCanonical(nil, p[0])
		b, okB := appendCanonical(nil, p[1])
		if !okA || !okB {
			t.Fatalf("expected both %#v and %#v to be encodable", p[0], p[1])
		}
		if string(a) == string(b) {
			t.Errorf("%#v and %#v share the key %q", p[0], p[1], a)
		}
	}
	if _, ok := appendCanonical(nil, map[interface{}]interface{}{1: "x"}); ok {
		t.Error("a map with non-string keys must not be memoized")
	}
}

func TestEnvironmentAndNetworkFunctionsAreRefused(t *testing.T) {
	t.Setenv("KALYPSO_TEST_SECRET", "s3cr3t-value")
	e := NewEngine()
	for _, tmpl := range []string{
		`{{ env "KALYPSO_TEST_SECRET" }}`,
		`{{ expandenv "$KALYPSO_TEST_SECRET" }}`,
		`{{ getHostByName "localhost" }}`,
		// Re-rendering must refuse it too: a workload's manifests path is attacker-controlled text.
		`{{ .Manifests.path }}`,
	} {
		out, err := e.Execute(tmpl, &Data{Manifests: map[string]string{"path": `{{ env "KALYPSO_TEST_SECRET" }}`}})
		if err == nil || !strings.Contains(err.Error(), "is disabled in Kalypso templates") {
			t.Errorf("%s: err = %v, want the function refused", tmpl, err)
		}
		if strings.Contains(out, "s3cr3t-value") || (err != nil && strings.Contains(err.Error(), "s3cr3t-value")) {
			t.Errorf("%s: secret leaked: out=%q err=%v", tmpl, out, err)
		}
	}
}
