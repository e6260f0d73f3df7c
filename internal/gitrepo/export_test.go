// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// SetHookBeforeUpdate lets tests run a concurrent writer between building a commit and updating the ref.
func SetHookBeforeUpdate(c *Client, f func(attempt int)) { c.hookBeforeUpdate = f }

// StagePack stages, as an apply into gitDir would, the objects of a tree holding files under path, and
// returns the number of objects staged and the step that writes them (a pack from 100 objects on):
// benchmarks time that step alone.
func StagePack(gitDir, path string, files map[string][]byte) (objects int, write func() error, err error) {
	_, st, err := openStorage(gitDir)
	if err != nil {
		return 0, nil, err
	}
	staging := newStaging(st)
	if _, err := buildTree(&builder{st: staging}, plumbing.ZeroHash, path, ApplyRequest{Files: files}); err != nil {
		_ = st.Close()
		return 0, nil, err
	}
	return len(staging.order), func() error {
		_, err := staging.flush()
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// The readers below serve tests only: kalypso_gitops_commit plans and refreshes through Inspect.

// ReadManaged is ReadTree without the dot-entries at the root of path: the file set
// kalypso_gitops_commit manages. A missing path reads as an empty set.
func (c *Client) ReadManaged(ctx context.Context, repoURL, branch, path string) (string, map[string][]byte, error) {
	sha, files, err := c.readTree(ctx, repoURL, branch, path, true)
	if errors.Is(err, ErrPathNotFound) {
		return sha, map[string][]byte{}, nil
	}
	return sha, files, err
}

// Snapshot is the managed content of a path plus selected root-level files, read from one commit.
type Snapshot struct {
	CommitSHA string
	// Files are the regular files below the path, dot-entries at its root excluded.
	Files map[string][]byte
	// RootFiles holds the requested repository-root-relative files that exist.
	RootFiles map[string][]byte
}

// Snapshot reads the managed files below path and the given root-level files from branch's head
// in one fetch. A missing path reads as no files.
func (c *Client) Snapshot(ctx context.Context, repoURL, branch, path string, rootFiles []string) (*Snapshot, error) {
	return c.SnapshotKnown(ctx, repoURL, branch, path, rootFiles, nil)
}

// SnapshotKnown is Snapshot for a caller that holds the content it last saw below path (known, keyed
// like Snapshot.Files): files whose blob hash matches are returned from known without being read.
// The result is the same as Snapshot's.
func (c *Client) SnapshotKnown(ctx context.Context, repoURL, branch, path string, rootFiles []string, known map[string]string) (*Snapshot, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(path), Err: err}
	}
	dir, err := CleanPath(path)
	if err != nil {
		return nil, opErr(err)
	}
	s, err := c.open(repoURL)
	if err != nil {
		return nil, opErr(err)
	}
	defer s.close()
	h, err := s.head(ctx, branch)
	if err != nil {
		return nil, opErr(err)
	}
	commit, err := object.GetCommit(s.repo.Storer, h)
	if err != nil {
		return nil, opErr(err)
	}
	files, _, err := readFilesAt(s.repo.Storer, commit.TreeHash, dir, true, known)
	if err != nil {
		return nil, opErr(err)
	}
	if files == nil {
		files = map[string][]byte{}
	}
	snap := &Snapshot{CommitSHA: h.String(), Files: files, RootFiles: map[string][]byte{}}
	tree, err := commit.Tree()
	if err != nil {
		return nil, opErr(err)
	}
	for _, name := range rootFiles {
		f, err := tree.File(name)
		if err != nil {
			continue
		}
		content, err := f.Contents()
		if err != nil {
			return nil, opErr(err)
		}
		snap.RootFiles[name] = []byte(content)
	}
	return snap, nil
}

// Diff reads the managed files under path on branch (dot-entries at the root of
// path excluded) and reports how they differ from desired: Added are desired
// files missing remotely, Modified differ, Removed exist remotely but are not
// desired. It also returns the remote files and the head commit.
func (c *Client) Diff(ctx context.Context, repoURL, branch, path string, desired map[string][]byte) (string, Changes, map[string][]byte, error) {
	sha, remote, err := c.ReadManaged(ctx, repoURL, branch, path)
	if err != nil {
		return "", Changes{}, nil, err
	}
	return sha, CompareFiles(desired, remote), remote, nil
}

// CompareFiles compares a desired file set with an actual one.
func CompareFiles(desired, actual map[string][]byte) Changes {
	var ch Changes
	for name, want := range desired {
		got, ok := actual[name]
		switch {
		case !ok:
			ch.Added = append(ch.Added, name)
		case !bytes.Equal(got, want):
			ch.Modified = append(ch.Modified, name)
		}
	}
	for name := range actual {
		if _, ok := desired[name]; !ok {
			ch.Removed = append(ch.Removed, name)
		}
	}
	sort.Strings(ch.Added)
	sort.Strings(ch.Modified)
	sort.Strings(ch.Removed)
	return ch
}

// CheckGitComponentFully is CheckGitComponent without its fast path for ordinary ASCII names.
var CheckGitComponentFully = checkGitComponent

// InflateStored is the store's decoder of uncompressed zlib streams.
var InflateStored = inflateStored

// CompareTreeNames is the order of tree entries.
var CompareTreeNames = compareTreeNames

// SameRepository reports whether two repository URLs name the same repository (RepositoryKey).
func SameRepository(a, b string) bool { return RepositoryKey(a) == RepositoryKey(b) }
