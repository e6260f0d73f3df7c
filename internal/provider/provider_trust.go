// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
)

// loopbackHTTP reports whether the token may be sent over plain http to a loopback host.
func (d *ProviderData) loopbackHTTP() bool {
	if d == nil {
		return envTrue("KALYPSO_ALLOW_LOOPBACK_HTTP")
	}
	return d.LoopbackHTTP
}

// apiLimits bound the provider's requests to GitHub's REST API and Azure; a nil ProviderData (provider
// not configured) uses the defaults.
func (d *ProviderData) apiLimits() outbound.Limits {
	if d == nil {
		return outbound.Limits{}.WithDefaults()
	}
	return d.APILimits.WithDefaults()
}

func envTrue(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "1", "true", "yes":
		return true
	}
	return false
}
