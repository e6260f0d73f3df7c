// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrForeignBranch: a pull request's head branch holds a commit the provider did not write there (nothing
// was written).
var ErrForeignBranch = errors.New("the head branch holds a commit this resource did not write")

// Tip is a branch's head commit and the repository's default branch: what a plan needs to decide whether
// a pull request's head branch may be written.
type Tip struct {
	// Exists is false when the branch does not exist (SHA and Message are then empty).
	Exists       bool
	SHA, Message string
	// DefaultBranch is the branch the repository's HEAD names ("" for an empty repository).
	DefaultBranch string
}

// ReadTip reads the head commit of branch and the default branch, without reading any tree.
func (c *Client) ReadTip(ctx context.Context, repoURL, branch string) (Tip, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (Tip, error) { return c.readTip(ctx, repoURL, branch) })
}

// readTip is ReadTip without the cache recovery.

func (c *Client) readTip(ctx context.Context, repoURL, branch string) (Tip, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Err: c.scrub().Error(err)}
	}
	s, err := c.open(repoURL)
	if err != nil {
		return Tip{}, opErr(err)
	}
	defer s.close()
	var out Tip
	if out.DefaultBranch, err = s.defaultBranch(ctx); err != nil {
		return Tip{}, opErr(err)
	}
	h, err := s.head(ctx, branch)
	if errors.Is(err, ErrBranchNotFound) {
		return out, nil
	}
	if err != nil {
		return Tip{}, opErr(err)
	}
	commit, err := object.GetCommit(s.repo.Storer, h)
	if err != nil {
		return Tip{}, opErr(err)
	}
	out.Exists, out.SHA, out.Message = true, h.String(), commit.Message
	return out, nil
}

// HasTrailer reports whether message holds line as one of its own lines (a commit trailer such as
// ApplyRequest.HeadMarker writes).
func HasTrailer(message, line string) bool {
	if line == "" {
		return false
	}
	for _, l := range strings.Split(message, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// ownedHead decides whether the head branch at cur may be moved by this apply: its head commit is one the
// provider wrote there, whose message carries req.HeadMarker.
func ownedHead(st storer.EncodedObjectStorer, req ApplyRequest, cur plumbing.Hash) (bool, error) {
	c, err := object.GetCommit(st, cur)
	if err != nil {
		return false, err
	}
	return HasTrailer(c.Message, req.HeadMarker), nil
}
