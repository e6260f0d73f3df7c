// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"sort"
	"strconv"
	"sync"
	"text/template"
	"unsafe"
)

// memos are the caches behind one Engine's template functions: toYaml output by content (yamlMemo),
// indent and nindent output by their input's identity (indentMemo, indent.go), and the composed configs
// that nobody modifies (frozenConfigs, frozen.go). An Engine owns its memos (NewEngine builds them), so
// two engines share nothing and a test gets empty ones; each is emptied when it is full.
type memos struct {
	yaml   yamlMemo
	indent indentMemo
	frozen frozenConfigs
}

func newMemos() *memos {
	return &memos{
		yaml:   yamlMemo{entries: map[string]string{}},
		indent: indentMemo{entries: map[indentKey]indentEntry{}},
		frozen: frozenConfigs{entries: map[unsafe.Pointer]*frozenEntry{}},
	}
}

// toYAML is ToYAML through the memos.
func (m *memos) toYAML(v interface{}) string {
	if out, ok := m.frozen.yaml(v, &m.yaml); ok {
		return out
	}
	return m.yaml.toYAML(v)
}

// stringify is Stringify through the memos.
func (m *memos) stringify(v interface{}) string { return stringify(v, m.toYAML) }

// indentFunc is Indent through the memos.
func (m *memos) indentFunc(spaces int, v string) string { return m.indent.indented(spaces, v, false) }

// nindentFunc is Nindent through the memos.
func (m *memos) nindentFunc(spaces int, v string) string { return m.indent.indented(spaces, v, true) }

// funcs is the function map of guardedFuncMap with toYaml, stringify, indent and nindent bound to m.
func (m *memos) funcs() template.FuncMap {
	f := guardedFuncMap()
	f["toYaml"] = m.toYAML
	f["stringify"] = m.stringify
	f["indent"] = m.indentFunc
	f["nindent"] = m.nindentFunc
	return f
}

// Thousands of assignments usually share a handful of distinct platform configs, and yaml.v3 is the most
// expensive step of rendering them. ToYAML is a pure function of its argument's content, so its output is
// memoized under a canonical encoding of that content. Values of other types are not memoized.
type yamlMemo struct {
	sync.RWMutex
	entries map[string]string
}

// yamlMemoLimit bounds the memo so that a render of all-distinct configs cannot grow it without end.
const yamlMemoLimit = 4096

func (m *yamlMemo) toYAML(v interface{}) string {
	key, ok := appendCanonical(make([]byte, 0, 256), v)
	if !ok {
		return marshalYAML(v)
	}
	m.RLock()
	out, hit := m.entries[string(key)]
	m.RUnlock()
	if hit {
		return out
	}
	out = marshalYAML(v)
	m.Lock()
	if len(m.entries) >= yamlMemoLimit {
		m.entries = map[string]string{}
	}
	m.entries[string(key)] = out
	m.Unlock()
	return out
}

// appendCanonical writes a type-tagged, length-prefixed encoding that is injective for the value types
// YAML decoding and the template data produce. It reports false for any other type.
func appendCanonical(b []byte, v interface{}) ([]byte, bool) {
	switch t := v.(type) {
	case nil:
		return append(b, 'n'), true
	case string:
		return appendString(append(b, 's'), t), true
	case bool:
		if t {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case int:
		return append(strconv.AppendInt(append(b, 'i'), int64(t), 10), ';'), true
	case int64:
		return append(strconv.AppendInt(append(b, 'I'), t, 10), ';'), true
	case uint64:
		return append(strconv.AppendUint(append(b, 'u'), t, 10), ';'), true
	case float64:
		return append(strconv.AppendFloat(append(b, 'd'), t, 'g', -1, 64), ';'), true
	case []interface{}:
		b = append(strconv.AppendInt(append(b, 'l'), int64(len(t)), 10), ':')
		for _, e := range t {
			var ok bool
			if b, ok = appendCanonical(b, e); !ok {
				return b, false
			}
		}
		return b, true
	case []string:
		b = append(strconv.AppendInt(append(b, 'L'), int64(len(t)), 10), ':')
		for _, e := range t {
			b = appendString(b, e)
		}
		return b, true
	case map[string]string:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(strconv.AppendInt(append(b, 'M'), int64(len(t)), 10), ':')
		for _, k := range keys {
			b = appendString(appendString(b, k), t[k])
		}
		return b, true
	case map[string]interface{}:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(strconv.AppendInt(append(b, 'm'), int64(len(t)), 10), ':')
		for _, k := range keys {
			var ok bool
			if b, ok = appendCanonical(appendString(b, k), t[k]); !ok {
				return b, false
			}
		}
		return b, true
	case map[interface{}]interface{}:
		// Keys of different types can print alike; only string-keyed maps are memoized.
		keys := make([]string, 0, len(t))
		for k := range t {
			s, ok := k.(string)
			if !ok {
				return b, false
			}
			keys = append(keys, s)
		}
		sort.Strings(keys)
		b = append(strconv.AppendInt(append(b, 'x'), int64(len(t)), 10), ':')
		for _, k := range keys {
			var ok bool
			if b, ok = appendCanonical(appendString(b, k), t[k]); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

func appendString(b []byte, s string) []byte {
	b = append(strconv.AppendInt(b, int64(len(s)), 10), ':')
	return append(b, s...)
}
