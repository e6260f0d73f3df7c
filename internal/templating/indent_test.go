// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"strings"
	"testing"

	"github.com/Masterminds/sprig/v3"
)

// Indent and Nindent replace sprig's indent and nindent, and templates call memoized copies of them
// (memos.indentFunc, memos.nindentFunc); for every input, first call or memo hit, they must return what
// sprig returns.
func TestIndentMatchesSprig(t *testing.T) {
	t.Parallel()
	sprigIndent := sprig.TxtFuncMap()["indent"].(func(int, string) string)
	sprigNindent := sprig.TxtFuncMap()["nindent"].(func(int, string) string)
	long := strings.Repeat("key: value\nlist:\n    - a\n", 40)
	inputs := []string{"", "one line", "a\nb\n", "\n\n", long, long + "\n", long[:indentMemoMin], long[:indentMemoMin-1]}
	// The same content in another string must not depend on which string was seen first.
	inputs = append(inputs, strings.Clone(long))
	m := newMemos()
	for round := 0; round < 2; round++ {
		for _, in := range inputs {
			for _, spaces := range []int{0, 2, 4} {
				if got, want := m.indentFunc(spaces, in), sprigIndent(spaces, in); got != want {
					t.Errorf("round %d: Indent(%d, %.20q...) = %.40q..., want %.40q...", round, spaces, in, got, want)
				}
				if got, want := m.nindentFunc(spaces, in), sprigNindent(spaces, in); got != want {
					t.Errorf("round %d: Nindent(%d, %.20q...) = %.40q..., want %.40q...", round, spaces, in, got, want)
				}
			}
		}
	}
}

// A negative count fails the template, as sprig's does, instead of crashing the provider.
func TestIndentNegativeFailsTheTemplate(t *testing.T) {
	t.Parallel()
	data := &Data{ConfigData: map[string]interface{}{"k": strings.Repeat("v", indentMemoMin)}}
	for _, manifest := range []string{`{{ toYaml .ConfigData | indent -1 }}`, `{{ "x" | nindent -2 }}`} {
		if out, err := NewEngine().Execute(manifest, data); err == nil {
			t.Errorf("%s rendered %q, want an error", manifest, out)
		}
	}
}

func TestIndentOfSharedConfigInTemplate(t *testing.T) {
	t.Parallel()
	config := map[string]interface{}{}
	for i := 0; i < 40; i++ {
		config["KEY_"+strings.Repeat("x", i)] = map[string]interface{}{"nested": i, "list": []interface{}{"a", "b"}}
	}
	const manifest = "data:\n{{ toYaml .ConfigData | indent 2}}"
	want := "data:\n" + sprig.TxtFuncMap()["indent"].(func(int, string) string)(2, ToYAML(config))
	engine := NewEngine()
	for i := 0; i < 3; i++ {
		got, err := engine.Execute(manifest, &Data{ConfigData: config, ConfigFrozen: true})
		if err != nil || got != want {
			t.Fatalf("render %d: %v\n%s\nwant\n%s", i, err, got, want)
		}
	}
}
