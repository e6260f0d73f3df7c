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

// Status is one commit status.
type Status struct {
	Context     string
	State       string // pending, success, failure or error
	Description string
	UpdatedAt   time.Time
	// Creator is the login of the account that posted it ("" when GitHub names none): a status context is
	// free text anyone with write access to statuses can post, so who posted it is part of what it says.
	Creator string
}

// ErrMalformed means GitHub answered with something that is not a commit status as documented.
var ErrMalformed = errors.New("malformed answer")

// ErrTooMany means a commit holds more statuses than the caller allows.
var ErrTooMany = errors.New("too many statuses")

// statusesPerPage is the page size asked for; GitHub serves at most 100 statuses a page.
const statusesPerPage = 100

// ErrEndlessPages means a paginated answer did not end within the pages its size allows.
var ErrEndlessPages = errors.New("endless pagination")

// ListStatuses returns every status of ref, newest first, with who posted it (GitHub's "list commit
// statuses for a reference", all pages; the combined status names no creator). More than maxContexts
// distinct contexts, or more than maxStatuses statuses, is ErrTooMany before the remaining pages are read:
// a context pattern that matches every CI check, a flapping reporter or a hostile server must not make a
// plan read without end. The whole read is bounded by the Service's read timeout (api_read_timeout), and
// its pages by what maxStatuses needs (maxStatuses/100 pages, plus two): a page without statuses that still
// links a next one, or more pages than that, is ErrEndlessPages.
func (s *Service) ListStatuses(ctx context.Context, owner, repo, ref string, maxContexts, maxStatuses int) (_ []Status, err error) {
	parent := ctx
	ctx, cancel := outbound.ReadContext(ctx, s.limits)
	defer cancel()
	defer func() {
		err = outbound.ReadError(ctx, parent, err, "the commit statuses of "+owner+"/"+repo+"@"+ref, s.limits)
	}()
	maxPages := maxStatuses/statusesPerPage + 2
	var out []Status
	contexts := map[string]bool{}
	opts := &github.ListOptions{PerPage: statusesPerPage}
	for n := 1; ; n++ {
		page, resp, err := s.gh.Repositories.ListStatuses(ctx, owner, repo, ref, opts)
		if err != nil {
			return nil, s.wrap(err, "read the commit statuses of %s/%s@%s", owner, repo, ref)
		}
		for i, st := range page {
			if st == nil || st.GetContext() == "" || !validState(st.GetState()) {
				return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: status %d of page %d has context %q and state %q (want a context and one of pending, success, failure, error)",
					owner, repo, ref, ErrMalformed, i, max(opts.Page, 1), s.scrub.Limit(200).String(st.GetContext()), s.scrub.Limit(200).String(st.GetState()))
			}
			at := st.GetUpdatedAt().Time
			if at.IsZero() {
				at = st.GetCreatedAt().Time
			}
			status := Status{Context: s.scrub.String(st.GetContext()), State: st.GetState(), Description: s.scrub.String(st.GetDescription()),
				UpdatedAt: at, Creator: s.scrub.String(st.GetCreator().GetLogin())}
			contexts[status.Context] = true
			out = append(out, status)
		}
		if len(contexts) > maxContexts {
			return nil, fmt.Errorf("%s/%s@%s has more than %d status contexts: %w", owner, repo, ref, maxContexts, ErrTooMany)
		}
		if len(out) > maxStatuses {
			return nil, fmt.Errorf("%s/%s@%s has more than %d statuses: %w", owner, repo, ref, maxStatuses, ErrTooMany)
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		if len(page) == 0 {
			return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: page %d holds no status but links page %d; the status API is broken or hostile, and this limit has no setting",
				owner, repo, ref, ErrEndlessPages, n, resp.NextPage)
		}
		if n >= maxPages {
			return nil, fmt.Errorf("read the commit statuses of %s/%s@%s: %w: the status API still linked a next page after %d pages (%d statuses), more than %d statuses need at %d a page; "+
				"it is broken or hostile, and this limit has no setting", owner, repo, ref, ErrEndlessPages, n, len(out), maxStatuses, statusesPerPage)
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
