// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// The update's plan names the object in state; the create's plan of the replacement reads it back and
// records the location it takes over, which covers that object and no other.
func TestReplacementRecords(t *testing.T) {
	t.Parallel()
	update := planning("/srv/fleet.git", "clusters", nil)
	update.Prior = prior("/srv/fleet.git", "clusters", true)
	_ = planIdentity(context.Background(), update)
	if update.TakeOverRecord() != nil {
		t.Error("an update takes nothing over")
	}
	replaced := ParseReplaced(update.ReplacedRecord())
	if replaced == nil || replaced.ID != update.Prior.ID || replaced.Resource.Path != "clusters" || replaced.Resource.Branch != "main" {
		t.Fatalf("%+v", replaced)
	}
	create := planning("/srv/fleet.git/", "clusters", nil)
	create.Replaces, create.Config.RawPath = replaced, "./clusters"
	if err := planIdentity(context.Background(), create); err != nil {
		t.Fatalf("in place: %v", err)
	}
	if create.ReplacedRecord() != nil {
		t.Error("a create replaces nothing of its own")
	}
	over := ParseTakeOver(create.TakeOverRecord())
	key := gitrepo.RepositoryKey
	if !over.Covers(replaced.Resource, key) || over.Covers(Resource{RepoURL: "file:///srv/fleet.git", Branch: "main", Path: "clusters/dev"}, key) ||
		over.Covers(Resource{RepoURL: "file:///srv/fleet.git", Branch: "dev", Path: "clusters"}, key) {
		t.Errorf("take-over %+v", over)
	}
	if ParseReplaced(nil) != nil || ParseTakeOver([]byte("{")) != nil || (*TakeOver)(nil).Covers(replaced.Resource, key) {
		t.Error("no record")
	}
	moved := planning("/srv/fleet.git", "envs/dev", nil)
	moved.Replaces = replaced
	refusal(t, planIdentity(context.Background(), moved), "path", "would remove the old location before the new one is written", "Nothing was written", "is a move")
}

// With create_before_destroy the replaced object's destroy comes after the create applied at its location
// in the same process: it deletes nothing and is not refused.
func TestPlanDestroy_TakenOverInThisApply(t *testing.T) {
	t.Parallel()
	repo := "/srv/not-read.git"
	locations := &Locations{}
	p := &Planning{Locations: locations, Prior: prior(repo, "clusters", true)}
	locations.Applied(gitrepo.RepositoryKey("file://"+repo), "main", "clusters")
	if err := RunPlan(context.Background(), p, DestroySteps()); err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Detail, "took the files over") {
		t.Errorf("%v %+v", err, p.Warnings)
	}
	if locations.WasApplied(gitrepo.RepositoryKey("file://"+repo), "main", "clusters/dev") || (*Locations)(nil).WasApplied("", "", "") {
		t.Error("another location")
	}
}
