// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"bytes"
	"encoding/json"
	"reflect"

	kjson "sigs.k8s.io/json"
)

// UnmarshalJSON reads spec.manifests as strings (the current format) or, when every manifest is a mapping,
// as Objects (the format before March 2023). A list that mixes both is the type error it always was.
func (s *TemplateSpec) UnmarshalJSON(b []byte) error {
	type plain TemplateSpec // no UnmarshalJSON: decodes the other fields as before
	var raw struct {
		plain
		Manifests []json.RawMessage `json:"manifests"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &raw); err != nil {
		return err
	}
	*s = TemplateSpec(raw.plain)
	s.Manifests, s.Objects = nil, nil
	objects := 0
	for _, m := range raw.Manifests {
		if bytes.HasPrefix(bytes.TrimSpace(m), []byte("{")) {
			objects++
		}
	}
	if objects == 0 || objects != len(raw.Manifests) {
		var manifests struct {
			Manifests []string `json:"manifests"`
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &manifests); err != nil {
			return err
		}
		s.Manifests = manifests.Manifests
		return nil
	}
	s.Objects = make([]map[string]interface{}, len(raw.Manifests))
	for i, m := range raw.Manifests {
		// Integers stay int64 and other numbers float64, as the operator's unstructured objects held them.
		if err := kjson.UnmarshalCaseSensitivePreserveInts(m, &s.Objects[i]); err != nil {
			return &json.UnmarshalTypeError{Value: "object", Type: reflect.TypeOf(""), Field: "spec.manifests"}
		}
	}
	return nil
}
