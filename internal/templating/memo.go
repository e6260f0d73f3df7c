// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"sort"
	"strconv"
	"sync"
)

// Thousands of assignments usually share a handful of distinct platform configs, and yaml.v3 is the most
// expensive step of rendering them. ToYAML is a pure function of its argument's content, so its output is
// memoized under a canonical encoding of that content. Values of other types are not memoized.
var yamlMemo = struct {
	sync.RWMutex
	entries map[string]string
}{entries: map[string]string{}}

// yamlMemoLimit bounds the memo so that a render of all-distinct configs cannot grow it without end.
const yamlMemoLimit = 4096

func memoizedToYAML(v interface{}) string {
	key, ok := appendCanonical(make([]byte, 0, 256), v)
	if !ok {
		return marshalYAML(v)
	}
	yamlMemo.RLock()
	out, hit := yamlMemo.entries[string(key)]
	yamlMemo.RUnlock()
	if hit {
		return out
	}
	out = marshalYAML(v)
	yamlMemo.Lock()
	if len(yamlMemo.entries) >= yamlMemoLimit {
		yamlMemo.entries = map[string]string{}
	}
	yamlMemo.entries[string(key)] = out
	yamlMemo.Unlock()
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
