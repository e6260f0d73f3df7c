// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

func scheduleNames(t *testing.T, docs ...string) ([]Assignment, model.Diagnostics) {
	t.Helper()
	set := parseSet(t, docs...)
	targets, diags := DeriveTargets("dev", set)
	if diags.HasError() {
		t.Fatalf("derive: %v", diags)
	}
	return Schedule("dev", set, targets)
}

func TestScheduleTargetSelector(t *testing.T) {
	t.Parallel()
	base := []string{
		clusterTypeDoc("ct", nil, "rec", "ns", ""),
		registrationDoc("w", "ws1"),
		registrationDoc("v", "ws2"),
		workloadDoc("w", "", nil,
			targetSpec{name: "a", env: "dev", labels: map[string]string{"tier": "front", "zone": "1"}},
			targetSpec{name: "b", env: "dev", labels: map[string]string{"tier": "back"}},
			targetSpec{name: "c", env: "dev"},
		),
		workloadDoc("v", "", nil, targetSpec{name: "a", env: "dev", labels: map[string]string{"tier": "front"}}),
	}
	cases := []struct {
		name      string
		workspace string
		selector  string
		want      []string
	}{
		{"absent selector matches all", "", "", []string{"v-a", "w-a", "w-b", "w-c"}},
		{"empty selector matches all", "", "{}", []string{"v-a", "w-a", "w-b", "w-c"}},
		{"matchLabels", "", "{matchLabels: {tier: front}}", []string{"v-a", "w-a"}},
		{"matchLabels on the derived workload label", "", "{matchLabels: {workload: w}}", []string{"w-a", "w-b", "w-c"}},
		{"matchLabels on the derived workspace label", "", "{matchLabels: {workspace: ws2}}", []string{"v-a"}},
		{"In", "", "{matchExpressions: [{key: tier, operator: In, values: [front, back]}]}", []string{"v-a", "w-a", "w-b"}},
		{"NotIn matches objects lacking the key", "", "{matchExpressions: [{key: tier, operator: NotIn, values: [front]}]}", []string{"w-b", "w-c"}},
		{"Exists", "", "{matchExpressions: [{key: tier, operator: Exists}]}", []string{"v-a", "w-a", "w-b"}},
		{"DoesNotExist matches objects lacking the key", "", "{matchExpressions: [{key: tier, operator: DoesNotExist}]}", []string{"w-c"}},
		{"labels and expressions are ANDed", "", "{matchLabels: {tier: front}, matchExpressions: [{key: zone, operator: Exists}]}", []string{"w-a"}},
		{"no match", "", "{matchLabels: {tier: none}}", nil},
		{"workspace filter", "ws1", "", []string{"w-a", "w-b", "w-c"}},
		{"workspace filter and selector", "ws1", "{matchLabels: {tier: front}}", []string{"w-a"}},
		{"workspace with no targets", "nope", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs := append(append([]string{}, base...), policyDoc("p", c.workspace, c.selector, ""))
			as, diags := scheduleNames(t, docs...)
			if len(diags) != 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			var got []string
			for _, a := range as {
				got = append(got, a.DeploymentTarget)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("selected %v, want %v", got, c.want)
			}
		})
	}
}

func TestScheduleClusterTypeSelector(t *testing.T) {
	t.Parallel()
	base := []string{
		clusterTypeDoc("large", map[string]string{"size": "large", "region": "west"}, "rec", "ns", ""),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", ""),
		clusterTypeDoc("bare", nil, "rec", "ns", ""),
		registrationDoc("w", "ws"),
		workloadDoc("w", "", nil, targetSpec{name: "t", env: "dev"}),
	}
	cases := []struct {
		selector string
		want     []string
	}{
		{"", []string{"bare", "large", "small"}},
		{"{}", []string{"bare", "large", "small"}},
		{"{matchLabels: {size: large}}", []string{"large"}},
		{"{matchExpressions: [{key: size, operator: NotIn, values: [large]}]}", []string{"bare", "small"}},
		{"{matchExpressions: [{key: region, operator: DoesNotExist}]}", []string{"bare", "small"}},
		{"{matchExpressions: [{key: size, operator: Exists}]}", []string{"large", "small"}},
		{"{matchExpressions: [{key: size, operator: In, values: [small, medium]}]}", []string{"small"}},
	}
	for _, c := range cases {
		t.Run(c.selector, func(t *testing.T) {
			as, _ := scheduleNames(t, append(append([]string{}, base...), policyDoc("p", "", "", c.selector))...)
			var got []string
			for _, a := range as {
				got = append(got, a.ClusterType)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("cluster types %v, want %v", got, c.want)
			}
		})
	}
}

func TestScheduleTwoPoliciesOnePair(t *testing.T) {
	t.Parallel()
	as, diags := scheduleNames(t,
		clusterTypeDoc("large", map[string]string{"size": "large"}, "rec", "ns", ""),
		clusterTypeDoc("small", map[string]string{"size": "small"}, "rec", "ns", ""),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev", labels: map[string]string{"purpose": "test"}}),
		// Declared out of name order on purpose.
		policyDoc("zeta", "", "{matchLabels: {purpose: test}}", "{matchLabels: {size: large}}"),
		policyDoc("alpha", "ws", "", ""),
	)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	want := []Assignment{
		{ClusterType: "large", DeploymentTarget: "app-t", Workload: "app", Workspace: "ws", SchedulingPolicies: []string{"alpha", "zeta"}, Namespace: "dev-large-app-t", Path: "large/app-t"},
		{ClusterType: "small", DeploymentTarget: "app-t", Workload: "app", Workspace: "ws", SchedulingPolicies: []string{"alpha"}, Namespace: "dev-small-app-t", Path: "small/app-t"},
	}
	if !reflect.DeepEqual(as, want) {
		t.Errorf("assignments =\n%+v\nwant\n%+v", as, want)
	}
}

func TestScheduleOrderAndInvalidSelector(t *testing.T) {
	t.Parallel()
	set := parseSet(t,
		clusterTypeDoc("b", nil, "rec", "ns", ""),
		clusterTypeDoc("a", nil, "rec", "ns", ""),
		registrationDoc("w", "ws"),
		workloadDoc("w", "", nil, targetSpec{name: "zz", env: "dev"}, targetSpec{name: "yy", env: "dev"}),
		policyDoc("p", "", "", ""),
	)
	targets, _ := DeriveTargets("dev", set)
	as, _ := Schedule("dev", set, targets)
	var got []string
	for _, a := range as {
		got = append(got, a.Path)
	}
	if want := []string{"a/w-yy", "a/w-zz", "b/w-yy", "b/w-zz"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// A selector that bypassed decoding validation is diagnosed, not a panic.
	set.SchedulingPolicies[0].Spec.ClusterTypeSelector.LabelSelector = nil
	set.SchedulingPolicies[0].Spec.DeploymentTargetSelector.LabelSelector = badSelector()
	_, diags := Schedule("dev", set, targets)
	d := findDiag(diags, "Invalid label selector")
	if d == nil || d.Kind != model.KindSchedulingPolicy || d.Name != "p" || d.Field != "spec.deploymentTargetSelector.labelSelector" || d.Severity != model.SeverityError {
		t.Errorf("diagnostic = %+v", diags)
	}
}

func TestDeriveTargets(t *testing.T) {
	t.Parallel()
	set := parseSet(t,
		registrationDoc("r1", "annotated-ws"),
		registrationDoc("w", "by-name-ws"),
		registrationDoc("byname", "byname-ws"),
		workloadDoc("w", "r1", map[string]string{"b": "workload", "c": "workload"},
			targetSpec{name: "t", env: "dev", labels: map[string]string{"a": "target", "b": "target", "workload": "fake", "workspace": "fake"}, schemas: []string{"S1", "S2"}},
			targetSpec{name: "stage-only", env: "stage"},
		),
		apiV+"kind: Workload\nmetadata:\n  name: byname\nspec:\n  configSchemas: [W1]\n  deploymentTargets:\n    - {name: t, environment: dev, manifests: {repo: r, branch: b, path: p}, configSchemas: [T1]}\n",
		workloadDoc("orphan", "", nil, targetSpec{name: "t", env: "dev"}),
	)
	targets, diags := DeriveTargets("dev", set)
	if diags.HasError() {
		t.Fatal(diags)
	}
	got := map[string]*DeploymentTarget{}
	var names []string
	for _, tg := range targets {
		got[tg.Name] = tg
		names = append(names, tg.Name)
	}
	if want := []string{"byname-t", "orphan-t", "w-t"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("targets %v, want %v (environment filter and name order)", names, want)
	}
	w := got["w-t"]
	wantLabels := map[string]string{"a": "target", "b": "workload", "c": "workload", "workload": "w", "workspace": "annotated-ws"}
	if !reflect.DeepEqual(w.Labels, wantLabels) {
		t.Errorf("labels = %v, want %v", w.Labels, wantLabels)
	}
	if w.Workspace != "annotated-ws" || w.Workload != "w" || w.Environment != "dev" || w.Manifests["path"] != "./t" || !reflect.DeepEqual(w.ConfigSchemas, []string{"S1", "S2"}) {
		t.Errorf("target = %+v", w)
	}
	b := got["byname-t"]
	if b.Workspace != "byname-ws" || b.Labels["workspace"] != "byname-ws" || !reflect.DeepEqual(b.ConfigSchemas, []string{"T1", "W1"}) {
		t.Errorf("by-name target = %+v", b)
	}
	o := got["orphan-t"]
	if v, ok := o.Labels["workspace"]; !ok || v != "" || o.Workspace != "" || o.Labels["workload"] != "orphan" {
		t.Errorf("orphan labels = %v", o.Labels)
	}
	warn := findDiag(diags, "Workload has no WorkloadRegistration")
	if warn == nil || warn.Severity != model.SeverityWarning || warn.Kind != model.KindWorkload || warn.Name != "orphan" || warn.Source.Input != 5 {
		t.Errorf("warning = %+v (all: %v)", warn, diags)
	}
	if len(diags) != 1 {
		t.Errorf("want exactly one diagnostic, got %v", diags)
	}
}

func TestDeriveTargetsErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 250)
	cases := []struct {
		name    string
		docs    []string
		summary string
		field   string
	}{
		{"annotation names a missing registration", []string{workloadDoc("w", "ghost", nil, targetSpec{name: "t", env: "dev"}), registrationDoc("w", "ws")},
			"Workload names a missing WorkloadRegistration", "metadata.annotations.scheduler.kalypso.io/registration"},
		{"two workloads derive the same target name", []string{
			workloadDoc("a-b", "", nil, targetSpec{name: "c", env: "dev"}),
			workloadDoc("a", "", nil, targetSpec{name: "b-c", env: "dev"}),
		}, "Duplicate deployment target", "spec.deploymentTargets[0].name"},
		{"derived name too long", []string{workloadDoc(long, "", nil, targetSpec{name: "target", env: "dev"})},
			"Invalid deployment target name", "spec.deploymentTargets[0].name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := DeriveTargets("dev", parseSet(t, c.docs...))
			d := findDiag(diags, c.summary)
			if d == nil || d.Severity != model.SeverityError || d.Kind != model.KindWorkload || d.Field != c.field || d.Detail == "" {
				t.Errorf("diagnostic %q missing or wrong: %+v", c.summary, diags)
			}
		})
	}
}

// The dense pair index (small fleets) and the sparse one (grids above denseIndexLimit) must find the
// same pairs and order them the same way: by cluster type rank, then target rank.
func TestPairIndexDenseAndSparseAgree(t *testing.T) {
	t.Parallel()
	ctRank := []uint32{2, 0, 1, 1} // two cluster types share a name, so a rank
	targetRank := []uint32{1, 0, 2}
	dense := newPairIndex(ctRank, targetRank)
	if dense.dense == nil {
		t.Fatal("a 3x3 grid got a sparse index")
	}
	sparse := &pairIndex{sparse: map[uint64]int{}}
	type pair struct{ ct, target uint32 }
	inserts := []pair{{2, 1}, {0, 2}, {1, 0}, {0, 0}, {2, 2}, {1, 1}}
	for i, p := range inserts {
		for _, x := range []*pairIndex{dense, sparse} {
			if _, ok := x.get(p.ct, p.target); ok {
				t.Fatalf("pair %v found before it was put", p)
			}
			x.put(p.ct, p.target, i)
			if got, ok := x.get(p.ct, p.target); !ok || got != i {
				t.Fatalf("get(%v) = %d, %v after put %d", p, got, ok, i)
			}
		}
	}
	// By (ct, target): (0,0)=3, (0,2)=1, (1,0)=2, (1,1)=5, (2,1)=0, (2,2)=4.
	want := []int{3, 1, 2, 5, 0, 4}
	for name, x := range map[string]*pairIndex{"dense": dense, "sparse": sparse} {
		if got := x.ordered(len(inserts)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s ordered = %v, want %v", name, got, want)
		}
	}
}
