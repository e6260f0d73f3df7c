// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// ReadTree returns the head commit of branch and the regular files below path
// (keys relative to path, "" or "." meaning the repository root). Remote
// repositories are fetched shallowly into the cache; local ones are read in place.
// Errors wrap ErrRepositoryNotFound, ErrBranchNotFound, ErrPathNotFound or ErrAuth when they apply.
func (c *Client) ReadTree(ctx context.Context, repoURL, branch, path string) (string, map[string][]byte, error) {
	sha, files, err := c.readTree(ctx, repoURL, branch, path, false)
	return sha, files, err
}

// ReadManaged is ReadTree without the dot-entries at the root of path: the file set
// kalypso_gitops_commit manages. A missing path reads as an empty set.
func (c *Client) ReadManaged(ctx context.Context, repoURL, branch, path string) (string, map[string][]byte, error) {
	sha, files, err := c.readTree(ctx, repoURL, branch, path, true)
	if errors.Is(err, ErrPathNotFound) {
		return sha, map[string][]byte{}, nil
	}
	return sha, files, err
}

func (c *Client) readTree(ctx context.Context, repoURL, branch, path string, managed bool) (sha string, files map[string][]byte, err error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(path), Err: err}
	}
	dir, err := CleanPath(path)
	if err != nil {
		return "", nil, opErr(err)
	}
	if branch == "" {
		return "", nil, opErr(withClass(ErrInvalidInput, errors.New("branch is empty")))
	}
	s, err := c.open(repoURL)
	if err != nil {
		return "", nil, opErr(err)
	}
	defer s.close()
	h, err := s.head(ctx, branch)
	if err != nil {
		return "", nil, opErr(err)
	}
	commit, err := object.GetCommit(s.repo.Storer, h)
	if err != nil {
		return "", nil, opErr(err)
	}
	files, found, err := readFilesAt(s.repo.Storer, commit.TreeHash, dir, managed, nil)
	if err != nil {
		return "", nil, opErr(err)
	}
	if !found {
		return h.String(), nil, opErr(withClass(ErrPathNotFound, errors.New("no directory at this path on the branch head")))
	}
	return h.String(), files, nil
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
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

// ValidateURL checks a repository URL without contacting it: scheme, syntax and
// absence of embedded credentials.
func ValidateURL(repoURL string) error {
	_, err := (&Client{}).resolve(repoURL)
	return err
}
