// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
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
	if limit <= 0 || limit > MaxHistory {
		return nil, false, opErr(withClass(ErrInvalidInput, fmt.Errorf("history depth %d is outside 1..%d", limit, MaxHistory)))
	}
	s, err := c.open(repoURL)
	if err != nil {
		return nil, false, opErr(err)
	}
	defer s.close()
	h, err := s.head(ctx, branch)
	if err != nil {
		return nil, false, opErr(err)
	}
	deepened := false
	var out []DirsEntry
	for len(out) < limit {
		if err := ctx.Err(); err != nil {
			return nil, false, opErr(err)
		}
		cm, err := object.GetCommit(s.repo.Storer, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && !s.e.local && !deepened {
			// The cache holds a shallow copy: fetch as much history as asked for, once.
			deepened = true
			if err := s.fetchDepth(ctx, branch, limit+1); err != nil {
				return nil, false, opErr(err)
			}
			continue
		}
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return out, false, nil // the start of a shallow remote's history
		}
		if err != nil {
			return nil, false, opErr(err)
		}
		dirs, err := subdirectories(cm, dir)
		if err != nil {
			return nil, false, opErr(err)
		}
		out = append(out, DirsEntry{Commit: cm.Hash.String(), Time: cm.Committer.When, Dirs: dirs})
		if len(cm.ParentHashes) == 0 {
			return out, true, nil
		}
		h = cm.ParentHashes[0]
	}
	return out, false, nil
}

// subdirectories maps the directories directly under dir in cm's tree to their tree ids.
func subdirectories(cm *object.Commit, dir string) (map[string]string, error) {
	t, err := cm.Tree()
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if t, err = t.Tree(dir); errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return map[string]string{}, nil
		} else if err != nil {
			return nil, err
		}
	}
	out := map[string]string{}
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			out[e.Name] = e.Hash.String()
		}
	}
	return out, nil
}
