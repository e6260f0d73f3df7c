// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
)

// The proposal step warns what the apply does to the pull request the state records as open, and nothing
// when there is none, when it is not open, or when the apply updates it in place.
func TestPlanProposal(t *testing.T) {
	t.Parallel()
	pr := &PullRequest{}
	prior := Resource{RepoURL: "https://github.com/org/fleet.git", Branch: "main", Path: "clusters", PullRequest: pr}
	moved := prior
	moved.Branch = "dev"
	direct := prior
	direct.PullRequest = nil
	otherHead := prior
	otherHead.PullRequest = &PullRequest{HeadBranch: "proposals/main"}
	for _, c := range []struct {
		name    string
		state   string
		to      Resource
		changes *Plan
		move    *MovePlan
		want    string // the warning's summary and a part of its detail; "" for none
	}{
		{name: "no open proposal", state: githubpr.StateMerged, to: prior, changes: &Plan{Withdraws: true}},
		{name: "updated in place", state: githubpr.StateOpen, to: prior, changes: &Plan{}},
		{name: "reverted", state: githubpr.StateOpen, to: prior, changes: &Plan{Withdraws: true},
			want: `The apply closes pull request #4: nothing is left to propose|branch "main" already holds what the configuration asks for under clusters`},
		{name: "branch move, nothing at the old location", state: githubpr.StateOpen, to: moved, move: &MovePlan{Old: &RemovalPlan{}},
			want: `The apply closes pull request #4|moves from kalypso/main into main to kalypso/dev into dev`},
		{name: "branch move, files at the old location", state: githubpr.StateOpen, to: moved, move: &MovePlan{Old: &RemovalPlan{Files: 3, RootFiles: []string{MarkerPath("clusters")}}},
			want: `The apply updates pull request #4 to propose the removal at the old location|propose the removal of the 4 files the old location holds on "main"`},
		{name: "head branch changed", state: githubpr.StateOpen, to: otherHead, changes: &Plan{},
			want: `The apply closes pull request #4|moves from kalypso/main into main to proposals/main into main`},
		{name: "pull_request removed", state: githubpr.StateOpen, to: direct, changes: &Plan{},
			want: `The apply closes pull request #4|pull_request was removed, so the apply pushes to branch "main" directly`},
	} {
		p := &Planning{Config: Config{Resource: c.to, RepoURLKnown: true, BranchKnown: true, PathKnown: true}, ID: "id",
			Prior: &Prior{Resource: prior, PullRequestNumber: 4, PullRequestState: c.state}, Changes: c.changes, Move: c.move}
		if err := planProposal(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.want == "" {
			if len(p.Warnings) != 0 {
				t.Errorf("%s: warnings %+v", c.name, p.Warnings)
			}
			continue
		}
		summary, detail, _ := strings.Cut(c.want, "|")
		if len(p.Warnings) != 1 || p.Warnings[0].Summary != summary || !strings.Contains(p.Warnings[0].Detail, detail) {
			t.Errorf("%s: warnings %+v, want %q with %q", c.name, p.Warnings, summary, detail)
		}
	}
}
