// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package crdschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

func TestLoadServesEveryKind(t *testing.T) {
	t.Parallel()
	s := Default(t)
	got := map[string]bool{}
	for _, g := range s.Kinds() {
		got[g.String()] = true
	}
	for _, want := range []string{
		"scheduler.kalypso.io/v1alpha1, Kind=ClusterType", "scheduler.kalypso.io/v1alpha1, Kind=SchedulingPolicy",
		"scheduler.kalypso.io/v1alpha1, Kind=Template", "scheduler.kalypso.io/v1alpha1, Kind=ConfigSchema",
		"scheduler.kalypso.io/v1alpha1, Kind=WorkloadRegistration", "scheduler.kalypso.io/v1alpha1, Kind=Workload",
		"scheduler.kalypso.io/v1alpha1, Kind=BaseRepo", "scheduler.kalypso.io/v1alpha1, Kind=GitOpsRepo",
		"source.toolkit.fluxcd.io/v1, Kind=GitRepository", "kustomize.toolkit.fluxcd.io/v1, Kind=Kustomization",
		"argoproj.io/v1alpha1, Kind=Application",
	} {
		if !got[want] {
			t.Errorf("%s is not served; loaded %v", want, s.Kinds())
		}
	}
	if len(s.Rules()) != 3 {
		t.Errorf("want the three CEL rules of the Flux CRDs, got %+v", s.Rules())
	}
}

const av = "apiVersion: scheduler.kalypso.io/v1alpha1\n"

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	s := Default(t)
	cases := []struct{ name, doc, want string }{
		{"policy without labelSelector", av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    workspace: w\n  clusterTypeSelector: {}\n", "labelSelector"},
		{"unknown field (strict field validation)", av + "kind: ClusterType\nmetadata:\n  name: c\nspec:\n  reconciler: r\n  namespaceService: n\n  configType: c\n  colour: red\n", "colour"},
		{"wrong type", av + "kind: Template\nmetadata:\n  name: t\nspec:\n  type: reconciler\n  manifests: text\n", "manifests"},
		{"name that is not a DNS subdomain", av + "kind: ConfigSchema\nmetadata:\n  name: Not_A_Name\nspec:\n  schema: '{}'\n", "name"},
		{"label value that is not one", av + "kind: ConfigSchema\nmetadata:\n  name: s\n  labels:\n    a: not valid!\nspec:\n  schema: '{}'\n", "labels"},
		{"no metadata", av + "kind: ConfigSchema\nspec:\n  schema: '{}'\n", "metadata"},
		{"ConfigMap with a non-string value", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  A: 1\n", "data"},
		{"ConfigMap key with a slash", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a/b: x\n", "'a/b' does not match"},
		{"kind no CRD serves", av + "kind: Nope\nmetadata:\n  name: n\n", "no loaded CRD serves"},
		{"flux GitRepository without interval", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: g\nspec:\n  url: https://x\n", "interval"},
		{"a version the CRD does not serve", "apiVersion: source.toolkit.fluxcd.io/v1beta1\nkind: GitRepository\nmetadata:\n  name: g\nspec:\n  url: https://x\n  interval: 1m\n", "no loaded CRD serves"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Validate(c.doc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want an error naming %q", err, c.want)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	s := Default(t)
	for name, doc := range map[string]string{
		"ConfigMap":        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: azure-app-config-dev\ndata:\n  cluster-type.large.REGION: west\n  A: \"1\"\n",
		"policy":           av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    workspace: w\n    labelSelector: {}\n  clusterTypeSelector:\n    labelSelector:\n      matchExpressions: [{key: a, operator: In, values: [b]}]\n",
		"int-or-string":    "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: default\n  destination: {server: https://kubernetes.default.svc}\n  source: {repoURL: https://x, helm: {parameters: [{name: a, value: b}]}}\n  syncPolicy: {retry: {limit: 2, backoff: {duration: 5s, factor: 2}}}\n",
		"preserved fields": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: k\n  namespace: flux-system\nspec:\n  interval: 1m\n  prune: true\n  sourceRef: {kind: GitRepository, name: g}\n  patches: [{patch: 'a: b'}]\n",
	} {
		if err := s.Validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The public control-plane sample, which the upstream operator runs on, is accepted: the checks are not
// stricter than the API server.
func TestValidateAcceptsTheUpstreamSample(t *testing.T) {
	t.Parallel()
	s := Default(t)
	root := filepath.Join(fixtures.Root(), "controlplane")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, string(filepath.Separator)+".") ||
			strings.Contains(path, "expected-") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs, err := Documents(string(text))
		if err != nil {
			return err
		}
		for _, doc := range docs {
			if !strings.Contains(doc, "scheduler.kalypso.io/") {
				continue
			}
			checked++
			if err := s.Validate(doc); err != nil {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %v", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("checked only %d documents", checked)
	}
}
