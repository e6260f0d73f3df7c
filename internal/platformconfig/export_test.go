// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

// Compose builds the merged platform config for one assignment as the caller's own copy, so a test
// can modify it; the render shares ComposeShared's map instead.
func (s *Sources) Compose(t Target) map[string]interface{} {
	return CopyConfig(s.ComposeShared(t))
}
