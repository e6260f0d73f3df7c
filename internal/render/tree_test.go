// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"maps"
	"reflect"
	"testing"
)

// onlyFleet renders three cluster types of environment "dev": "web" and "web-eu" (whose name starts
// with "web", so a narrowing by name prefix would mix them) each get app-a and app-b; "db" gets nothing;
// app-lost matches no policy.
func onlyFleet(t *testing.T) *Result {
	t.Helper()
	docs := append([]string{
		clusterTypeDoc("db", map[string]string{"tier": "db"}, "rec", "ns", "cfg"),
		clusterTypeDoc("web", map[string]string{"tier": "web"}, "rec", "ns", "cfg"),
		clusterTypeDoc("web-eu", map[string]string{"tier": "web"}, "rec", "ns", "cfg"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil,
			targetSpec{name: "a", env: "dev", labels: map[string]string{"role": "front"}},
			targetSpec{name: "b", env: "dev", labels: map[string]string{"role": "front"}},
			targetSpec{name: "lost", env: "dev"}),
		policyDoc("p", "", "{matchLabels: {role: front}}", "{matchLabels: {tier: web}}"),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{"REGION": "west"}),
		apiV + "kind: BaseRepo\nmetadata:\n  name: main\nspec:\n  repo: r\n  branch: main\n  path: .\n  commit: c0ffee\n",
	}, simpleTemplates...)
	res, _ := mustRender(t, "dev", Options{}, docs...)
	return res
}

// folder is what the GitOps tree holds for cluster type ct (DESIGN.md §3, GitOps tree): its README.md
// and, per deployment target placed on it, the three files of simpleTemplates.
func folder(ct string, targets ...string) map[string]string {
	files := map[string]string{ct + "/README.md": "This folder contains deployment targets scheduled on the cluster type"}
	for _, dt := range targets {
		files[ct+"/"+dt+"/reconciler.yaml"] = "reconciler " + dt + " on " + ct + "\n"
		files[ct+"/"+dt+"/namespace.yaml"] = "namespace dev-" + ct + "-" + dt + "\n"
		files[ct+"/"+dt+"/platform-config.yaml"] = "REGION=west\n"
	}
	return files
}

func assignment(ct, dt string) Assignment {
	return Assignment{ClusterType: ct, DeploymentTarget: dt, Workload: "app", Workspace: "ws", SchedulingPolicies: []string{"p"},
		Namespace: "dev-" + ct + "-" + dt, Path: ct + "/" + dt}
}

// TestResultOnly: narrowing keeps exactly the named cluster types' folders and assignments, hashes just
// those files, and keeps what is environment-wide (cluster types, unscheduled targets, promoted commit).
func TestResultOnly(t *testing.T) {
	t.Parallel()
	res := onlyFleet(t)
	all := folder("db")
	maps.Copy(all, folder("web", "app-a", "app-b"))
	maps.Copy(all, folder("web-eu", "app-a", "app-b"))
	if !reflect.DeepEqual(res.Files, all) {
		t.Fatalf("full render files =\n%#v\nwant\n%#v", res.Files, all)
	}
	cases := []struct {
		name        string
		only        []string
		files       map[string]string
		assignments []Assignment
	}{
		{"one cluster type, not its name's prefixes", []string{"web"}, folder("web", "app-a", "app-b"),
			[]Assignment{assignment("web", "app-a"), assignment("web", "app-b")}},
		{"the longer name", []string{"web-eu"}, folder("web-eu", "app-a", "app-b"),
			[]Assignment{assignment("web-eu", "app-a"), assignment("web-eu", "app-b")}},
		{"a cluster type without assignments keeps its README", []string{"db"}, folder("db"), []Assignment{}},
		{"several, in any order, assignments in tree order", []string{"web-eu", "db", "web"}, all,
			[]Assignment{assignment("web", "app-a"), assignment("web", "app-b"), assignment("web-eu", "app-a"), assignment("web-eu", "app-b")}},
		{"a name twice counts once", []string{"web", "web"}, folder("web", "app-a", "app-b"),
			[]Assignment{assignment("web", "app-a"), assignment("web", "app-b")}},
		{"none", []string{}, map[string]string{}, []Assignment{}},
	}
	index := res.Index()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := res.Only(c.only)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, c.files) {
				t.Errorf("files =\n%#v\nwant\n%#v", got.Files, c.files)
			}
			if !reflect.DeepEqual(got.Assignments, c.assignments) {
				t.Errorf("assignments =\n%+v\nwant\n%+v", got.Assignments, c.assignments)
			}
			if got.ContentHash != ContentHash(c.files) {
				t.Errorf("content hash %q, want the hash of the narrowed files %q", got.ContentHash, ContentHash(c.files))
			}
			if !reflect.DeepEqual(got.ClusterTypes, []string{"db", "web", "web-eu"}) || !reflect.DeepEqual(got.Unscheduled, []string{"app-lost"}) ||
				got.Environment != "dev" || got.PromotedCommit != "c0ffee" {
				t.Errorf("environment-wide fields changed: %+v", got)
			}
			// The index narrows the same way, however often it is used.
			for range 2 {
				if again, err := index.Only(c.only); err != nil || !reflect.DeepEqual(again, got) {
					t.Errorf("TreeIndex.Only = %+v, %v; want %+v", again, err, got)
				}
			}
		})
	}
	if !reflect.DeepEqual(res.Files, all) || len(res.Assignments) != 4 || res.ContentHash != ContentHash(all) {
		t.Errorf("narrowing changed the full result: %+v", res)
	}
}

// TestResultOnlyUnknownClusterType: a name that is not a cluster type of the environment is an error
// naming it, the environment and how many cluster types it has; nothing is narrowed.
func TestResultOnlyUnknownClusterType(t *testing.T) {
	t.Parallel()
	res := onlyFleet(t)
	for _, c := range []struct {
		only []string
		want string
	}{
		{[]string{"web", "nope"}, `only_cluster_types names "nope", which is not a cluster type of environment "dev"; the environment has 3 cluster types`},
		// Names are case-sensitive, like the folders they name.
		{[]string{"Web", "nope"}, `only_cluster_types names "Web", "nope", which are not a cluster type of environment "dev"; the environment has 3 cluster types`},
		{[]string{"web/app-a"}, `only_cluster_types names "web/app-a", which is not a cluster type of environment "dev"; the environment has 3 cluster types`},
	} {
		got, err := res.Only(c.only)
		if err == nil || err.Error() != c.want || got != nil {
			t.Errorf("Only(%q) = %v, %v; want error %q", c.only, got, err, c.want)
		}
	}
}
