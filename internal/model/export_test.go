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
