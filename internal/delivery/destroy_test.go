// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestPlanRemoval reads a real bare repository: the counts per directory cover the files under the path
// (not its root dot-entries, not files outside it), and the root files the resource wrote.
func TestPlanRemoval(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	promoted := strings.Repeat("a", 40)
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{
		"README.md": "outside", "clusters/.sops.yaml": "dot-entry", "clusters/" + OwnerMarker: "record",
		"clusters/drone/README.md": "d", "clusters/drone/t1/namespace.yaml": "n", "clusters/large/README.md": "l", "clusters/top.yaml": "t",
		PromotedCommitFile: promoted,
	})
	c := &gitrepo.Client{}
	r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", PromotedCommitID: &promoted}
	got, err := PlanRemoval(context.Background(), c, r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Gone || got.Files != 4 || !reflect.DeepEqual(got.ByDirectory, map[string]int{"drone": 2, "large": 1, "(path root)": 1}) ||
		!reflect.DeepEqual(got.RootFiles, []string{PromotedCommitFile, "clusters/" + OwnerMarker}) {
		t.Errorf("%+v", got)
	}
	if d := got.Directories(); d != "(path root) (1), drone (2), large (1)" {
		t.Errorf("directories %q", d)
	}
	gone, err := PlanRemoval(context.Background(), c, Resource{RepoURL: "file://" + repo, Branch: "gone", Path: "clusters"})
	if err != nil || !gone.Gone {
		t.Errorf("a missing branch: %+v, %v", gone, err)
	}
}

// TestDecideDestroy: protection refuses a destroy that deletes files and names both ways out; retain
// and an empty path are never refused; the warning names the counts and the branch.
func TestDecideDestroy(t *testing.T) {
	t.Parallel()
	m := &RemovalPlan{RepoURL: "file:///fleet.git", Branch: "dev", Path: "clusters", Files: 8, ByDirectory: map[string]int{"drone": 3, "large": 5}, RootFiles: []string{"clusters/" + OwnerMarker}}
	d := DecideDestroy(m, "destroying the resource", false, true)
	if d.Refusal == nil || d.Warning != "" {
		t.Fatalf("%+v", d)
	}
	for _, want := range []string{"deletion_protection is on", `deletes 8 files under path "clusters" on branch "dev"`, "drone (3), large (5)", "retain_on_destroy = true", "deletion_protection = false"} {
		if !strings.Contains(d.Refusal.Error(), want) {
			t.Errorf("refusal %q lacks %q", d.Refusal, want)
		}
	}
	d = DecideDestroy(m, "destroying the resource", false, false)
	if d.Refusal != nil || !strings.Contains(d.Warning, `destroying the resource deletes 8 files under path "clusters" on branch "dev" of file:///fleet.git: drone (3), large (5)`) {
		t.Errorf("unprotected: %+v", d)
	}
	if d = DecideDestroy(m, "destroying the resource", true, true); d.Refusal != nil || !strings.Contains(d.Warning, "nothing is deleted") {
		t.Errorf("retained: %+v", d)
	}
	if d = DecideDestroy(&RemovalPlan{Branch: "dev", ByDirectory: map[string]int{}}, "destroying the resource", false, true); d.Refusal != nil {
		t.Errorf("nothing under path: %+v", d)
	}
	if d = DecideDestroy(&RemovalPlan{Branch: "dev", Gone: true}, "destroying the resource", false, true); d.Refusal != nil || !strings.Contains(d.Warning, "no longer exists") {
		t.Errorf("gone: %+v", d)
	}
}
