// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// warningFleet: one cluster type, one workload with targets in "dev" and "stage".
func warningFleet(policies ...string) []string {
	docs := []string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		registrationDoc("app", "team"),
		workloadDoc("app", "", nil,
			targetSpec{name: "func", env: "dev", labels: map[string]string{"purpose": "func"}},
			targetSpec{name: "uat", env: "stage", labels: map[string]string{"purpose": "uat"}}),
	}
	return append(append(docs, policies...), simpleTemplates...)
}

// TestWarningEmptyEnvironment: "Dev" for "dev" renders nothing; the warning names the environments
// that exist and the one that differs only in case.
func TestWarningEmptyEnvironment(t *testing.T) {
	t.Parallel()
	_, diags := mustRender(t, "Dev", Options{}, warningFleet(policyDoc("all", "", "", ""))...)
	if len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	d := diags[0]
	if d.Severity != model.SeverityWarning || d.Summary != SummaryEmptyEnvironment {
		t.Fatalf("diagnostic = %+v", d)
	}
	for _, want := range []string{`environment "Dev"`, `"dev", "stage"`, `did you mean "dev"?`} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("detail %q lacks %q", d.Detail, want)
		}
	}
	// An environment without any Workload at all (a fresh repository) is not a typo.
	_, diags = mustRender(t, "dev", Options{}, clusterTypeDoc("large", nil, "rec", "ns", "cfg"))
	if len(diags) != 0 {
		t.Errorf("no workloads: %v", diags)
	}
}

// TestWarningPolicySelectsNothing: each way a policy can come up empty is named.
func TestWarningPolicySelectsNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, policy, reason string
	}{
		{"no cluster type", policyDoc("p", "", "", "{matchLabels: {size: tiny}}"), "its clusterTypeSelector matches none of the 1 cluster type(s)"},
		{"no target", policyDoc("p", "", "{matchLabels: {purpose: perf}}", ""), "its deploymentTargetSelector matches none of the 1 deployment target(s)"},
		{"other workspace", policyDoc("p", "other-team", "", ""), `no deployment target of the environment is in workspace "other-team"`},
		{"workspace, no target", policyDoc("p", "team", "{matchLabels: {purpose: perf}}", ""), `matches none of the 1 deployment target(s) of workspace "team"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := mustRender(t, "dev", Options{}, warningFleet(policyDoc("placer", "", "", ""), c.policy)...)
			if len(diags) != 1 {
				t.Fatalf("want one warning, got %v", diags)
			}
			d := diags[0]
			if d.Severity != model.SeverityWarning || d.Summary != SummaryPolicyIdle || d.Kind != model.KindSchedulingPolicy || d.Name != "p" || d.Source.Input != 4 {
				t.Errorf("diagnostic = %+v", d)
			}
			if !strings.Contains(d.Detail, c.reason) {
				t.Errorf("detail %q lacks %q", d.Detail, c.reason)
			}
		})
	}
	// A policy that places something, and the same one on an environment without targets, say nothing more.
	if _, diags := mustRender(t, "dev", Options{}, warningFleet(policyDoc("placer", "", "", ""))...); len(diags) != 0 {
		t.Errorf("busy policy: %v", diags)
	}
}

// TestRenderErrorReportedOncePerProblem: a template that fails on every target of a cluster type is
// one error listing the targets, not one error per target.
func TestRenderErrorReportedOncePerProblem(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", nil, "broken", "ns", "cfg"),
		registrationDoc("app", "team"),
		workloadDoc("app", "", nil,
			targetSpec{name: "a", env: "dev"}, targetSpec{name: "b", env: "dev"}, targetSpec{name: "c", env: "dev"}),
		policyDoc("all", "", "", ""),
		templateDoc("broken", "reconciler", "", "{{ fail \"no reconciler for this cluster type\" }}"),
	}
	docs = append(docs, simpleTemplates...)
	_, diags := NewEngine().Render("dev", docs, Options{})
	errs := diags.Errors()
	if len(errs) != 1 {
		t.Fatalf("want one error, got %d: %v", len(errs), errs)
	}
	d := errs[0]
	if d.Summary != "Template failed" || d.Kind != model.KindClusterType || d.Name != "large" || d.Field != "spec.reconciler" {
		t.Errorf("diagnostic = %+v", d)
	}
	for _, want := range []string{`3 deployment targets on cluster type "large" ("app-a", "app-b", "app-c")`, `Template "broken"`, "no reconciler for this cluster type"} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("detail %q lacks %q", d.Detail, want)
		}
	}
}

// A reconciler typo on three cluster types (say a Template renamed under them) is one error, about the
// first cluster type's manifest, naming the three and every assignment, not one error per cluster type.
func TestRenderMissingTemplate_OnceForEveryClusterTypeThatNamesIt(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("a", nil, "arc-flx", "ns", "cfg"),
		clusterTypeDoc("b", nil, "arc-flx", "ns", "cfg"),
		clusterTypeDoc("c", nil, "arc-flx", "ns", "cfg"),
		clusterTypeDoc("d", nil, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
	}, simpleTemplates...)
	_, diags := NewEngine().Render("dev", docs, Options{})
	want := model.Diagnostics{{
		Severity: model.SeverityError, Summary: "Missing template", Source: model.Source{Input: 0, Document: 0, Line: 1},
		Kind: model.KindClusterType, Name: "a", Field: "spec.reconciler",
		Detail: `3 assignments ("a/app-t", "b/app-t", "c/app-t"): template "arc-flx" is not in the input and is not built in; ` +
			`the reconciler templates are ` + reconcilerTemplateNames("rec") + ` (did you mean "arc-flux"?). Add a Template named "arc-flx" of type reconciler, ` +
			`or change spec.reconciler to one of them (spec.reconciler of cluster types "a", "b", "c")`,
	}}
	if !reflect.DeepEqual(diags, want) {
		t.Errorf("diagnostics:\n%v\nwant:\n%v", diags, want)
	}
}

// A missing namespace template lists the namespace templates only, and suggests none when no name is
// within two edits of the typo.
func TestRenderMissingTemplate_ListsTheTemplatesOfItsType(t *testing.T) {
	t.Parallel()
	docs := append([]string{
		clusterTypeDoc("a", nil, "rec", "namespaces-v2", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
	}, simpleTemplates...)
	_, diags := NewEngine().Render("dev", docs, Options{})
	errs := diags.Errors()
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", diags)
	}
	want := `deployment target "app-t" on cluster type "a": template "namespaces-v2" is not in the input and is not built in; ` +
		`the namespace templates are "default", "ns". Add a Template named "namespaces-v2" of type namespace, or change spec.namespaceService to one of them`
	if errs[0].Detail != want || errs[0].Field != "spec.namespaceService" {
		t.Errorf("detail:\n%s\nwant:\n%s", errs[0].Detail, want)
	}
}

func TestNearestName(t *testing.T) {
	t.Parallel()
	names := []string{"arc-flux", "argocd", "flux", "flux2"}
	for typo, want := range map[string]string{"arc-flx": "arc-flux", "ARGOCD": "argocd", "argo-cd": "argocd", "flx": "", "helm": ""} {
		if got := nearestName(typo, names); got != want {
			t.Errorf("nearestName(%q) = %q, want %q", typo, got, want)
		}
	}
}

// TestWarningNonDeterministicTemplate: a template that calls uuidv4 or now renders other files every
// time; the warning names the template and the function.
func TestWarningNonDeterministicTemplate(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", "cfg"),
		registrationDoc("app", "team"),
		workloadDoc("app", "", nil, targetSpec{name: "func", env: "dev", labels: map[string]string{"purpose": "func"}}),
		policyDoc("all", "", "", ""),
		templateDoc("rec", "reconciler", "", "id: {{ uuidv4 }}\n"),
		templateDoc("ns", "namespace", "", "namespace {{ .Namespace }}\n", "at: {{ if true }}{{ now | date \"2006\" }}{{ end }}\n"),
		templateDoc("cfg", "config", "yaml", "{{ range $k, $v := .ConfigData }}{{ $k }}={{ $v }}\n{{ end }}"),
	}
	_, diags := mustRender(t, "dev", Options{}, docs...)
	got := map[string]string{}
	for _, d := range diags {
		if d.Summary == "Template output differs on every render" {
			got[d.Name] = d.Detail
		}
	}
	if len(got) != 2 || !strings.Contains(got["rec"], `template "rec" (manifests[0]) calls uuidv4`) || !strings.Contains(got["ns"], `template "ns" (manifests[1]) calls now`) {
		t.Errorf("warnings %v", got)
	}
	// The built-in and deterministic templates are quiet.
	if _, diags := mustRender(t, "dev", Options{}, warningFleet(policyDoc("all", "", "", ""))...); len(diags) != 0 {
		t.Errorf("deterministic templates: %v", diags)
	}
}
