// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package resources

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/workloadsource"
)

// roundTrip marshals obj with Manifest, parses it back with model.Parse and returns the single object.
func roundTrip(t *testing.T, obj model.Object) model.Object {
	t.Helper()
	text, err := Manifest(obj)
	if err != nil {
		t.Fatal(err)
	}
	set, diags := model.Parse([]string{text})
	if diags.HasError() {
		t.Fatalf("manifest does not parse: %v\n%s", diags, text)
	}
	var all []model.Object
	for _, o := range set.ClusterTypes {
		all = append(all, o)
	}
	for _, o := range set.SchedulingPolicies {
		all = append(all, o)
	}
	for _, o := range set.Templates {
		all = append(all, o)
	}
	for _, o := range set.ConfigMaps {
		all = append(all, o)
	}
	for _, o := range set.ConfigSchemas {
		all = append(all, o)
	}
	for _, o := range set.WorkloadRegistrations {
		all = append(all, o)
	}
	for _, o := range set.Workloads {
		all = append(all, o)
	}
	if len(all) != 1 {
		t.Fatalf("want one object, got %d from\n%s", len(all), text)
	}
	return all[0]
}

func TestManifestRoundTrip(t *testing.T) {
	t.Parallel()
	objects := map[string]model.Object{
		"cluster type":                   ClusterType("drone", map[string]string{"region": "east-us", "edge": "true"}, "", "", ""),
		"cluster type, custom templates": ClusterType("small", nil, "argocd", "ns", "sh-config"),
		"scheduling policy": SchedulingPolicy("functional-test-policy", "kaizen-app-team",
			Selector{MatchLabels: map[string]string{"purpose": "functional-test", "edge": "true"}},
			Selector{
				MatchLabels: map[string]string{"restricted": "true"},
				MatchExpressions: []Requirement{
					{Key: "size", Operator: "In", Values: []string{"large", "medium"}},
					{Key: "edge", Operator: "DoesNotExist"},
				},
			}),
		"empty scheduling policy": SchedulingPolicy("everything", "", Selector{}, Selector{}),
		"template": Template("arc-flux", "reconciler", "", []string{
			"apiVersion: v1\nkind: GitRepository\nmetadata:\n  name: \"{{ .DeploymentTargetName}}\"\nspec:\n  secretRef:\n      name: repo-secret    \n",
			"            \nkind: Kustomization\n",
		}),
		"sh template":      Template("sh", "config", "sh", []string{"export A={{ .ConfigData.A }}"}),
		"platform config":  PlatformConfig("dev-config", map[string]string{"region": "west-us"}, map[string]string{"ENVIRONMENT": "Dev", "FLAG": "false", "MULTI": "a: b\nc: d\n"}),
		"azure app config": PlatformConfig("azure-app-config-dev", nil, map[string]string{"region.west-us.KEY": "v"}),
		"config schema":    ConfigSchema("region-required", map[string]string{"region": "east-us"}, `{"type":"object","required":["REGION"]}`),
		"registration": Registration("hello-world-app", "kaizen-app-team", map[string]string{"type": "application"},
			model.RepoRef{Repo: "https://github.com/microsoft/kalypso-app-src", Branch: "main", Path: "workload/"}),
		"inline workload": InlineWorkload("inline-app", map[string]string{"family": "force"}, []Target{
			{Name: "functional-test", Environment: "dev", Labels: map[string]string{"purpose": "functional-test"},
				Manifests: model.RepoRef{Repo: "https://example.com/app-gitops", Branch: "dev", Path: "./functional-test"}},
			{Name: "uat", Environment: "stage", Manifests: model.RepoRef{Repo: "https://example.com/app-gitops", Branch: "stage", Path: "."}},
		}),
	}
	for name, obj := range objects {
		t.Run(name, func(t *testing.T) {
			got := roundTrip(t, obj)
			if !reflect.DeepEqual(got, obj) {
				t.Fatalf("round trip changed the object:\n got %#v\nwant %#v", got, obj)
			}
		})
	}
}

// Upstream's SchedulingPolicy CRD requires spec.clusterTypeSelector.labelSelector and
// spec.deploymentTargetSelector.labelSelector, so an empty selector is written as `{}`, never left out.
func TestSchedulingPolicyAlwaysWritesLabelSelectors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		policy *model.SchedulingPolicy
		want   string
	}{
		"no selectors": {SchedulingPolicy("everything", "", Selector{}, Selector{}),
			"spec:\n  clusterTypeSelector:\n    labelSelector: {}\n  deploymentTargetSelector:\n    labelSelector: {}\n"},
		"only a workspace": {SchedulingPolicy("team", "kaizen", Selector{MatchLabels: map[string]string{}}, Selector{}),
			"spec:\n  clusterTypeSelector:\n    labelSelector: {}\n  deploymentTargetSelector:\n    labelSelector: {}\n    workspace: kaizen\n"},
		"one side set": {SchedulingPolicy("large", "", Selector{}, Selector{MatchLabels: map[string]string{"size": "large"}}),
			"spec:\n  clusterTypeSelector:\n    labelSelector:\n      matchLabels:\n        size: large\n  deploymentTargetSelector:\n    labelSelector: {}\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			text, err := Manifest(c.policy)
			if err != nil {
				t.Fatal(err)
			}
			want := "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n  name: " + c.policy.Metadata.Name + "\n" + c.want
			if text != want {
				t.Errorf("manifest =\n%s\nwant\n%s", text, want)
			}
		})
	}
}

func TestClusterTypeDefaults(t *testing.T) {
	t.Parallel()
	ct := ClusterType("large", nil, "", "", "")
	if ct.Spec.Reconciler != "arc-flux" || ct.Spec.NamespaceService != "default" || ct.Spec.ConfigType != "configmap" {
		t.Fatalf("defaults not applied: %+v", ct.Spec)
	}
}

func TestPlatformConfigLabel(t *testing.T) {
	t.Parallel()
	if got := PlatformConfig("dev-config", nil, nil).Metadata.Labels["platform-config"]; got != "true" {
		t.Errorf("platform-config label = %q, want \"true\"", got)
	}
	if _, ok := PlatformConfig("azure-app-config-x", nil, nil).Metadata.Labels["platform-config"]; ok {
		t.Error("an azure-app-config map must not get the platform-config label")
	}
}

func TestManifestStartsWithHeader(t *testing.T) {
	t.Parallel()
	text, err := Manifest(ClusterType("drone", nil, "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "apiVersion: scheduler.kalypso.io/v1alpha1\n") || !strings.Contains(text, "kind: ClusterType\n") {
		t.Fatalf("manifest lacks its header:\n%s", text)
	}
}

func TestJoinKeepsSeparatorOnItsOwnLine(t *testing.T) {
	t.Parallel()
	if got := Join("a: 1", "b: 2\n"); got != "a: 1\n---\nb: 2\n" {
		t.Fatalf("Join = %q", got)
	}
}

const sourcedWorkload = `apiVersion: scheduler.kalypso.io/v1alpha1
kind: Workload
metadata:
  name: observability
  labels:
    stack: observability
spec:
  deploymentTargets:
    - name: prometheus
      labels:
        tier: infra
        stack: overridden
      environment: dev
      manifests:
        repo: https://github.com/microsoft/kalypso-svc-gitops
        branch: dev
        path: ./prometheus
    - name: prometheus-stage
      environment: stage
      manifests:
        repo: https://github.com/microsoft/kalypso-svc-gitops
        branch: stage
        path: ./prometheus
`

// The sourced Workload has a different name from its registration: the manifest must carry the
// registration annotation so that the engine links them, and the targets get the effective labels.
func TestSourcedWorkloadLinksAndDerivesTargets(t *testing.T) {
	t.Parallel()
	// What workloadsource.FetchDocuments returns for a repository holding sourcedWorkload (its own tests
	// read such repositories): the document, linked to the registration.
	linked, err := workloadsource.Link(sourcedWorkload, "platform-svc")
	if err != nil {
		t.Fatal(err)
	}
	workloads, err := DecodeWorkloads([]workloadsource.Document{{File: "workload.yaml", Index: 0, Line: 1, Name: "observability", Text: linked}})
	if err != nil {
		t.Fatal(err)
	}
	if len(workloads) != 1 {
		t.Fatalf("want 1 workload, got %d", len(workloads))
	}
	reg := Registration("platform-svc", "platform-team", nil, model.RepoRef{Repo: "https://github.com/microsoft/kalypso-svc-src", Branch: "main", Path: "./workloads"})
	manifest, err := RegistrationManifest(reg, workloads)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(manifest, "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: WorkloadRegistration\n") || !strings.Contains(manifest, "\n---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\n") {
		t.Fatalf("manifest does not hold the registration and the workload:\n%s", manifest)
	}
	set, diags := model.Parse([]string{manifest})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if len(set.Workloads) != 1 || !reflect.DeepEqual(set.Workloads[0], workloads[0]) {
		t.Fatalf("workload does not round trip: %#v", set.Workloads)
	}
	if got := set.Workloads[0].Metadata.Annotations[model.RegistrationAnnotation]; got != "platform-svc" {
		t.Fatalf("registration annotation = %q, want platform-svc", got)
	}

	targets, err := DeploymentTargets(set.WorkloadRegistrations[0], set.Workloads)
	if err != nil {
		t.Fatal(err)
	}
	want := []DeploymentTarget{
		{Name: "observability-prometheus", Target: "prometheus", Workload: "observability", Workspace: "platform-team", Environment: "dev",
			Labels:    map[string]string{"tier": "infra", "stack": "observability", "workload": "observability", "workspace": "platform-team"},
			Manifests: model.RepoRef{Repo: "https://github.com/microsoft/kalypso-svc-gitops", Branch: "dev", Path: "./prometheus"}},
		{Name: "observability-prometheus-stage", Target: "prometheus-stage", Workload: "observability", Workspace: "platform-team", Environment: "stage",
			Labels:    map[string]string{"stack": "observability", "workload": "observability", "workspace": "platform-team"},
			Manifests: model.RepoRef{Repo: "https://github.com/microsoft/kalypso-svc-gitops", Branch: "stage", Path: "./prometheus"}},
	}
	if !reflect.DeepEqual(targets, want) {
		t.Fatalf("targets:\n got %+v\nwant %+v", targets, want)
	}
}

func TestDecodeWorkloadsReportsInvalidDocument(t *testing.T) {
	t.Parallel()
	docs := []workloadsource.Document{{File: "w.yaml", Index: 0, Name: "x", Text: "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: Bad_Name\nspec: {}\n"}}
	_, err := DecodeWorkloads(docs)
	if err == nil || !strings.Contains(err.Error(), "w.yaml") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}
