// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// PlanFacts are what a plan of kalypso_gitops_commit found, in plain values: the inputs of the
// decisions its ModifyPlan carries out.
type PlanFacts struct {
	// Known is true when the change set was computed (every input known, no error).
	Known bool
	// Empty is true when the change set writes nothing (Plan.Empty).
	Empty bool
	// HasState is true on an update (false on create).
	HasState bool
	// PullRequest is true in pull-request mode, PullRequestUnknown while that is not known yet.
	PullRequest, PullRequestUnknown bool
	// Moving is true when the plan moves the resource to another location.
	Moving bool
}

// PlanDecision is what the plan sets besides the change set.
type PlanDecision struct {
	// CommitUnknown: something will be written (or it is not known yet), so commit_sha is known after
	// apply, and in pull-request mode the pull request's number, URL and state too.
	CommitUnknown, PullRequestUnknown bool
	// KeepRecorded: nothing to write, so commit_sha, base_tree_id, the change set and the pull request of
	// the last apply are kept and the plan is empty.
	KeepRecorded bool
	// PullRequestNull: direct mode has no pull request.
	PullRequestNull bool
}

// DecidePlan is the rule of a plan: a plan that writes something leaves the apply's outcome unknown; a
// plan that writes nothing keeps what the last apply recorded, so that it is empty.
func DecidePlan(f PlanFacts) PlanDecision {
	d := PlanDecision{PullRequestNull: !f.PullRequest && !f.PullRequestUnknown}
	switch {
	case !f.Known || !f.Empty || f.Moving:
		d.CommitUnknown = true
		d.PullRequestUnknown = f.PullRequest || f.PullRequestUnknown
	case f.HasState:
		d.KeepRecorded = true
	}
	return d
}
