// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package validators

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Timestamp accepts an RFC 3339 time ("2026-01-09T09:00:00Z").
func Timestamp() validator.String { return timestamp{} }

type timestamp struct{}

func (timestamp) Description(context.Context) string {
	return `must be an RFC 3339 time, such as "2026-01-09T09:00:00Z"`
}
func (v timestamp) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v timestamp) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid time", fmt.Sprintf("%q %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}
