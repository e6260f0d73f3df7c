// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import "testing"

func TestDecidePlan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    PlanFacts
		want PlanDecision
	}{
		{"unknown inputs", PlanFacts{}, PlanDecision{CommitUnknown: true, PullRequestNull: true}},
		{"create", PlanFacts{Known: true}, PlanDecision{CommitUnknown: true, PullRequestNull: true}},
		{"create that writes nothing", PlanFacts{Known: true, Empty: true}, PlanDecision{PullRequestNull: true}},
		{"update", PlanFacts{Known: true, HasState: true, PullRequest: true}, PlanDecision{CommitUnknown: true, PullRequestUnknown: true}},
		{"nothing to write", PlanFacts{Known: true, Empty: true, HasState: true, PullRequest: true}, PlanDecision{KeepRecorded: true}},
		{"a move whose new location is already there", PlanFacts{Known: true, Empty: true, HasState: true, Moving: true}, PlanDecision{CommitUnknown: true, PullRequestNull: true}},
		{"pull_request not known yet", PlanFacts{Known: true, Empty: true, HasState: true, PullRequestUnknown: true}, PlanDecision{KeepRecorded: true}},
		{"pull_request not known yet, something to write", PlanFacts{Known: true, HasState: true, PullRequestUnknown: true}, PlanDecision{CommitUnknown: true, PullRequestUnknown: true}},
	}
	for _, c := range cases {
		if got := DecidePlan(c.f); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
