// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package platformconfig composes the platform config of one assignment from ConfigMaps, as the
// upstream Kalypso scheduler does, and validates it against JSON Schemas.
package platformconfig

import (
	"reflect"
	"strings"

	yamlv2 "gopkg.in/yaml.v2"
)

// ParseValue reads a ConfigMap value with YAML 1.1 rules. A single-quoted value loses its quotes and stays
// a string, a value that parses to a map or list becomes that structure, anything else stays the original text.
func ParseValue(raw string) interface{} {
	trimmed := strings.TrimSpace(raw)
	if strings.HasPrefix(trimmed, "'") && strings.HasSuffix(trimmed, "'") {
		return strings.Trim(trimmed, "'")
	}
	var parsed interface{}
	if err := yamlv2.Unmarshal([]byte(raw), &parsed); err != nil {
		return raw
	}
	switch parsed.(type) {
	case []interface{}, map[interface{}]interface{}:
		return parsed
	}
	return raw
}

// Merge combines a repeated key's values: maps merge recursively, lists of maps merge element-wise by
// `name` (maps without a name match each other), other list elements are appended, and anything else
// replaces the old value. Like upstream, it updates existing in place and returns the merged value.
func Merge(existing, incoming interface{}) interface{} {
	if existingList, ok := existing.([]interface{}); ok {
		if incomingList, ok := incoming.([]interface{}); ok {
			for _, item := range incomingList {
				matched := false
				if itemMap, ok := item.(map[interface{}]interface{}); ok {
					for j, old := range existingList {
						if oldMap, ok := old.(map[interface{}]interface{}); ok && sameName(oldMap["name"], itemMap["name"]) {
							existingList[j] = Merge(old, item)
							matched = true
						}
					}
				}
				if !matched {
					existingList = append(existingList, item)
				}
			}
			return existingList
		}
	}
	if existingMap, ok := existing.(map[interface{}]interface{}); ok {
		if incomingMap, ok := incoming.(map[interface{}]interface{}); ok {
			for k, v := range incomingMap {
				if old, ok := existingMap[k]; ok {
					existingMap[k] = Merge(old, v)
				} else {
					existingMap[k] = v
				}
			}
			return existingMap
		}
	}
	return incoming
}

// sameName compares two `name` values without panicking on uncomparable ones (maps, lists).
func sameName(a, b interface{}) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return false
	}
	if ta.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
