// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// A reconciler and a namespace Template in the format kalypso-scheduler read until March 2023.
const legacyReconciler = apiV + `kind: Template
metadata:
  name: legacy-flux
spec:
  type: reconciler
  manifests:
    - apiVersion: source.toolkit.fluxcd.io/v1
      kind: GitRepository
      metadata:
        name: "{{ .DeploymentTargetName}}"
        namespace: flux-system
      spec:
        interval: 30s
        url: "{{ .Repo}}"
        ref:
          branch: "{{ .Branch}}"
        ignore: ["{{ .Path }}"]
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata:
        name: "{{ .DeploymentTargetName}}"
        namespace: flux-system
      spec:
        targetNamespace: "{{ .Namespace}}"
        path: "{{ .Path}}"
        prune: true
        retries: 3
`

const legacyNamespace = apiV + `kind: Template
metadata:
  name: legacy-ns
spec:
  type: namespace
  manifests:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: "{{ .Namespace}}"
        labels:
          workload: "{{ .Workload}}"
          count: "{{ len .DeploymentTargetName }}"
`

// TestRenderObjectManifests: Templates whose manifests are objects render as kalypso-scheduler rendered
// them until March 2023: each string value of a mapping executed (.Repo, .Branch and .Path the target's
// manifests), strings inside lists kept as they are, each object written by yaml.v2 with sorted keys and
// joined by ---; one deprecation warning per Template, naming it.
func TestRenderObjectManifests(t *testing.T) {
	t.Parallel()
	res, diags := mustRender(t, "dev", Options{},
		clusterTypeDoc("large", nil, "legacy-flux", "legacy-ns", ""),
		registrationDoc("app", "team"),
		workloadDoc("app", "", nil, targetSpec{name: "web", env: "dev"}),
		policyDoc("all", "", "", ""),
		legacyReconciler, legacyNamespace)
	wantReconciler := `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: app-web
  namespace: flux-system
spec:
  ignore:
  - '{{ .Path }}'
  interval: 30s
  ref:
    branch: dev
  url: https://example.com/app
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app-web
  namespace: flux-system
spec:
  path: ./web
  prune: true
  retries: 3
  targetNamespace: dev-large-app-web
`
	if got := res.Files["large/app-web/reconciler.yaml"]; got != wantReconciler {
		t.Errorf("reconciler.yaml:\n%s\nwant\n%s", got, wantReconciler)
	}
	// "7" is a string that reads as a number: yaml.v2 quotes it.
	wantNamespace := "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    count: \"7\"\n    workload: app\n  name: dev-large-app-web\n"
	if got := res.Files["large/app-web/namespace.yaml"]; got != wantNamespace {
		t.Errorf("namespace.yaml:\n%s\nwant\n%s", got, wantNamespace)
	}
	var warned []string
	for _, d := range diags.Warnings() {
		if d.Summary == "Deprecated Template format" {
			warned = append(warned, d.Name)
			if d.Kind != model.KindTemplate || d.Field != "spec.manifests" || !strings.Contains(d.Detail, "March 2023") || !strings.Contains(d.Detail, "BaseRepo spec.commit") {
				t.Errorf("warning %+v", d)
			}
		}
	}
	if strings.Join(warned, ",") != "legacy-flux,legacy-ns" {
		t.Errorf("deprecation warnings for %v, want legacy-flux and legacy-ns", warned)
	}
}

// An object manifest that calls a function whose result differs on every render is warned about as a
// string manifest is.
func TestRenderObjectManifestsNonDeterministic(t *testing.T) {
	t.Parallel()
	reconciler := strings.Replace(legacyReconciler, "interval: 30s", `interval: "{{ randAlphaNum 4 }}"`, 1)
	_, diags := mustRender(t, "dev", Options{},
		clusterTypeDoc("large", nil, "legacy-flux", "legacy-ns", ""),
		registrationDoc("app", "team"),
		workloadDoc("app", "", nil, targetSpec{name: "web", env: "dev"}),
		policyDoc("all", "", "", ""),
		reconciler, legacyNamespace)
	d := findDiag(diags, "Template output differs on every render")
	if d == nil || d.Name != "legacy-flux" || !strings.Contains(d.Detail, "manifests[0]") || !strings.Contains(d.Detail, "randAlphaNum") {
		t.Errorf("warning %+v", d)
	}
}

func TestLegacyText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"{{ .Repo}}":                      "{{ .Manifests.repo}}",
		"{{.Branch}}-{{ .Path | quote }}": "{{.Manifests.branch}}-{{ .Manifests.path | quote }}",
		"a .Path outside an action":       "a .Path outside an action",
		"{{ .Repository }}":               "{{ .Repository }}",
		"{{ .Namespace }}":                "{{ .Namespace }}",
	} {
		if got := legacyText(in); got != want {
			t.Errorf("legacyText(%q) = %q, want %q", in, got, want)
		}
	}
}
