// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"strings"
	"sync"
	"testing"
)

func TestLocations_Claim(t *testing.T) {
	t.Parallel()
	var l Locations
	for _, c := range []struct{ branch, path, id string }{
		{"main", "envs/dev", "repo//envs/dev?ref=main"}, {"main", "envs/prod", "repo//envs/prod?ref=main"},
		{"dev", "", "repo//.?ref=dev"}, {"main", "envs/devx", "repo//envs/devx?ref=main"},
		{"main", "envs/dev", "repo//envs/dev?ref=main"}, // the same resource planned again
	} {
		if err := l.Claim("repo", c.branch, c.path, c.id); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, c := range []struct{ branch, path, id string }{
		{"main", "envs", "repo//envs?ref=main"}, {"main", "envs/dev/drone", "repo//envs/dev/drone?ref=main"},
		{"main", "", "repo//.?ref=main"}, {"dev", "clusters", "repo//clusters?ref=dev"}, {"main", "envs/dev", "other//envs/dev?ref=main"},
	} {
		err := l.Claim("repo", c.branch, c.path, c.id)
		if err == nil || !strings.Contains(err.Error(), c.id) || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := l.Claim("other-repo", "main", "envs", "x"); err != nil {
		t.Errorf("another repository: %v", err)
	}
}

// Whichever of two overlapping resources claims first, the refusal reads the same.
func TestLocations_DeterministicMessage(t *testing.T) {
	t.Parallel()
	var a, b Locations
	_ = a.Claim("r", "main", "clusters", "r//clusters?ref=main")
	errA := a.Claim("r", "main", "clusters/drone", "r//clusters/drone?ref=main")
	_ = b.Claim("r", "main", "clusters/drone", "r//clusters/drone?ref=main")
	errB := b.Claim("r", "main", "clusters", "r//clusters?ref=main")
	if errA == nil || errB == nil || errA.Error() != errB.Error() {
		t.Errorf("%v\n%v", errA, errB)
	}
	// Concurrent claims (Terraform plans resources in parallel): exactly one of two overlapping ones is refused.
	var l Locations
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, p := range []string{"clusters", "clusters/drone"} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = l.Claim("r", "main", p, p) }()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Errorf("concurrent claims: %v, %v", errs[0], errs[1])
	}
}

// TestLocations_DeliverRefusesTwoTreesForOneSpelling: two resources spelled exactly alike are one claim,
// but their different trees tell them apart; the same resource planned twice renders the same tree.
func TestLocations_DeliverRefusesTwoTreesForOneSpelling(t *testing.T) {
	t.Parallel()
	var l Locations
	for range 2 { // one resource, planned twice
		if err := l.Claim("r", "main", "clusters", "r//clusters?ref=main"); err != nil {
			t.Fatal(err)
		}
		if err := l.Deliver("r", "main", "clusters", "r//clusters?ref=main", "tree-a"); err != nil {
			t.Fatalf("the same tree twice: %v", err)
		}
	}
	if err := l.Claim("r", "main", "clusters", "r//clusters?ref=main"); err != nil {
		t.Fatal(err)
	}
	err := l.Deliver("r", "main", "clusters", "r//clusters?ref=main", "tree-b")
	if err == nil || !strings.Contains(err.Error(), `deliver different files to the same location r//clusters?ref=main (branch "main")`) {
		t.Fatalf("a second tree for one location: %v", err)
	}
	// Unknown trees and other locations are not compared.
	if err := l.Deliver("r", "main", "clusters", "r//clusters?ref=main", ""); err != nil {
		t.Fatal(err)
	}
	if err := l.Deliver("r", "dev", "clusters", "r//clusters?ref=dev", "tree-c"); err != nil {
		t.Fatal(err)
	}
}
