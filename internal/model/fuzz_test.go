// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzSplitAndDecode checks that splitting never loses or invents text and that decoding never panics.
// A document that decodes cleanly must survive Marshal and Parse unchanged.
func FuzzSplitAndDecode(f *testing.F) {
	f.Add("a: 1\n---\nb: 2")
	f.Add("---\n# comment\n---\n")
	f.Add(av + "kind: ClusterType\nmetadata:\n  name: ct\n  labels: {size: large}\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n")
	f.Add(av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - {name: t, environment: dev, manifests: {repo: r}, labels: {edge: yes}}\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  A: |\n    - x\n")
	f.Add(av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      matchExpressions: [{key: a, operator: In, values: [b]}]\n  clusterTypeSelector: {}\n")
	f.Add("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")
	f.Add("kind: ClusterType\nkind: ClusterType\n")
	f.Add("metadata:\n\tname: x\n")
	f.Fuzz(func(t *testing.T, text string) {
		docs := SplitDocuments(0, text)
		prev := -1
		for _, d := range docs {
			if d.Source.Document <= prev || d.Source.Line < 1 || d.Source.Input != 0 {
				t.Fatalf("bad source %+v after %d", d.Source, prev)
			}
			prev = d.Source.Document
			if !strings.Contains(text, d.Text) || isBlankDocument(d.Text) {
				t.Fatalf("document %q is not a non-blank part of the input", d.Text)
			}
			for _, ln := range strings.Split(d.Text, "\n") {
				if ln == "---" {
					t.Fatalf("document %q still holds a separator line", d.Text)
				}
			}
			// The document starts at its line.
			lines := strings.SplitAfter(text, "\n")
			if d.Source.Line-1 >= len(lines) || !strings.HasPrefix(strings.Join(lines[d.Source.Line-1:], ""), d.Text) {
				t.Fatalf("document %q does not start at line %d", d.Text, d.Source.Line)
			}
			e, diags := DecodeDocument(d)
			for _, dg := range diags {
				if dg.Summary == "" || dg.Source != d.Source {
					t.Fatalf("diagnostic without summary or source: %+v", dg)
				}
			}
			if e == nil || diags.HasError() {
				continue
			}
			out, err := Marshal(e.Object)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			set, diags := Parse([]string{out})
			if diags.HasError() {
				t.Fatalf("re-parse of\n%s\nfailed: %v", out, diags)
			}
			var back []Object
			for _, o := range []interface{}{set.ClusterTypes, set.SchedulingPolicies, set.Workloads, set.WorkloadRegistrations, set.Templates, set.ConfigMaps, set.ConfigSchemas, set.BaseRepos, set.GitOpsRepos, set.Environments} {
				v := reflect.ValueOf(o)
				for i := 0; i < v.Len(); i++ {
					back = append(back, v.Index(i).Interface().(Object))
				}
			}
			if len(back) != 1 {
				t.Fatalf("round trip gave %d objects", len(back))
			}
			// Compare canonical text: empty and absent lists are the same object.
			again, err := Marshal(back[0])
			if err != nil || again != out {
				t.Fatalf("round trip changed the object:\n%s\n%s", out, again)
			}
		}
	})
}
