// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// ErrMerged means a pull request the caller meant to close or replace was merged meanwhile: what it
// proposed is on its base now, and a plan made before that no longer says what an apply would do.
var ErrMerged = errors.New("the pull request was merged")

// Close closes pull request number of owner/repo without merging it, with reason appended to its body
// (the proposal's page then says why it was withdrawn). A pull request closed already is left as it is;
// a merged one is ErrMerged, since a merge cannot be undone by closing.
func (s *Service) Close(ctx context.Context, owner, repo string, number int, reason string) (PR, error) {
	p, _, err := s.gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return PR{}, s.wrap(err, "read pull request #%d of %s/%s", number, owner, repo)
	}
	cur := toPR(p)
	switch cur.State {
	case StateMerged:
		return cur, fmt.Errorf("pull request #%d of %s/%s: %w", number, owner, repo, ErrMerged)
	case StateClosed:
		return cur, nil
	}
	body := cur.Body
	if reason != "" {
		body += "\n\n---\n" + reason + "\n"
	}
	p, _, err = s.gh.PullRequests.Edit(ctx, owner, repo, number, &github.PullRequest{State: github.String(StateClosed), Body: github.String(body)})
	if err != nil {
		return cur, s.wrap(err, "close pull request #%d of %s/%s", number, owner, repo)
	}
	closed := toPR(p)
	if s.debug != nil {
		s.debug(ctx, "github pull request", map[string]any{"repository": owner + "/" + repo, "number": number, "action": "closed", "state": closed.State})
	}
	return closed, nil
}
