// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"
)

// Status is the latest commit status of one context.
type Status struct {
	Context     string
	State       string // pending, success, failure or error
	Description string
	UpdatedAt   time.Time
}

// ErrMalformed means GitHub answered with something that is not a commit status as documented.
var ErrMalformed = errors.New("malformed answer")

// ErrTooMany means a commit holds more statuses than the caller allows.
var ErrTooMany = errors.New("too many statuses")

// CombinedStatuses returns the latest status of every context on ref (GitHub's combined status, all
// pages). More than limit contexts is ErrTooMany, before the remaining pages are read: a context
// pattern that matches every CI check, or a hostile server, must not make a plan read without end.
func (s *Service) CombinedStatuses(ctx context.Context, owner, repo, ref string, limit int) ([]Status, error) {
	var out []Status
	opts := &github.ListOptions{PerPage: 100}
	for {
		combined, resp, err := s.gh.Repositories.GetCombinedStatus(ctx, owner, repo, ref, opts)
		if err != nil {
			return nil, s.wrap(err, "read the commit statuses of %s/%s@%s", owner, repo, ref)
		}
		if combined == nil {
			return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: no combined status", owner, repo, ref, ErrMalformed)
		}
		if n := combined.GetTotalCount(); n > limit {
			return nil, fmt.Errorf("%s/%s@%s has %d status contexts, more than the limit of %d: %w", owner, repo, ref, n, limit, ErrTooMany)
		}
		for i, st := range combined.Statuses {
			if st == nil || st.GetContext() == "" || !validState(st.GetState()) {
				return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: status %d has context %q and state %q (want a context and one of pending, success, failure, error)",
					owner, repo, ref, ErrMalformed, i, s.scrub.String(st.GetContext()), s.scrub.String(st.GetState()))
			}
			at := st.GetUpdatedAt().Time
			if at.IsZero() {
				at = st.GetCreatedAt().Time
			}
			out = append(out, Status{Context: s.scrub.String(st.GetContext()), State: st.GetState(), Description: s.scrub.String(st.GetDescription()), UpdatedAt: at})
		}
		if len(out) > limit {
			return nil, fmt.Errorf("%s/%s@%s has more than %d status contexts: %w", owner, repo, ref, limit, ErrTooMany)
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func validState(s string) bool {
	switch s {
	case "pending", "success", "failure", "error":
		return true
	}
	return false
}
