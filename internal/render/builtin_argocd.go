// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

// argoCDBuiltin is an Argo CD Application in namespace argocd that syncs the deployment target's
// manifests into the assignment's namespace, creating it, with automated prune and self-heal.
var argoCDBuiltin = &builtin{
	template: reconcilerTemplate("argocd",
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
`),
	reconciler: &reconcilerProject{name: "Argo CD", kinds: []servedKind{
		{"argoproj.io", "Application", []string{"v1alpha1"}},
	}},
	writesNamespace: "as the target namespace",
	labels:          scheduledLabels,
	docClusterType:  "small",
}
