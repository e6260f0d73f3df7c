// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package sanitize

// String sanitizes text with no configured secrets (see Sanitizer.String).
func String(text string) string { return Sanitizer{}.String(text) }
