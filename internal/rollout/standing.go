// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import "strings"

// Standing is where a cluster stands with the content a commit of the history carries: the gate rule the
// waves apply to each cluster of a wave, and the fleet status to each cluster of a folder.
type Standing string

const (
	// StandingSucceeded: it succeeded with that commit or with a newer one.
	StandingSucceeded Standing = "succeeded"
	// StandingBehind: its newest report is about an older commit; it has said nothing about the content yet.
	StandingBehind Standing = "behind"
	// StandingFailed: its newest report about that content is a failure.
	StandingFailed Standing = "failed"
	// StandingSoaking: it succeeded, and the soak still runs.
	StandingSoaking Standing = "soaking"
	// StandingPending: anything else (progressing, or succeeded without a valid time to soak from).
	StandingPending Standing = "pending"
)

// Against tells where c stands with the content that the commit at position target of the history
// carries (pos: each commit's position, newest first from 0). A cluster is its full identity; a report
// that is missing or older than target is never a success.
func (c Cluster) Against(pos map[string]int, target int) Standing {
	switch {
	case c.reached >= 0 && c.reached <= target:
		return StandingSucceeded
	case c.Commit == "":
		return StandingBehind
	case pos[c.Commit] > target:
		return StandingBehind
	case c.State == Failed:
		return StandingFailed
	case strings.HasPrefix(c.Message, "succeeded; soaking"):
		return StandingSoaking
	}
	return StandingPending
}

// Reached is the position in the history of the newest commit c succeeded with (0 is the head), or -1.
func (c Cluster) Reached() int { return c.reached }

// Identity is the cluster a report is about: its full identity, or its name when the source has no other.
func (r Report) Identity() string { return r.identity() }
