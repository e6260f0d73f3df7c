// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import "github.com/kalypso/terraform-provider-kalypso/internal/model"

// defaultNamespaceBuiltin is the workload's namespace, labelled with the environment, workspace,
// workload and deployment target.
var defaultNamespaceBuiltin = &builtin{
	template: &model.Template{
		Metadata: model.ObjectMeta{Name: "default"},
		Spec: model.TemplateSpec{
			Type: model.TemplateTypeNamespace,
			Manifests: []string{
				`apiVersion: v1
kind: Namespace
metadata:
  name: {{ .Namespace | quote }}
  labels:
    environment: {{ .Environment | quote }}
    workspace: {{ .Workspace | quote }}
    workload: {{ .Workload | quote }}
    deploymentTarget: {{ .DeploymentTargetName | quote }}
`,
			},
		},
	},
	writesNamespace: "as the Namespace's name",
	labels: func(environment string, t *DeploymentTarget) map[string]string {
		return map[string]string{
			"environment":      environment,
			"workspace":        t.Workspace,
			"workload":         t.Workload,
			"deploymentTarget": t.Name,
		}
	},
}
