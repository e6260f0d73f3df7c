// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotPromotable means the commit an environment rolled out carries a Promoted_Commit_Id that is not a
// commit of the control-plane branch.
var ErrNotPromotable = errors.New("not promotable")

// Gate is a promotion from one environment to the next.
type Gate struct {
	// From and To name the environments ("dev", "stage"), for the messages.
	From, To string
	// Current is the control-plane commit To has now ("" before its first promotion).
	Current string
	// AllowBackwards lets To move to a commit older than Current (a rollback the user asked for).
	AllowBackwards bool
	// Ancestor reports whether control-plane commit a is b or one of its ancestors (both on the
	// control-plane branch; an error otherwise).
	Ancestor func(ctx context.Context, a, b string) (bool, error)
}

// Decision is where To goes.
type Decision struct {
	// Commit is the control-plane commit To renders: the candidate when it moves, Current otherwise.
	Commit string
	Moves  bool
	// Reason says why, in one line; Hold is true when the line belongs in a warning (To stays although
	// From has something it has not rolled out, or the candidate was refused).
	Reason string
	Hold   bool
}

// Decide moves To to the control-plane commit From rolled out on every expected cluster (res.Succeeded's
// promoted commit), and only forwards. Promotion never skips an environment: the candidate is whatever
// From itself was promoted to and rolled out.
func (g Gate) Decide(ctx context.Context, res *Result) (Decision, error) {
	candidate := res.Succeeded.Promoted
	if res.Succeeded.SHA != "" && candidate == "" {
		return Decision{}, fmt.Errorf("%s's GitOps commit %s, the newest its clusters rolled out, has no .github/tracking/Promoted_Commit_Id, so it is not known "+
			"which control-plane commit it carries; render %s with kalypso_gitops_commit.promoted_commit_id set", g.From, short(res.Succeeded.SHA), g.From)
	}
	if candidate != "" {
		// The candidate must be a commit of the control-plane branch, on a first promotion too: a 40-hex
		// Promoted_Commit_Id on the GitOps branch may name a commit of another repository, one that does not
		// exist, or one never merged. Ancestor(c, c) holds exactly when c is on the branch.
		if _, err := g.Ancestor(ctx, candidate, candidate); err != nil {
			return Decision{}, fmt.Errorf("%w: %s's GitOps commit %s, the newest its clusters rolled out, carries Promoted_Commit_Id %s, "+
				"which is not a commit of the control-plane branch; fix %s's promoted_commit_id (nothing is promoted until then): %w",
				ErrNotPromotable, g.From, short(res.Succeeded.SHA), candidate, g.From, err)
		}
	}
	from := g.where(res)
	stay := func(why string) Decision {
		if g.Current == "" {
			return Decision{Hold: true, Reason: fmt.Sprintf("%s; %s has no promoted commit yet and stays empty%s", from, g.To, why)}
		}
		return Decision{Commit: g.Current, Hold: true, Reason: fmt.Sprintf("%s; %s stays at main@%s%s", from, g.To, short(g.Current), why)}
	}
	switch {
	case candidate == "":
		return stay(""), nil
	case candidate == g.Current:
		d := Decision{Commit: g.Current, Reason: fmt.Sprintf("%s; %s is already at main@%s", from, g.To, short(g.Current))}
		// Stage is up to date with what dev rolled out, but dev holds something newer it has not rolled out yet.
		d.Hold = res.State != Succeeded
		return d, nil
	case g.Current == "":
		return Decision{Commit: candidate, Moves: true, Reason: fmt.Sprintf("%s; %s moves to main@%s (its first promotion)", from, g.To, short(candidate))}, nil
	}
	forward, err := g.Ancestor(ctx, g.Current, candidate)
	if err != nil {
		return Decision{}, err
	}
	if forward {
		return Decision{Commit: candidate, Moves: true, Reason: fmt.Sprintf("%s; %s moves main@%s → main@%s", from, g.To, short(g.Current), short(candidate))}, nil
	}
	if g.AllowBackwards {
		return Decision{Commit: candidate, Moves: true, Hold: true,
			Reason: fmt.Sprintf("%s; %s moves back main@%s → main@%s (allow_backwards is set)", from, g.To, short(g.Current), short(candidate))}, nil
	}
	return stay(fmt.Sprintf(", because main@%s is not ahead of it (set allow_backwards to roll %s back)", short(candidate), g.To)), nil
}

// where says which control-plane commit From's GitOps head carries, and what its clusters reported.
func (g Gate) where(res *Result) string {
	if res.Head.Promoted == "" {
		// A head written without promoted_commit_id (or before From's first render with it) carries no
		// main commit: say so instead of printing an empty commit.
		return fmt.Sprintf("%s's GitOps head %s carries no promoted commit (no .github/tracking/Promoted_Commit_Id): %s", g.From, short(res.Head.SHA), res.Summary())
	}
	return fmt.Sprintf("%s is at main@%s: %s", g.From, short(res.Head.Promoted), res.Summary())
}

func short(sha string) string {
	if sha == "" {
		return "(none)"
	}
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
