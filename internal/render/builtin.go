// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import "github.com/kalypso/terraform-provider-kalypso/internal/model"

// Built-in templates give a new user a working tree without writing any template. They are used only
// when the input defines no template of the same name, and target today's Flux and Argo CD APIs.
var builtinTemplates = map[string]*model.Template{
	"arc-flux": {
		Metadata: model.ObjectMeta{Name: "arc-flux"},
		Spec: model.TemplateSpec{
			Type: model.TemplateTypeReconciler,
			Manifests: []string{
				`apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: {{ .DeploymentTargetName | quote }}
  namespace: flux-system
  labels:
    scheduler.kalypso.io/workload: {{ .Workload | quote }}
    scheduler.kalypso.io/deployment-target: {{ .DeploymentTargetName | quote }}
spec:
  interval: 1m
  url: {{ .Manifests.repo | quote }}
  ref:
    branch: {{ .Manifests.branch | quote }}
`,
				`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: {{ .DeploymentTargetName | quote }}
  namespace: flux-system
  labels:
    scheduler.kalypso.io/workload: {{ .Workload | quote }}
    scheduler.kalypso.io/deployment-target: {{ .DeploymentTargetName | quote }}
spec:
  interval: 1m
  targetNamespace: {{ .Namespace | quote }}
  sourceRef:
    kind: GitRepository
    name: {{ .DeploymentTargetName | quote }}
  path: {{ .Manifests.path | quote }}
  prune: true
`,
			},
		},
	},
	"argocd": {
		Metadata: model.ObjectMeta{Name: "argocd"},
		Spec: model.TemplateSpec{
			Type: model.TemplateTypeReconciler,
			Manifests: []string{
				`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ .DeploymentTargetName | quote }}
  namespace: argocd
  labels:
    scheduler.kalypso.io/workload: {{ .Workload | quote }}
    scheduler.kalypso.io/deployment-target: {{ .DeploymentTargetName | quote }}
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: {{ .Namespace | quote }}
  source:
    repoURL: {{ .Manifests.repo | quote }}
    targetRevision: {{ .Manifests.branch | quote }}
    path: {{ .Manifests.path | quote }}
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
    syncOptions:
      - CreateNamespace=true
`,
			},
		},
	},
	"default": {
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
	"configmap": {
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
}

// BuiltinTemplateNames lists the built-in templates.
func BuiltinTemplateNames() []string {
	return []string{"arc-flux", "argocd", "configmap", "default"}
}
