// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxHistory bounds how many commits a pinned read, an ancestry test or a log visits. Promotion pins
// commits that are days or weeks old, not years: a walk this long means the commit is not there.
const MaxHistory = 100000

// LogEntry is one commit of a branch's first-parent history.
type LogEntry struct {
	Commit string
	// Time is the committer time.
	Time time.Time
	// File is the content of the file Log was asked for at this commit; nil when the commit has none.
	File []byte
}

// ReadTreeAt is ReadTree at commit, which must be the head of branch or one of its ancestors (a full
// SHA or a prefix of at least 7 hex digits; "" reads the head). It returns the full SHA it read. A
// commit that is not on the branch is ErrCommitNotOnBranch: reading it would render content the
// branch never held. Remote history is fetched only as deep as the walk needs.
func (c *Client) ReadTreeAt(ctx context.Context, repoURL, branch, commit, path string) (string, map[string][]byte, error) {
	if commit == "" {
		return c.ReadTree(ctx, repoURL, branch, path)
	}
	type read struct {
		sha   string
		files map[string][]byte
	}
	r, err := withCacheRecovery(ctx, c, repoURL, func() (read, error) {
		sha, files, err := c.readTreeAt(ctx, repoURL, branch, commit, path)
		return read{sha, files}, err
	})
	return r.sha, r.files, err
}

func (c *Client) readTreeAt(ctx context.Context, repoURL, branch, commit, path string) (string, map[string][]byte, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(path), Err: c.scrub().Error(err)}
	}
	dir, err := CleanPath(path)
	if err != nil {
		return "", nil, opErr(err)
	}
	var files map[string][]byte
	var found bool
	sha, err := c.atCommit(ctx, repoURL, branch, commit, func(s *session, h plumbing.Hash) error {
		cm, err := object.GetCommit(s.repo.Storer, h)
		if err != nil {
			return err
		}
		files, found, err = readFilesAt(s.repo.Storer, cm.TreeHash, dir, false, nil)
		return err
	})
	if err != nil {
		return "", nil, opErr(err)
	}
	if !found {
		return sha, nil, opErr(withClass(ErrPathNotFound, fmt.Errorf("no directory at this path at commit %s", sha)))
	}
	return sha, files, nil
}

// IsAncestor reports whether commit ancestor is descendant or one of its ancestors; both must be on
// branch (ErrCommitNotOnBranch otherwise). Promotion uses it to refuse moving an environment backwards.
func (c *Client) IsAncestor(ctx context.Context, repoURL, branch, ancestor, descendant string) (bool, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (bool, error) {
		return c.isAncestor(ctx, repoURL, branch, ancestor, descendant)
	})
}

func (c *Client) isAncestor(ctx context.Context, repoURL, branch, ancestor, descendant string) (bool, error) {
	var is bool
	_, err := c.atCommit(ctx, repoURL, branch, descendant, func(s *session, d plumbing.Hash) error {
		if err := ValidateCommit(ancestor); err != nil {
			return err
		}
		head, err := s.head(ctx, branch)
		if err != nil {
			return err
		}
		a, err := s.onBranch(ctx, branch, head, ancestor)
		if err != nil {
			return err
		}
		found, _, err := s.walk(ctx, d, a.String())
		is = found != plumbing.ZeroHash
		return err
	})
	if err != nil {
		return false, &Error{Op: "read", Repo: repoURL, Branch: branch, Err: c.scrub().Error(err)}
	}
	return is, nil
}

// Log returns up to limit commits of branch's first-parent history, newest first, each with the content of
// file (a slash path from the repository root; "" reads none).
func (c *Client) Log(ctx context.Context, repoURL, branch string, limit int, file string) ([]LogEntry, error) {
	return withCacheRecovery(ctx, c, repoURL, func() ([]LogEntry, error) {
		return c.log(ctx, repoURL, branch, limit, file)
	})
}

func (c *Client) log(ctx context.Context, repoURL, branch string, limit int, file string) ([]LogEntry, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Err: c.scrub().Error(err)}
	}
	var out []LogEntry
	_, err := c.walkFirstParent(ctx, repoURL, branch, limit, opErr, func(_ *session, cm *object.Commit) error {
		e, err := logEntry(cm, file)
		out = append(out, e)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkFirstParent visits up to limit commits of branch's first-parent history, newest first. A cache that
// holds a shallow copy is deepened once, to limit+1 commits; a shallow remote's history ends where it ends.
// complete reports that the walk reached the branch's first commit. Every error comes back through opErr.
// Log, LogDirs and LogFolders share it, so the three reads of one history agree on where it starts and ends.
func (c *Client) walkFirstParent(ctx context.Context, repoURL, branch string, limit int, opErr func(error) error,
	visit func(s *session, cm *object.Commit) error) (complete bool, err error) {
	if limit <= 0 || limit > MaxHistory {
		return false, opErr(withClass(ErrInvalidInput, fmt.Errorf("history depth %d is outside 1..%d", limit, MaxHistory)))
	}
	s, err := c.open(repoURL)
	if err != nil {
		return false, opErr(err)
	}
	defer s.close()
	h, err := s.head(ctx, branch)
	if err != nil {
		return false, opErr(err)
	}
	deepened := false
	for visited := 0; visited < limit; {
		if err := ctx.Err(); err != nil {
			return false, opErr(err)
		}
		cm, err := object.GetCommit(s.repo.Storer, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && !s.e.local && !deepened {
			deepened = true
			if err := s.fetchDepth(ctx, branch, limit+1); err != nil {
				return false, opErr(err)
			}
			continue
		}
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return false, nil // the start of a shallow remote's history
		}
		if err != nil {
			return false, opErr(err)
		}
		if err := visit(s, cm); err != nil {
			return false, opErr(err)
		}
		visited++
		if len(cm.ParentHashes) == 0 {
			return true, nil
		}
		h = cm.ParentHashes[0]
	}
	return false, nil
}

// logEntry is cm's LogEntry, with the content of file when file is not "".
func logEntry(cm *object.Commit, file string) (LogEntry, error) {
	e := LogEntry{Commit: cm.Hash.String(), Time: cm.Committer.When}
	if file == "" {
		return e, nil
	}
	var err error
	e.File, err = fileAt(cm, file)
	return e, err
}

// fileAt is the content of the regular file at p in commit cm, or nil.
func fileAt(cm *object.Commit, p string) ([]byte, error) {
	f, err := cm.File(p)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !f.Mode.IsFile() {
		return nil, nil
	}
	s, err := f.Contents()
	return []byte(s), err
}

// atCommit opens the repository, resolves commit on branch and calls fn with it, within the session.
func (c *Client) atCommit(ctx context.Context, repoURL, branch, commit string, fn func(*session, plumbing.Hash) error) (string, error) {
	if branch == "" {
		return "", withClass(ErrInvalidInput, errors.New("branch is empty"))
	}
	if err := ValidateCommit(commit); err != nil {
		return "", err
	}
	s, err := c.open(repoURL)
	if err != nil {
		return "", err
	}
	defer s.close()
	head, err := s.head(ctx, branch)
	if err != nil {
		return "", err
	}
	h, err := s.onBranch(ctx, branch, head, commit)
	if err != nil {
		return "", err
	}
	return h.String(), fn(s, h)
}

// validCommit accepts a full SHA-1 or a prefix of at least 7 hex digits.
func ValidateCommit(commit string) error {
	if len(commit) < 7 || len(commit) > 40 || strings.Trim(strings.ToLower(commit), "0123456789abcdef") != "" {
		return withClass(ErrInvalidInput, fmt.Errorf("commit %q is not a commit SHA (7 to 40 hexadecimal digits)", commit))
	}
	return nil
}

// onBranch finds the commit whose SHA starts with commit among from and its ancestors, breadth first.
// A remote's shallow cache is deepened once when the walk reaches its edge. Not found is
// ErrCommitNotOnBranch.
func (s *session) onBranch(ctx context.Context, branch string, from plumbing.Hash, commit string) (plumbing.Hash, error) {
	want := strings.ToLower(commit)
	for deepened := false; ; deepened = true {
		h, edge, err := s.walk(ctx, from, want)
		if err != nil || h != plumbing.ZeroHash {
			return h, err
		}
		if !edge || s.e.local || deepened {
			return plumbing.ZeroHash, withClass(ErrCommitNotOnBranch, fmt.Errorf("commit %s is not %s's head (%s) nor one of its ancestors",
				commit, branch, from.String()[:12]))
		}
		if err := s.fetchDepth(ctx, branch, MaxHistory); err != nil {
			return plumbing.ZeroHash, err
		}
	}
}

// walk searches from and its ancestors; edge is true when a parent was missing (a shallow copy).
func (s *session) walk(ctx context.Context, from plumbing.Hash, want string) (found plumbing.Hash, edge bool, err error) {
	seen := map[plumbing.Hash]bool{from: true}
	queue := []plumbing.Hash{from}
	for len(queue) > 0 {
		if len(seen) > MaxHistory {
			return plumbing.ZeroHash, false, fmt.Errorf("searched %d commits without finding commit %s; pin a more recent commit", MaxHistory, want)
		}
		if err := ctx.Err(); err != nil {
			return plumbing.ZeroHash, false, err
		}
		h := queue[0]
		queue = queue[1:]
		// The object must be there, not only named by a child: a shallow copy names parents it lacks.
		cm, err := object.GetCommit(s.repo.Storer, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			edge = true
			continue
		}
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if strings.HasPrefix(h.String(), want) {
			return h, false, nil
		}
		for _, p := range cm.ParentHashes {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return plumbing.ZeroHash, edge, nil
}

// ManagedTreeAt is the Git tree id of the managed files under path at commit of branch (dot-entries at the
// path's root left out, as Inspection.ManagedTree), or EmptyTreeID when the path did not exist then. The
// commit must be the head of branch or one of its ancestors (ErrCommitNotOnBranch otherwise).
func (c *Client) ManagedTreeAt(ctx context.Context, repoURL, branch, commit, path string) (string, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (string, error) {
		dir, err := CleanPath(path)
		if err != nil {
			return "", err
		}
		tree := EmptyTreeID
		_, err = c.atCommit(ctx, repoURL, branch, commit, func(s *session, h plumbing.Hash) error {
			cm, err := object.GetCommit(s.repo.Storer, h)
			if err != nil {
				return err
			}
			sub, found, err := subtree(s.repo.Storer, cm.TreeHash, dir)
			if err != nil || !found {
				return err
			}
			tree, err = managedTreeID(s, sub)
			return err
		})
		if err != nil {
			return "", &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(path), Err: c.scrub().Error(err)}
		}
		return tree, nil
	})
}
