// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// DirsEntry is one commit of a branch's first-parent history with the directories directly under a path.
type DirsEntry struct {
	Commit string
	// Time is the committer time.
	Time time.Time
	// Dirs maps each directory directly under the path to its Git tree id (empty when the path is absent).
	Dirs map[string]string
}

// LogDirs returns up to limit commits of branch's first-parent history, newest first, each with the tree
// ids of the directories directly under dir (a cleaned path, "" for the root). A progressive rollout reads
// from it which commit last changed each cluster type's folder: Git names a tree by its content, so the
// folder changed where its id did. complete is true when the history read reaches the branch's first commit.
func (c *Client) LogDirs(ctx context.Context, repoURL, branch, dir string, limit int) (entries []DirsEntry, complete bool, err error) {
	type result struct {
		entries  []DirsEntry
		complete bool
	}
	r, err := withCacheRecovery(ctx, c, repoURL, func() (result, error) {
		e, done, err := c.logDirs(ctx, repoURL, branch, dir, limit)
		return result{e, done}, err
	})
	return r.entries, r.complete, err
}

func (c *Client) logDirs(ctx context.Context, repoURL, branch, dir string, limit int) ([]DirsEntry, bool, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(dir), Err: c.scrub().Error(err)}
	}
	var out []DirsEntry
	complete, err := c.walkFirstParent(ctx, repoURL, branch, limit, opErr, func(s *session, cm *object.Commit) error {
		dirs, err := subdirIDs(s.repo.Storer, cm.TreeHash, dir)
		out = append(out, DirsEntry{Commit: cm.Hash.String(), Time: cm.Committer.When, Dirs: dirs})
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return out, complete, nil
}
