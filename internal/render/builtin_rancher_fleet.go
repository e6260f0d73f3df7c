// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

// rancherFleetBuiltin is a Rancher Fleet GitRepo in namespace fleet-local, the workspace whose GitRepos
// Fleet deploys to the cluster it runs on: it watches the deployment target's manifests.repo and
// branch and deploys manifests.path into the assignment's namespace. Fleet accepts the scp-style and
// file-less URLs Git does, so manifests.repo is copied as it is, unchecked.
var rancherFleetBuiltin = &builtin{
	template: reconcilerTemplate("rancher-fleet",
		`apiVersion: fleet.cattle.io/v1alpha1
kind: GitRepo
metadata:
  name: {{ .DeploymentTargetName | quote }}
  namespace: fleet-local
  labels:
    scheduler.kalypso.io/workload: {{ .Workload | quote }}
    scheduler.kalypso.io/deployment-target: {{ .DeploymentTargetName | quote }}
spec:
  repo: {{ .Manifests.repo | quote }}
  branch: {{ .Manifests.branch | quote }}
  paths:
    - {{ .Manifests.path | quote }}
  targetNamespace: {{ .Namespace | quote }}
  pollingInterval: 1m
`),
	reconciler: &reconcilerProject{name: "Rancher Fleet", kinds: []servedKind{
		{"fleet.cattle.io", "GitRepo", []string{"v1alpha1"}},
	}},
	writesNamespace: "as the target namespace",
	labels:          scheduledLabels,
	docClusterType:  "edge",
}
