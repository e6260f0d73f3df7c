// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import "reflect"

// Objects lists every object of the set, field by field, so a test needs no list of the kinds.
func (s *Set) Objects() []Object {
	var out []Object
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() != reflect.Slice {
			continue
		}
		for j := 0; j < f.Len(); j++ {
			if o, ok := f.Index(j).Interface().(Object); ok {
				out = append(out, o)
			}
		}
	}
	return out
}

// fastYAMLToJSON converts the plain shape that almost every manifest has to the JSON that
// sigs.k8s.io/yaml's YAMLToJSONStrict makes of it, byte for byte, at a fraction of the cost (yaml.v2's
// parse was most of decoding a fleet). The shape: printable ASCII only; a root block mapping at column 0;
// block mappings and sequences indented with spaces; keys that are plain words or quoted without escapes,
// each written once; one-line scalars that are plain strings, decimal integers, quoted strings without
// escapes, `[]` or `{}`; full-line comments. Anything else — anchors, aliases, tags, merge keys, block or
// multi-line scalars, flow collections, `#` after a value, nulls, booleans, floats, and every syntax
// error — is declined (ok false) and the caller takes the full path, which reports errors as before. The
// subset is chosen so that acceptance implies the full path would succeed with the same result:
// TestFastYAMLToJSONMatchesFullPath and FuzzFastYAMLToJSON compare the two.
func fastYAMLToJSON(text string) (root *fyNode, js []byte, ok bool) {
	if root, ok = fastYAMLTree(text); !ok {
		return nil, nil, false
	}
	return root, root.json(len(text)), true
}
