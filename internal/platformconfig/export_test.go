// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import "github.com/santhosh-tekuri/jsonschema/v6"

// Compose builds the merged platform config for one assignment as the caller's own copy, so a test
// can modify it; the render shares ComposeShared's map instead.
func (s *Sources) Compose(t Target) map[string]interface{} {
	return CopyConfig(s.ComposeShared(t))
}

// ComposeShared builds the merged platform config for one assignment without copying it: assignments
// that match the same sources get the same map. Callers must not modify it, or anything in it; take
// CopyConfig first. Rendering shares it because templates rarely modify config, and copying it for
// each of 100k assignments was a tenth of a render.
func (s *Sources) ComposeShared(t Target) map[string]interface{} {
	data, _ := s.ComposeSharedKey(t)
	return data
}

// ComposeSharedKey is ComposeShared with the key of the composed config: assignments with the same key
// get the same map, so whatever depends only on the config (its validation against a schema) is done
// once per key.
func (s *Sources) ComposeSharedKey(t Target) (map[string]interface{}, string) {
	return s.ComposeSharedKeySides(s.ClusterTypeSide(t.ClusterTypeName, t.ClusterTypeLabels), s.TargetSide(t.DeploymentTarget, t.TargetLabels), t)
}

// Validate checks config data against a compiled schema (the render converts each config once, with
// NewInstance, for all its schemas).
func Validate(s *jsonschema.Schema, data map[string]interface{}) *Violation {
	return NewInstance(data).Validate(s)
}
