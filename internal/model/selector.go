// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// CompileSelector turns a label selector into a matcher with apimachinery's semantics:
// a nil or empty selector matches everything, and NotIn/DoesNotExist match objects that lack the key.
func CompileSelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	if sel == nil {
		return labels.Everything(), nil
	}
	// apimachinery checks matchLabels in map order and returns the first bad one, so a selector with two bad
	// labels would name either from one plan to the next. Checking them in key order first names the same one
	// every time; the requirement is the one apimachinery builds for a label, so no other input is refused.
	if len(sel.MatchLabels) > 1 {
		keys := make([]string, 0, len(sel.MatchLabels))
		for k := range sel.MatchLabels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, err := labels.NewRequirement(k, selection.Equals, []string{sel.MatchLabels[k]}); err != nil {
				return nil, err
			}
		}
	}
	return metav1.LabelSelectorAsSelector(sel)
}

func validateSelector(e *Entry, field string, sel *metav1.LabelSelector) Diagnostics {
	if _, err := CompileSelector(sel); err != nil {
		return Diagnostics{{
			Severity: SeverityError, Summary: "Invalid label selector", Source: e.Doc.Source, Kind: e.Kind, Name: e.Name, Field: field,
			Detail: err.Error() + "; operators are In, NotIn (both need values), Exists and DoesNotExist (no values)",
		}}
	}
	return nil
}
