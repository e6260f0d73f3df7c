// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
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

// statusesPerPage is the page size asked for; GitHub serves at most 100 contexts a page.
const statusesPerPage = 100

// ErrEndlessPages means a paginated answer did not end within the pages its size allows.
var ErrEndlessPages = errors.New("endless pagination")

// CombinedStatuses returns the latest status of every context on ref (GitHub's combined status, all
// pages). More than limit contexts is ErrTooMany, before the remaining pages are read: a context
// pattern that matches every CI check, or a hostile server, must not make a plan read without end.
// The whole read is bounded by the Service's read timeout, and its pages by what limit needs (limit/100
// pages, plus one): a page without statuses that still links a next one, or more pages than that, is
// ErrEndlessPages.
func (s *Service) CombinedStatuses(ctx context.Context, owner, repo, ref string, limit int) (_ []Status, err error) {
	parent := ctx
	ctx, cancel := outbound.ReadContext(ctx, s.limits)
	defer cancel()
	defer func() {
		err = outbound.ReadError(ctx, parent, err, "the commit statuses of "+owner+"/"+repo+"@"+ref, s.limits)
	}()
	maxPages := limit/statusesPerPage + 2
	var out []Status
	opts := &github.ListOptions{PerPage: statusesPerPage}
	for page := 1; ; page++ {
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
		if len(combined.Statuses) == 0 {
			return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: page %d holds no status but links page %d; the status API is broken or hostile, and this limit has no setting",
				owner, repo, ref, ErrEndlessPages, page, resp.NextPage)
		}
		if page >= maxPages {
			return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: the status API still linked a next page after %d pages (%d statuses), more than %d status contexts need at %d a page; "+
				"it is broken or hostile, and this limit has no setting", owner, repo, ref, ErrEndlessPages, page, len(out), limit, statusesPerPage)
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
