// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

// Input features that change what rendering costs per assignment, independent of the shape (issue 34).

// Templated config values. Upstream renders a manifest again while its output holds `{{`, so a config
// value may hold template actions that see the assignment's data: GREETING is the value of upstream's own
// benchmark, ROUTE a tpl-style value whose first render prints another action (rendered three times).
const (
	templatedGreeting = "Hello {{ .ClusterType }} / {{ .DeploymentTargetName }}"
	templatedRoute    = `{{ printf "%s.{{ .ClusterType }}.example.com" .Environment }}`
)

// templateConfigValues gives a share of configs, spread evenly over them from the first (in most shapes the
// environment-wide one, so that most assignments meet the feature), the GREETING value, and every other of
// those the ROUTE value too.
func templateConfigValues(configs []PlatformConfig, share float64) {
	count := int(share*float64(len(configs)) + 0.5)
	for k := range count {
		i := k * len(configs) / count
		configs[i].Data["GREETING"] = ConfigValue{Scalar: templatedGreeting}
		if k%2 == 0 {
			configs[i].Data["ROUTE"] = ConfigValue{Scalar: templatedRoute}
		}
	}
}
