// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/yaml"
)

func mustGenerate(t *testing.T, spec Spec) Fleet {
	t.Helper()
	f, err := Generate(spec)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", spec, err)
	}
	return f
}

func mustPreset(t *testing.T, name string) Fleet {
	t.Helper()
	spec, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return mustGenerate(t, spec)
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	spec, _ := Preset("1k")
	first, second := mustGenerate(t, spec), mustGenerate(t, spec)
	if first.MultiDocument() != second.MultiDocument() {
		t.Fatal("the same spec produced different YAML")
	}
	firstVars, err := first.TFVars()
	if err != nil {
		t.Fatal(err)
	}
	secondVars, err := second.TFVars()
	if err != nil {
		t.Fatal(err)
	}
	if string(firstVars) != string(secondVars) {
		t.Fatal("the same spec produced different tfvars")
	}

	spec.Seed++
	if other := mustGenerate(t, spec); other.MultiDocument() == first.MultiDocument() {
		t.Fatal("a different seed produced the same YAML")
	}
}

func TestGenerateProducesRequestedCounts(t *testing.T) {
	t.Parallel()
	spec := Spec{ClusterTypes: 7, Workloads: 5, TargetsPerWorkload: 12, Policies: 9, ConfigMaps: 13, Seed: 3, Environment: "stage"}
	f := mustGenerate(t, spec)

	kinds := map[string]int{}
	for _, d := range f.Documents {
		kinds[d.Kind]++
	}
	want := map[string]int{
		"ClusterType": 7, "Workload": 5, "WorkloadRegistration": 5, "SchedulingPolicy": 9,
		"ConfigMap": 13, "Template": 3, "BaseRepo": 1, "GitOpsRepo": 1,
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("document kinds = %v, want %v", kinds, want)
	}
	if f.Expected.DeploymentTargets != 5*12 {
		t.Errorf("deployment targets = %d, want 60", f.Expected.DeploymentTargets)
	}
	names := map[string]bool{}
	for _, w := range f.Workloads {
		for _, dt := range w.DeploymentTargets {
			name := w.Name + "-" + dt.Name
			if names[name] {
				t.Errorf("deployment target %s is not unique", name)
			}
			names[name] = true
			if dt.Environment != "stage" {
				t.Errorf("deployment target %s is in environment %q, want stage", name, dt.Environment)
			}
		}
	}
}

func TestGenerateRejectsInvalidSpec(t *testing.T) {
	t.Parallel()
	_, err := Generate(Spec{ClusterTypes: 0, Workloads: 1, TargetsPerWorkload: 1, Policies: 1, Breadth: 2})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"spec.ClusterTypes must be at least 1", "spec.Breadth must be in (0, 1]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// decoded is the part of a Kalypso object the tests compare with the model.
type decoded struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
	Spec json.RawMessage   `json:"spec"`
}

type decodedSelector struct {
	Workspace     string `json:"workspace"`
	LabelSelector struct {
		MatchLabels      map[string]string `json:"matchLabels"`
		MatchExpressions []struct {
			Key      string   `json:"key"`
			Operator string   `json:"operator"`
			Values   []string `json:"values"`
		} `json:"matchExpressions"`
	} `json:"labelSelector"`
}

func (d decodedSelector) selector() Selector {
	s := Selector{MatchLabels: d.LabelSelector.MatchLabels}
	for _, r := range d.LabelSelector.MatchExpressions {
		s.MatchExpressions = append(s.MatchExpressions, Requirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
	}
	return s
}

// TestDocumentsDecodeToTheModel checks that every document is valid YAML of
// the right kind and apiVersion, and that it says what the model says, since
// the expected counts are computed from the model.
func TestDocumentsDecodeToTheModel(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"1k", "quarter-5.7k", "tutorial-5.9k"} {
		t.Run(name, func(t *testing.T) { checkDocumentsDecodeToTheModel(t, mustPreset(t, name)) })
	}
}

func checkDocumentsDecodeToTheModel(t *testing.T, f Fleet) {
	clusterTypes := map[string]ClusterType{}
	for _, ct := range f.ClusterTypes {
		clusterTypes[ct.Name] = ct
	}
	policies := map[string]SchedulingPolicy{}
	for _, p := range f.Policies {
		policies[p.Name] = p
	}
	workloads := map[string]Workload{}
	for _, w := range f.Workloads {
		workloads[w.Name] = w
	}

	for _, doc := range f.Documents {
		var obj decoded
		if err := yaml.UnmarshalStrict([]byte(doc.YAML), &obj); err != nil {
			t.Fatalf("%s: %v\n%s", doc.Path, err, doc.YAML)
		}
		wantAPIVersion := "scheduler.kalypso.io/v1alpha1"
		if doc.Kind == "ConfigMap" {
			wantAPIVersion = "v1"
		}
		if obj.APIVersion != wantAPIVersion || obj.Kind != doc.Kind || obj.Metadata.Name != doc.Name {
			t.Errorf("%s: decoded %s %s %s, want %s %s %s", doc.Path, obj.APIVersion, obj.Kind, obj.Metadata.Name, wantAPIVersion, doc.Kind, doc.Name)
		}

		switch doc.Kind {
		case "ClusterType":
			if !reflect.DeepEqual(obj.Metadata.Labels, clusterTypes[doc.Name].Labels) {
				t.Errorf("%s: labels %v, want %v", doc.Path, obj.Metadata.Labels, clusterTypes[doc.Name].Labels)
			}
			var spec struct {
				Reconciler string `json:"reconciler"`
			}
			if err := json.Unmarshal(obj.Spec, &spec); err != nil {
				t.Fatalf("%s: %v", doc.Path, err)
			}
			if want := cmp.Or(clusterTypes[doc.Name].Reconciler, "arc-flux"); spec.Reconciler != want {
				t.Errorf("%s: reconciler %q, want %q", doc.Path, spec.Reconciler, want)
			}
		case "SchedulingPolicy":
			var spec struct {
				DeploymentTargetSelector decodedSelector `json:"deploymentTargetSelector"`
				ClusterTypeSelector      decodedSelector `json:"clusterTypeSelector"`
			}
			if err := json.Unmarshal(obj.Spec, &spec); err != nil {
				t.Fatalf("%s: %v", doc.Path, err)
			}
			want := policies[doc.Name]
			got := SchedulingPolicy{
				Name:                     doc.Name,
				Workspace:                spec.DeploymentTargetSelector.Workspace,
				DeploymentTargetSelector: spec.DeploymentTargetSelector.selector(),
				ClusterTypeSelector:      spec.ClusterTypeSelector.selector(),
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: decoded %+v, want %+v", doc.Path, got, want)
			}
		case "Workload":
			var spec struct {
				DeploymentTargets []DeploymentTarget `json:"deploymentTargets"`
			}
			if err := json.Unmarshal(obj.Spec, &spec); err != nil {
				t.Fatalf("%s: %v", doc.Path, err)
			}
			want := workloads[doc.Name]
			if !reflect.DeepEqual(spec.DeploymentTargets, want.DeploymentTargets) {
				t.Errorf("%s: targets %+v, want %+v", doc.Path, spec.DeploymentTargets, want.DeploymentTargets)
			}
			if !reflect.DeepEqual(obj.Metadata.Labels, want.Labels) {
				t.Errorf("%s: labels %v, want %v", doc.Path, obj.Metadata.Labels, want.Labels)
			}
			if want.Registration != want.Name && obj.Metadata.Annotations[RegistrationAnnotation] != want.Registration {
				t.Errorf("%s: annotations %v, want registration %s", doc.Path, obj.Metadata.Annotations, want.Registration)
			}
		case "ConfigMap":
			if obj.Metadata.Labels["platform-config"] != "true" {
				t.Errorf("%s: labels %v lack platform-config: \"true\"", doc.Path, obj.Metadata.Labels)
			}
		}
	}
}

func TestConfigMapNestedValuesParseAsStructure(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "1k")
	nested := 0
	for _, c := range f.PlatformConfigs {
		var obj decoded
		if err := yaml.Unmarshal([]byte(configMapYAML(c)), &obj); err != nil {
			t.Fatal(err)
		}
		for key, value := range c.Data {
			text := obj.Data[key]
			switch {
			case value.Map != nil:
				var got map[string]string
				if err := yaml.Unmarshal([]byte(text), &got); err != nil || !reflect.DeepEqual(got, value.Map) {
					t.Errorf("%s.%s = %q parses to %v (%v), want %v", c.Name, key, text, got, err, value.Map)
				}
				nested++
			case value.List != nil:
				var got []string
				if err := yaml.Unmarshal([]byte(text), &got); err != nil || !reflect.DeepEqual(got, value.List) {
					t.Errorf("%s.%s = %q parses to %v (%v), want %v", c.Name, key, text, got, err, value.List)
				}
				nested++
			default:
				if text != value.Scalar {
					t.Errorf("%s.%s = %q, want %q", c.Name, key, text, value.Scalar)
				}
			}
		}
	}
	if nested == 0 {
		t.Fatal("the 1k fleet has no nested config values")
	}
}

func TestTemplatesAreTheFixtureShapes(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "1k")
	var names []string
	for _, d := range f.Documents {
		if d.Kind == "Template" {
			names = append(names, d.Name)
		}
	}
	if want := []string{"arc-flux", "default", "configmap"}; !reflect.DeepEqual(names, want) {
		t.Errorf("templates %v, want %v", names, want)
	}
	if !strings.HasSuffix(configMapTemplate, "{{ toYaml .ConfigData | indent 2}}") {
		t.Errorf("the config template lost its fixture ending: %q", configMapTemplate)
	}
}

func TestMultiDocumentSplitsBackIntoManifests(t *testing.T) {
	t.Parallel()
	checkMultiDocumentSplitsBack(t, mustPreset(t, "1k"))
}

func checkMultiDocumentSplitsBack(t *testing.T, f Fleet) {
	t.Helper()
	var got []string
	var current strings.Builder
	for _, line := range strings.SplitAfter(f.MultiDocument(), "\n") {
		if line == "---\n" {
			got = append(got, current.String())
			current.Reset()
			continue
		}
		current.WriteString(line)
	}
	got = append(got, current.String())
	if !reflect.DeepEqual(got, f.Manifests()) {
		t.Fatal("splitting the stream at --- lines does not give back the documents")
	}
}

// TestExpectOnHandCheckedFleet exercises each selection rule once; the
// expected pairs are worked out by hand in the comments.
func TestExpectOnHandCheckedFleet(t *testing.T) {
	t.Parallel()
	clusterTypes := []ClusterType{
		{Name: "a", Labels: map[string]string{"region": "east", "size": "small"}},
		{Name: "b", Labels: map[string]string{"region": "west", "size": "large", "gpu": "yes"}},
		{Name: "c", Labels: map[string]string{"region": "west", "size": "small"}},
	}
	workloads := []Workload{
		{Name: "w1", Registration: "w1", Workspace: "ws1", Labels: map[string]string{"tier": "gold"}, DeploymentTargets: []DeploymentTarget{
			// The workload's tier overrides silver.
			{Name: "t1", Environment: "dev", Labels: map[string]string{"purpose": "test", "tier": "silver"}},
			{Name: "t2", Environment: "dev", Labels: map[string]string{"purpose": "prod"}},
			// Another environment: not a deployment target here.
			{Name: "t3", Environment: "stage", Labels: map[string]string{"purpose": "test"}},
		}},
		{Name: "w2", Registration: "w2-registration", Workspace: "ws2", DeploymentTargets: []DeploymentTarget{
			{Name: "t1", Environment: "dev", Labels: map[string]string{"purpose": "test", "critical": "true"}},
			{Name: "t2", Environment: "dev", Labels: map[string]string{"purpose": "prod"}},
		}},
	}
	policies := []SchedulingPolicy{
		// w1-t1, w1-t2 x a, c: 4 pairs.
		{Name: "gold-on-small",
			DeploymentTargetSelector: Selector{MatchLabels: map[string]string{"tier": "gold"}},
			ClusterTypeSelector:      Selector{MatchLabels: map[string]string{"size": "small"}}},
		// w2-t1 x b: 1 pair.
		{Name: "critical-ws2-on-gpu", Workspace: "ws2",
			DeploymentTargetSelector: Selector{MatchExpressions: []Requirement{{Key: "critical", Operator: OperatorExists}}},
			ClusterTypeSelector:      Selector{MatchExpressions: []Requirement{{Key: "gpu", Operator: OperatorExists}}}},
		// w1-t1 x b, c: (w1-t1, c) is already selected, so 1 new pair.
		{Name: "non-critical-tests-outside-east",
			DeploymentTargetSelector: Selector{MatchExpressions: []Requirement{
				{Key: "critical", Operator: OperatorDoesNotExist},
				{Key: "purpose", Operator: OperatorIn, Values: []string{"test"}},
			}},
			ClusterTypeSelector: Selector{MatchExpressions: []Requirement{{Key: "region", Operator: OperatorNotIn, Values: []string{"east"}}}}},
		// The only critical target is in ws2: nothing.
		{Name: "critical-ws1", Workspace: "ws1",
			DeploymentTargetSelector: Selector{MatchExpressions: []Requirement{{Key: "critical", Operator: OperatorExists}}}},
	}

	got := Expect("dev", clusterTypes, workloads, policies)
	// w2-t2 is selected by nothing.
	want := Expectation{DeploymentTargets: 4, Assignments: 6, UnscheduledDeploymentTargets: 1}
	if got != want {
		t.Errorf("Expect = %+v, want %+v", got, want)
	}

	targets := EffectiveTargets("dev", workloads)
	var pairs []string
	for _, p := range Assignments(targets, clusterTypes, policies) {
		pairs = append(pairs, targets[p.Target].Name+"/"+clusterTypes[p.ClusterType].Name)
	}
	wantPairs := []string{"w1-t1/a", "w1-t1/b", "w1-t1/c", "w1-t2/a", "w1-t2/c", "w2-t1/b"}
	if !reflect.DeepEqual(pairs, wantPairs) {
		t.Errorf("pairs %v, want %v", pairs, wantPairs)
	}
	wantLabels := map[string]string{"purpose": "test", "tier": "gold", "workload": "w1", "workspace": "ws1"}
	if !reflect.DeepEqual(targets[0].Labels, wantLabels) {
		t.Errorf("w1-t1 labels %v, want %v", targets[0].Labels, wantLabels)
	}
}

// TestSelectorMatchesAgreesWithApimachinery checks the reference matcher
// against Kubernetes' own on every selector and object of a fleet.
func TestSelectorMatchesAgreesWithApimachinery(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "10k")
	operators := map[string]selection.Operator{
		OperatorIn: selection.In, OperatorNotIn: selection.NotIn,
		OperatorExists: selection.Exists, OperatorDoesNotExist: selection.DoesNotExist,
	}
	kubernetesSelector := func(s Selector) labels.Selector {
		sel := labels.SelectorFromSet(s.MatchLabels)
		for _, r := range s.MatchExpressions {
			req, err := labels.NewRequirement(r.Key, operators[r.Operator], r.Values)
			if err != nil {
				t.Fatal(err)
			}
			sel = sel.Add(*req)
		}
		return sel
	}
	targets := EffectiveTargets(f.Spec.Environment, f.Workloads)
	checked := 0
	for _, p := range f.Policies {
		targetSel, clusterSel := kubernetesSelector(p.DeploymentTargetSelector), kubernetesSelector(p.ClusterTypeSelector)
		for _, dt := range targets {
			if got, want := p.DeploymentTargetSelector.Matches(dt.Labels), targetSel.Matches(labels.Set(dt.Labels)); got != want {
				t.Errorf("%s on %s: Matches = %v, apimachinery says %v", p.Name, dt.Name, got, want)
			}
			checked++
		}
		for _, ct := range f.ClusterTypes {
			if got, want := p.ClusterTypeSelector.Matches(ct.Labels), clusterSel.Matches(labels.Set(ct.Labels)); got != want {
				t.Errorf("%s on %s: Matches = %v, apimachinery says %v", p.Name, ct.Name, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("nothing was checked")
	}
}

// TestPresetAssignmentCounts pins the counts documented in presets.go and
// benchmarks/README.md, so a change to the generator that moves them is seen.
func TestPresetAssignmentCounts(t *testing.T) {
	t.Parallel()
	want := map[string]Expectation{
		"1k":   {DeploymentTargets: 100, Assignments: 1029, UnscheduledDeploymentTargets: 5},
		"10k":  {DeploymentTargets: 200, Assignments: 9737, UnscheduledDeploymentTargets: 2},
		"100k": {DeploymentTargets: 500, Assignments: 97938},
		"86k":  {DeploymentTargets: 450, Assignments: 86485},

		"quarter-5.7k":         {DeploymentTargets: 150, Assignments: 5675},
		"quarter-86k":          {DeploymentTargets: 435, Assignments: 85618},
		"tutorial-5.9k":        {DeploymentTargets: 260, Assignments: 5908, UnscheduledDeploymentTargets: 73},
		"upstream-5.8k":        {DeploymentTargets: 450, Assignments: 5639, UnscheduledDeploymentTargets: 111},
		"upstream-nested-5.8k": {DeploymentTargets: 450, Assignments: 5639, UnscheduledDeploymentTargets: 111},
		"costlier-86k":         {DeploymentTargets: 450, Assignments: 90332},
		"scale-300k":           {DeploymentTargets: 550, Assignments: 300539},
		"scale-1m":             {DeploymentTargets: 1000, Assignments: 1000000},
	}
	for _, name := range PresetNames() {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && (name == "100k" || name == "86k" || name == "quarter-86k" || name == "costlier-86k" || strings.HasPrefix(name, "scale-")) {
				t.Skip("large preset")
			}
			f := mustPreset(t, name)
			if f.Expected != want[name] {
				t.Errorf("Expected = %+v, want %+v", f.Expected, want[name])
			}
			if name == "86k" && (len(f.ClusterTypes) != 300 || f.Expected.DeploymentTargets != 450 || len(f.Policies) != 60) {
				t.Errorf("86k is %d cluster types x %d targets x %d policies, want 300 x 450 x 60",
					len(f.ClusterTypes), f.Expected.DeploymentTargets, len(f.Policies))
			}
		})
	}
}

func TestPresetRejectsUnknownSize(t *testing.T) {
	t.Parallel()
	if _, err := Preset("2k"); err == nil || !strings.Contains(err.Error(), "10k") {
		t.Errorf("Preset(2k) error = %v, want one listing the known sizes", err)
	}
}

func TestTFVarsCarryTheModel(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "1k")
	data, err := f.TFVars()
	if err != nil {
		t.Fatal(err)
	}
	var vars struct {
		Environment  string `json:"environment"`
		ClusterTypes []struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"cluster_types"`
		Workloads []struct {
			DeploymentTargets []json.RawMessage `json:"deployment_targets"`
		} `json:"workloads"`
		SchedulingPolicies []struct {
			ClusterTypeSelector struct {
				MatchLabels      map[string]string `json:"match_labels"`
				MatchExpressions []json.RawMessage `json:"match_expressions"`
			} `json:"cluster_type_selector"`
		} `json:"scheduling_policies"`
		PlatformConfigs []struct {
			Labels map[string]string `json:"labels"`
			Data   map[string]any    `json:"data"`
		} `json:"platform_configs"`
		ExpectedAssignments int `json:"expected_assignments"`
	}
	if err := json.Unmarshal(data, &vars); err != nil {
		t.Fatal(err)
	}
	if vars.Environment != "dev" || len(vars.ClusterTypes) != 20 || len(vars.Workloads) != 25 ||
		len(vars.SchedulingPolicies) != 8 || len(vars.PlatformConfigs) != 12 || vars.ExpectedAssignments != 1029 {
		t.Errorf("tfvars environment %q, %d cluster types, %d workloads, %d policies, %d configs, %d expected",
			vars.Environment, len(vars.ClusterTypes), len(vars.Workloads), len(vars.SchedulingPolicies), len(vars.PlatformConfigs), vars.ExpectedAssignments)
	}
	for _, p := range vars.SchedulingPolicies {
		// HCL's for expressions fail on null, so collections are never null.
		if p.ClusterTypeSelector.MatchLabels == nil || p.ClusterTypeSelector.MatchExpressions == nil {
			t.Errorf("a selector has a null collection: %+v", p.ClusterTypeSelector)
		}
	}
	global := vars.PlatformConfigs[0]
	if global.Labels["platform-config"] != "true" {
		t.Errorf("config labels %v lack platform-config", global.Labels)
	}
	if resources, ok := global.Data["resources"].(map[string]any); !ok || resources["cpu"] != "100m" {
		t.Errorf("resources = %#v, want a native object", global.Data["resources"])
	}
	if registries, ok := global.Data["allowedRegistries"].([]any); !ok || len(registries) != 2 {
		t.Errorf("allowedRegistries = %#v, want a native list", global.Data["allowedRegistries"])
	}
}

func TestWriteDirWritesEveryDocument(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "1k")
	dir := t.TempDir()
	if err := f.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteTFVars(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Documents {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != d.YAML {
			t.Errorf("%s differs from the document", d.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, TFVarsFileName)); err != nil {
		t.Error(err)
	}
}

// The quarter-configs shape promises single-label config maps that each select about a quarter of
// the cluster types, and enough of them that every cluster type composes several.
func TestQuarterConfigsEachMatchAQuarterOfTheClusterTypes(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "quarter-5.7k")
	if n := len(f.PlatformConfigs); n < 24 || n > 48 {
		t.Fatalf("%d config maps, want a few dozen", n)
	}
	perClusterType := map[string]int{}
	for _, c := range f.PlatformConfigs {
		if len(c.Labels) != 1 {
			t.Errorf("%s has labels %v, want exactly one", c.Name, c.Labels)
		}
		matched := 0
		for _, ct := range f.ClusterTypes {
			// The only label is a cluster type label, so matching is plain equality.
			if (Selector{MatchLabels: c.Labels}).Matches(ct.Labels) {
				matched++
				perClusterType[ct.Name]++
			}
		}
		if share := float64(matched) / float64(len(f.ClusterTypes)); share < 0.1 || share > 0.4 {
			t.Errorf("%s (%v) matches %d of %d cluster types, want about a quarter", c.Name, c.Labels, matched, len(f.ClusterTypes))
		}
	}
	for _, ct := range f.ClusterTypes {
		if perClusterType[ct.Name] < 4 {
			t.Errorf("cluster type %s composes %d config maps, want several", ct.Name, perClusterType[ct.Name])
		}
	}
}

func TestTutorialShapeUsesTheTutorialTemplatesAndConfigs(t *testing.T) {
	t.Parallel()
	f := mustPreset(t, "tutorial-5.9k")
	var templates []string
	for _, d := range f.Documents {
		if d.Kind == "Template" {
			templates = append(templates, d.Name)
		}
	}
	if want := []string{"arc-flux", "argocd", "default", "configmap"}; !reflect.DeepEqual(templates, want) {
		t.Errorf("templates %v, want %v", templates, want)
	}
	fixture, err := os.ReadFile("../../../examples/tutorial/templates/argocd-0.yaml.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	// The Template document carries the example's manifest, indented as a literal block.
	for _, line := range strings.Split(strings.TrimRight(string(fixture), "\n"), "\n") {
		if !strings.Contains(argoCDTemplate, line) {
			t.Errorf("the argocd template lacks the tutorial's line %q", line)
		}
	}
	argo, configs := 0, map[string]bool{}
	for _, ct := range f.ClusterTypes {
		if ct.Reconciler == "argocd" {
			argo++
			if ct.Labels["size"] != "small" {
				t.Errorf("%s is reconciled by Argo CD but is not small: %v", ct.Name, ct.Labels)
			}
		}
	}
	for _, c := range f.PlatformConfigs {
		configs[c.Name] = true
	}
	if argo == 0 || argo == len(f.ClusterTypes) {
		t.Errorf("%d of %d cluster types use argocd, want some", argo, len(f.ClusterTypes))
	}
	for _, name := range []string{"dev-config", "east-us-config", "west-us-config", "restricted-config", f.ClusterTypes[0].Name + "-config"} {
		if !configs[name] {
			t.Errorf("no config map %s", name)
		}
	}
	if _, err := f.TFVars(); err == nil {
		t.Error("TFVars of the tutorial shape succeeded; the HCL baseline cannot render argocd")
	}
	checkMultiDocumentSplitsBack(t, f)
}

// The delivery benchmarks add OneMoreAssignment's policy to the 86k and quarter-5.7k fleets.
func TestOneMoreAssignmentOnTheBenchmarkFleets(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"quarter-5.7k", "86k"} {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "86k" {
				t.Skip("large preset")
			}
			f := mustPreset(t, name)
			doc, err := f.OneMoreAssignment()
			if err != nil {
				t.Fatal(err)
			}
			var obj decoded
			if err := yaml.UnmarshalStrict([]byte(doc.YAML), &obj); err != nil || obj.Kind != "SchedulingPolicy" || obj.Metadata.Name != doc.Name {
				t.Fatalf("%v: %+v\n%s", err, obj, doc.YAML)
			}
			for _, p := range f.Policies {
				if p.Name == doc.Name {
					t.Fatalf("the fleet already has a policy named %s", doc.Name)
				}
			}
		})
	}
	// The tutorial's cluster types share label sets, so no policy can select exactly one of them.
	if _, err := mustPreset(t, "tutorial-5.9k").OneMoreAssignment(); err == nil {
		t.Error("tutorial-5.9k: want an error")
	}
}

// Issue 22's delivery change adds one cluster type and one policy; their assignments must add up, so
// that the benchmark can check the count after the change.
func TestOneMoreClusterTypeAndPolicyOnTheBenchmarkFleets(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"quarter-5.7k", "costlier-86k", "86k"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && name != "quarter-5.7k" {
				t.Skip("large preset")
			}
			f := mustPreset(t, name)
			doc, added, err := f.OneMoreClusterType()
			if err != nil {
				t.Fatal(err)
			}
			var obj decoded
			if err := yaml.UnmarshalStrict([]byte(doc.YAML), &obj); err != nil || obj.Kind != "ClusterType" || obj.Metadata.Name != doc.Name {
				t.Fatalf("%v: %+v\n%s", err, obj, doc.YAML)
			}
			if added <= 0 {
				t.Fatalf("the new cluster type adds %d assignments", added)
			}
			policy, err := f.oneMorePolicy()
			if err != nil {
				t.Fatal(err)
			}
			var twin ClusterType
			for _, ct := range f.ClusterTypes {
				if ct.Name == doc.Name {
					t.Fatalf("the fleet already has a cluster type named %s", doc.Name)
				}
				if clusterTypeYAML(ClusterType{Name: doc.Name, Labels: ct.Labels, Reconciler: ct.Reconciler}) == doc.YAML {
					twin = ClusterType{Name: doc.Name, Labels: ct.Labels, Reconciler: ct.Reconciler}
				}
			}
			if twin.Name == "" {
				t.Fatal("the new cluster type copies no cluster type of the fleet")
			}
			before := Expect(f.Spec.Environment, f.ClusterTypes, f.Workloads, f.Policies).Assignments
			after := Expect(f.Spec.Environment, append(slices.Clip(f.ClusterTypes), twin), f.Workloads, append(slices.Clip(f.Policies), policy)).Assignments
			if after != before+added+1 {
				t.Fatalf("both changes: %d assignments, want %d + %d + 1", after, before, added)
			}
		})
	}
}

// TestTemplatedConfigsOnlyAddTemplatedValues: a share of config maps gains template-action values and
// nothing else changes, so that the feature's benchmark compares like with like.
func TestTemplatedConfigsOnlyAddTemplatedValues(t *testing.T) {
	t.Parallel()
	plainSpec, err := Preset("upstream-5.8k")
	if err != nil {
		t.Fatal(err)
	}
	nestedSpec, err := Preset("upstream-nested-5.8k")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Generate(plainSpec)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := Generate(nestedSpec)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.PlatformConfigs) != len(nested.PlatformConfigs) {
		t.Fatalf("%d config maps, the plain fleet has %d", len(nested.PlatformConfigs), len(plain.PlatformConfigs))
	}
	greetings, routes := 0, 0
	for i, cfg := range nested.PlatformConfigs {
		for key, value := range cfg.Data {
			switch key {
			case "GREETING":
				greetings++
				if value.Scalar != templatedGreeting {
					t.Errorf("%s: GREETING = %q", cfg.Name, value.Scalar)
				}
			case "ROUTE":
				routes++
				if value.Scalar != templatedRoute {
					t.Errorf("%s: ROUTE = %q", cfg.Name, value.Scalar)
				}
			default:
				if !reflect.DeepEqual(value, plain.PlatformConfigs[i].Data[key]) {
					t.Errorf("%s: %s = %v, the plain fleet has %v", cfg.Name, key, value, plain.PlatformConfigs[i].Data[key])
				}
			}
		}
	}
	if greetings != 9 || routes != 5 {
		t.Errorf("%d GREETING and %d ROUTE values, want 9 (30 %% of 30 config maps) and 5", greetings, routes)
	}
	if !strings.Contains(nested.PlatformConfigs[0].Name, "dev-config") || nested.PlatformConfigs[0].Data["GREETING"].Scalar == "" {
		t.Errorf("the environment-wide config map %s has no GREETING: most assignments would not meet the feature", nested.PlatformConfigs[0].Name)
	}
}
