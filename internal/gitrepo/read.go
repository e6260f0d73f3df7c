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
	type read struct {
		sha   string
		files map[string][]byte
	}
	r, err := withCacheRecovery(ctx, c, repoURL, func() (read, error) {
		sha, files, err := c.readTree(ctx, repoURL, branch, path, false)
		return read{sha, files}, err
	})
	return r.sha, r.files, err
}

func (c *Client) readTree(ctx context.Context, repoURL, branch, path string, managed bool) (sha string, files map[string][]byte, err error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(path), Err: c.scrub().Error(err)}
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

// ValidateURL checks a repository URL without contacting it: scheme, syntax and
// absence of embedded credentials.
func ValidateURL(repoURL string) error {
	_, err := (&Client{}).resolve(repoURL)
	return err
}
