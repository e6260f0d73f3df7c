// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"regexp"
)

// arcFluxBuiltin is the default reconciler: a Flux GitRepository for the deployment target's manifests
// and a Kustomization that applies their path into the assignment's namespace.
var arcFluxBuiltin = &builtin{
	template: reconcilerTemplate("arc-flux",
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
`),
	reconciler: &reconcilerProject{name: "Flux", kinds: []servedKind{
		{"source.toolkit.fluxcd.io", "GitRepository", []string{"v1"}},
		{"kustomize.toolkit.fluxcd.io", "Kustomization", []string{"v1"}},
	}},
	writesNamespace: "as the target namespace",
	labels:          scheduledLabels,
	check:           checkFluxGitURL,
	docClusterType:  "large",
}

// fluxGitURL is the pattern of Flux's GitRepository.spec.url (source.toolkit.fluxcd.io/v1 CRD).
var fluxGitURL = regexp.MustCompile(`^(http|https|ssh)://.*$`)

// checkFluxGitURL refuses a manifests.repo that Flux does not accept as a GitRepository's spec.url.
func checkFluxGitURL(t *DeploymentTarget, _ map[string]interface{}) []builtinIssue {
	repo := t.Manifests["repo"]
	if fluxGitURL.MatchString(repo) {
		return nil
	}
	return []builtinIssue{{SummaryInvalidRepoURL, "spec.reconciler",
		fmt.Sprintf("the built-in \"arc-flux\" template copies manifests.repo %q into a Flux GitRepository's spec.url, which Flux accepts only as http://, https:// or ssh:// "+
			"(scp-style user@host:path and file:// are refused); write the Workload's repo as for example ssh://git@github.com/org/repo or https://github.com/org/repo", repo)}}
}
