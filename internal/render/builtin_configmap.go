// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// configMapBuiltin is the merged platform config as a ConfigMap named platform-config in the
// assignment's namespace, every value a quoted string.
var configMapBuiltin = &builtin{
	template: &model.Template{
		Metadata: model.ObjectMeta{Name: "configmap"},
		Spec: model.TemplateSpec{
			Type:        model.TemplateTypeConfig,
			ContentType: model.ContentTypeYAML,
			Manifests: []string{
				`apiVersion: v1
kind: ConfigMap
metadata:
  name: platform-config
  namespace: {{ .Namespace | quote }}
data:{{ if not .ConfigData }} {}{{ end }}
{{- range $key, $value := .ConfigData }}
  {{ $key | quote }}: {{ if kindIs "string" $value }}{{ $value | quote }}{{ else }}{{ toYaml $value | quote }}{{ end }}
{{- end }}
`,
			},
		},
	},
	check: checkConfigMapKeys,
}

// checkConfigMapKeys refuses the platform config keys that are not ConfigMap data keys.
func checkConfigMapKeys(_ *DeploymentTarget, config map[string]interface{}) []builtinIssue {
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []builtinIssue
	for _, k := range keys {
		if msgs := validation.IsConfigMapKey(k); len(msgs) > 0 {
			out = append(out, builtinIssue{SummaryInvalidConfigKey, "spec.configType",
				fmt.Sprintf("the built-in \"configmap\" template writes platform config key %q as a ConfigMap data key, which Kubernetes refuses (%s); rename the key in the platform ConfigMaps",
					k, strings.Join(msgs, "; "))})
		}
	}
	return out
}
