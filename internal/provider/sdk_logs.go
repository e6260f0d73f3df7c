// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import "strings"

// SDKLogDefaults returns the environment variables that switch off the plugin SDK's own log lines
// (terraform-plugin-framework and terraform-plugin-go) in this process when the environment sets no
// TF_LOG* variable at all, and nothing otherwise.
//
// Without any TF_LOG* variable, Terraform and OpenTofu discard everything a provider logs, yet the SDK
// still formats its trace lines before they are thrown away: thousands per call for a state whose
// `changes` holds max_changes entries, 0.4 s of a 1.4 s empty re-plan of a 1k environment right after its
// first apply. Whoever sets any TF_LOG* variable gets the SDK's lines as before.
func SDKLogDefaults(environ []string) map[string]string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "TF_LOG") {
			return nil
		}
	}
	return map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_FRAMEWORK": "off", "TF_LOG_SDK_PROTO": "off"}
}
