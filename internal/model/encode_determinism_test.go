// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// TestMarshalIsDeterministicForNonTransitiveKeys is the regression test of a FuzzSplitAndDecode finding
// (testdata/fuzz/FuzzSplitAndDecode/9cde5f627840fcf6): yaml.v2's natural key order is a cycle for
// "01010b82" < "01c" < "18" < "01010b82", and it sorted Go map keys from random iteration order, so a
// manifest with such label keys changed from one Marshal to the next.
func TestMarshalIsDeterministicForNonTransitiveKeys(t *testing.T) {
	t.Parallel()
	ct := func() *ClusterType {
		c := &ClusterType{}
		c.Metadata.Name = "large"
		c.Metadata.Labels = map[string]string{"01c": "a", "18": "b", "01010b82": "c", "x": "d"}
		c.Spec.Reconciler, c.Spec.NamespaceService = "arc-flux", "default"
		return c
	}
	first, err := Marshal(ct())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if got, _ := Marshal(ct()); got != first {
			t.Fatalf("Marshal is not deterministic:\n%s\n%s", first, got)
		}
	}
}

// TestMarshalKeepsSigsYAMLOutput: for key sets whose natural order is consistent, the output is byte for
// byte what sigs.k8s.io/yaml.Marshal gives (natural order, so a9 before a10; quoting; nesting).
func TestMarshalKeepsSigsYAMLOutput(t *testing.T) {
	t.Parallel()
	cm := &ConfigMap{Data: map[string]string{"a10": "1", "a9": "yes", "B": "", "a": "x: y", "0": "~", "k.v.KEY": "- a\n- b\n", "long": "line1\nline2"}}
	cm.Metadata.Name = "c"
	cm.Metadata.Labels = map[string]string{"platform-config": "true", "region": "west"}
	w := &Workload{}
	w.Metadata.Name = "w"
	w.Spec.DeploymentTargets = []DeploymentTargetSpec{{Name: "t10", Environment: "dev", Labels: map[string]string{"b": "1", "a": "2"}, Manifests: map[string]string{"repo": "r", "path": "./p", "branch": "main"}}, {Name: "t9", Environment: "dev"}}
	for _, obj := range []Object{cm, w} {
		got, err := Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sigsyaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("Marshal differs from sigs.k8s.io/yaml:\n%s\nwant\n%s", got, want)
		}
	}
}
