// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// errFound ends a first-parent walk once the commit is found.
var errFound = errors.New("found")

// OnFirstParentLine reports whether commit (a full id) is branch's head or one of its first-parent
// ancestors: a commit the branch itself pointed at. An ancestor reached only through a merge's second
// parent was a commit of another branch. The walk stops at the commit, or after MaxHistory commits.
func (c *Client) OnFirstParentLine(ctx context.Context, repoURL, branch, commit string) (bool, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (bool, error) {
		opErr := func(err error) error {
			return &Error{Op: "read", Repo: repoURL, Branch: branch, Err: c.scrub().Error(err)}
		}
		found := false
		_, err := c.walkFirstParent(ctx, repoURL, branch, MaxHistory, opErr, func(_ *session, cm *object.Commit) error {
			if cm.Hash.String() == commit {
				found = true
				return errFound
			}
			return nil
		})
		if found {
			return true, nil
		}
		return false, err
	})
}
