// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"path"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// selectorTargets are the deployment targets FuzzSelector schedules; "c" has only the derived labels.
var selectorTargets = map[string]map[string]string{
	"a": {"tier": "front", "zone": "1"},
	"b": {"tier": "back"},
	"c": {},
}

// expectMatch is an independent reading of apimachinery's semantics for one requirement.
func expectMatch(labels map[string]string, op metav1.LabelSelectorOperator, key string, values []string) bool {
	v, has := labels[key]
	in := false
	for _, x := range values {
		if x == v {
			in = true
		}
	}
	switch op {
	case metav1.LabelSelectorOpIn:
		return has && in
	case metav1.LabelSelectorOpNotIn:
		return !has || !in
	case metav1.LabelSelectorOpExists:
		return has
	case metav1.LabelSelectorOpDoesNotExist:
		return !has
	}
	return false
}

// FuzzSelector schedules three targets with an arbitrary one-requirement selector plus an arbitrary
// matchLabels pair. Invalid selectors are diagnosed; valid ones select exactly what the semantics say.
func FuzzSelector(f *testing.F) {
	f.Add("tier", "In", "front,back", "", "")
	f.Add("tier", "NotIn", "front", "", "")
	f.Add("tier", "Exists", "", "", "")
	f.Add("tier", "DoesNotExist", "", "", "")
	f.Add("zone", "In", "1", "tier", "front")
	f.Add("workload", "In", "w", "workspace", "ws")
	f.Add("bad key", "In", "x", "", "")
	f.Add("tier", "Near", "x", "", "")
	f.Add("tier", "In", "", "", "")
	f.Add("tier", "Exists", "x", "k", "bad value!")
	f.Fuzz(func(t *testing.T, key, op, values, mlKey, mlValue string) {
		set := parseSet(t,
			clusterTypeDoc("ct", nil, "rec", "ns", ""),
			registrationDoc("w", "ws"),
			workloadDoc("w", "", nil,
				targetSpec{name: "a", env: "dev", labels: selectorTargets["a"]},
				targetSpec{name: "b", env: "dev", labels: selectorTargets["b"]},
				targetSpec{name: "c", env: "dev"}),
			policyDoc("p", "", "", ""),
		)
		var vals []string
		if values != "" {
			vals = strings.Split(values, ",")
		}
		sel := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: vals}}}
		if mlKey != "" {
			sel.MatchLabels = map[string]string{mlKey: mlValue}
		}
		set.SchedulingPolicies[0].Spec.DeploymentTargetSelector.LabelSelector = sel
		targets, diags := DeriveTargets("dev", set)
		if diags.HasError() {
			t.Fatal(diags)
		}
		as, diags := Schedule("dev", set, targets)
		if _, err := model.CompileSelector(sel); err != nil {
			if findDiag(diags, "Invalid label selector") == nil || len(as) != 0 {
				t.Fatalf("invalid selector %+v: assignments %v, diagnostics %v", sel, as, diags)
			}
			return
		}
		if len(diags) != 0 {
			t.Fatalf("valid selector %+v gave diagnostics %v", sel, diags)
		}
		got := map[string]bool{}
		for _, a := range as {
			got[a.DeploymentTarget] = true
		}
		for _, tg := range targets {
			want := expectMatch(tg.Labels, metav1.LabelSelectorOperator(op), key, vals)
			if mlKey != "" {
				v, has := tg.Labels[mlKey]
				want = want && has && v == mlValue
			}
			if got[tg.Name] != want {
				t.Fatalf("selector %+v on %s %v: selected %v, want %v", sel, tg.Name, tg.Labels, got[tg.Name], want)
			}
		}
	})
}

// FuzzRenderLayout renders with arbitrary names, through the codec and through a set built directly.
// Every file path must stay inside the tree: relative, clean, no `..`, no empty segment, no NUL.
func FuzzRenderLayout(f *testing.F) {
	f.Add("large", "app", "t", "dev")
	f.Add("..", "app", "t", "dev")
	f.Add("../etc", "a", "b", "dev")
	f.Add("/abs", "a/b", "..", "dev")
	f.Add("a\x00b", "w", "t", "dev")
	f.Add("ct", "..", "..", "..")
	f.Add("ct", "w", "t/../../x", "dev")
	f.Add(strings.Repeat("a", 254), "w", "t", "dev")
	f.Add("a.b", "w.x", "t.y", "env/x")
	f.Fuzz(func(t *testing.T, ctName, workload, target, env string) {
		check := func(res *Result) {
			if res == nil {
				return
			}
			for p := range res.Files {
				if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || strings.Contains(p, "\\") || path.Clean(p) != p {
					t.Fatalf("unsafe path %q", p)
				}
				for _, seg := range strings.Split(p, "/") {
					if seg == "" || seg == "." || seg == ".." {
						t.Fatalf("unsafe segment in %q", p)
					}
				}
			}
			for _, a := range res.Assignments {
				if _, ok := res.Files[a.Path+"/reconciler.yaml"]; !ok {
					t.Fatalf("assignment %s has no reconciler.yaml", a.Path)
				}
			}
		}
		docs := []string{
			apiV + fmt.Sprintf("kind: ClusterType\nmetadata:\n  name: %q\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n", ctName),
			registrationDoc("reg", "ws"),
			apiV + fmt.Sprintf("kind: Workload\nmetadata:\n  name: %q\n  annotations:\n    scheduler.kalypso.io/registration: reg\nspec:\n  deploymentTargets:\n    - name: %q\n      environment: %q\n      manifests: {repo: r, branch: b, path: p}\n", workload, target, env),
			policyDoc("p", "", "", ""),
		}
		res, _ := NewEngine().Render(env, docs, Options{Parallelism: 2})
		check(res)

		// A set built directly skips the codec's name validation.
		set := &model.Set{
			ClusterTypes: []*model.ClusterType{{Metadata: model.ObjectMeta{Name: ctName}, Spec: model.ClusterTypeSpec{Reconciler: "arc-flux", NamespaceService: "default"}}},
			Workloads: []*model.Workload{{Metadata: model.ObjectMeta{Name: workload}, Spec: model.WorkloadSpec{DeploymentTargets: []model.DeploymentTargetSpec{
				{Name: target, Environment: env, Manifests: map[string]string{"repo": "r"}},
			}}}},
			SchedulingPolicies: []*model.SchedulingPolicy{{Metadata: model.ObjectMeta{Name: "p"}}},
			Sources:            map[string]map[string]model.Source{},
		}
		res, _ = NewEngine().RenderSet(env, set, Options{Parallelism: 1})
		check(res)
	})
}
