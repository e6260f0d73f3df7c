// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// CompileSelector turns a label selector into a matcher with apimachinery's semantics:
// a nil or empty selector matches everything, and NotIn/DoesNotExist match objects that lack the key.
func CompileSelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	if sel == nil {
		return labels.Everything(), nil
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
