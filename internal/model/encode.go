// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Marshal renders an object as canonical upstream YAML (sorted keys, 2-space indent), with apiVersion and kind set.
//
// The output is what sigs.k8s.io/yaml.Marshal gives (JSON, then yaml.v2 with its "natural" key order, so
// `a9` sorts before `a10`), with one difference: it is deterministic. yaml.v2's natural order is not
// transitive for some keys ("01010b82" < "01c" < "18" < "01010b82"), and it sorts the keys of a Go map
// in random iteration order, so such maps came out in a different order from one call to the next (a
// manifest attribute that changes between plan and apply). Here the keys start in JSON's sorted order
// and are sorted with the same comparison, which gives yaml.v2's order whenever that order is
// consistent and a fixed order when it is not. Found by FuzzSplitAndDecode.
func Marshal(obj Object) (string, error) {
	setTypeMeta(obj)
	j, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("error marshaling into JSON: %w", err)
	}
	// Decoding into a MapSlice keeps JSON's key order, for nested mappings too.
	var doc yamlv2.MapSlice
	if err := yamlv2.Unmarshal(j, &doc); err != nil {
		return "", err
	}
	sortNatural(doc)
	b, err := yamlv2.Marshal(doc)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// sortNatural sorts every mapping below v by yaml.v2's key order, starting from the current order.
func sortNatural(v interface{}) {
	switch t := v.(type) {
	case yamlv2.MapSlice:
		sort.Sort(naturalKeys(t))
		for _, item := range t {
			sortNatural(item.Value)
		}
	case []interface{}:
		for _, e := range t {
			sortNatural(e)
		}
	}
}

type naturalKeys yamlv2.MapSlice

func (n naturalKeys) Len() int      { return len(n) }
func (n naturalKeys) Swap(i, j int) { n[i], n[j] = n[j], n[i] }
func (n naturalKeys) Less(i, j int) bool {
	a, aok := n[i].Key.(string)
	b, bok := n[j].Key.(string)
	if !aok || !bok {
		return fmt.Sprint(n[i].Key) < fmt.Sprint(n[j].Key) // JSON keys are always strings
	}
	return naturalLess(a, b)
}

// naturalLess is the string comparison of yaml.v2's keyList.Less (go.yaml.in/yaml/v2 sorter.go,
// Apache-2.0): letters before digits, runs of digits compared as numbers.
func naturalLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}

// setTypeMeta fills apiVersion and kind from the object's Go type, so callers never spell them out.
func setTypeMeta(obj Object) {
	t := reflect.TypeOf(obj)
	for _, k := range kindTable {
		if reflect.TypeOf(k.new()) == t {
			if s, ok := obj.(interface{ setTypeMeta(TypeMeta) }); ok {
				s.setTypeMeta(TypeMeta{APIVersion: k.apiVersion, Kind: k.kind})
			}
			return
		}
	}
}
