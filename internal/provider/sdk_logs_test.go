// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"maps"
	"testing"
)

func TestSDKLogDefaults_OffOnlyWhenNoLoggingIsAsked(t *testing.T) {
	t.Parallel()
	off := map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_FRAMEWORK": "off", "TF_LOG_SDK_PROTO": "off"}
	for _, tc := range []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{"nothing asked", []string{"HOME=/root", "TF_CLI_CONFIG_FILE=/x", "TF_IN_AUTOMATION=1"}, off},
		{"empty environment", nil, off},
		{"TF_LOG", []string{"TF_LOG=trace"}, nil},
		{"TF_LOG_PROVIDER", []string{"HOME=/root", "TF_LOG_PROVIDER=debug"}, nil},
		{"TF_LOG_PATH alone", []string{"TF_LOG_PATH=/tmp/tf.log"}, nil},
		{"an SDK subsystem", []string{"TF_LOG_SDK_FRAMEWORK=trace"}, nil},
		{"the variable named in a value", []string{"NOTE=TF_LOG=trace"}, off},
	} {
		if got := SDKLogDefaults(tc.environ); !maps.Equal(got, tc.want) {
			t.Errorf("%s: SDKLogDefaults(%q) = %v, want %v", tc.name, tc.environ, got, tc.want)
		}
	}
}
