// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"reflect"
	"strings"
	"testing"
)

const legacyTemplate = `apiVersion: scheduler.kalypso.io/v1alpha1
kind: Template
metadata:
  name: arc-flux
spec:
  type: reconciler
  manifests:
    - apiVersion: source.toolkit.fluxcd.io/v1beta2
      kind: GitRepository
      metadata:
        name: "{{ .DeploymentTargetName}}"
        namespace: flux-system
      spec:
        interval: 30s
        replicas: 2
        ratio: 0.5
        url: "{{ .Repo}}"
`

// TestTemplateObjectManifests: a Template whose manifests are objects (kalypso-scheduler's format until
// March 2023) decodes into Objects, numbers as the operator's unstructured objects held them; a list that
// mixes objects and strings is the type error it was, at the element's path.
func TestTemplateObjectManifests(t *testing.T) {
	t.Parallel()
	set, diags := Parse([]string{legacyTemplate})
	if diags.HasError() || len(set.Templates) != 1 {
		t.Fatalf("parse: %v", diags)
	}
	spec := set.Templates[0].Spec
	if len(spec.Manifests) != 0 || len(spec.Objects) != 1 || spec.Type != "reconciler" {
		t.Fatalf("spec = %+v", spec)
	}
	want := map[string]interface{}{
		"apiVersion": "source.toolkit.fluxcd.io/v1beta2", "kind": "GitRepository",
		"metadata": map[string]interface{}{"name": "{{ .DeploymentTargetName}}", "namespace": "flux-system"},
		"spec":     map[string]interface{}{"interval": "30s", "replicas": int64(2), "ratio": 0.5, "url": "{{ .Repo}}"},
	}
	if !reflect.DeepEqual(spec.Objects[0], want) {
		t.Errorf("objects[0] = %#v", spec.Objects[0])
	}

	mixed := legacyTemplate + "    - |\n      kind: Kustomization\n"
	_, diags = Parse([]string{mixed})
	if !diags.HasError() || diags[0].Field != "spec.manifests[0]" || !strings.Contains(diags[0].Detail, "expected string, got a YAML object") {
		t.Errorf("a mixed list: %v", diags)
	}
}
