// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrCorruptCache: an object of the provider's own clone of a remote (under the cache directory) could not
// be read, even after that clone was discarded and fetched again. It is a fault of this machine, not of
// the remote.
var ErrCorruptCache = errors.New("the local Git cache is damaged")

// isCacheCorruption reports an error reading an object the cache holds: a damaged zlib stream (a loose
// object or a pack entry), or an object the cache's refs point to but that is missing.
func isCacheCorruption(err error) bool {
	var corrupt flate.CorruptInputError
	switch {
	case err == nil:
		return false
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, zlib.ErrChecksum), errors.Is(err, zlib.ErrDictionary),
		errors.As(err, &corrupt), errors.Is(err, plumbing.ErrObjectNotFound):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "zlib: invalid") || strings.Contains(msg, "flate: corrupt input") || strings.Contains(msg, "object not found")
}

// withCacheRecovery runs op, which reads repoURL through its cache entry. When op fails on a damaged cache
// (isCacheCorruption) of a remote, the cache is a cache: the entry is discarded, a debug line says so, and
// op runs once more against a fresh fetch. A second failure of the same kind is ErrCorruptCache, so that
// it is never reported as an unreachable remote. Local repositories are never discarded.
func withCacheRecovery[T any](ctx context.Context, c *Client, repoURL string, op func() (T, error)) (T, error) {
	out, err := op()
	if !c.DiscardDamagedCache(ctx, repoURL, err) {
		return out, err
	}
	out, err = op()
	if isCacheCorruption(err) {
		err = withClass(ErrCorruptCache, fmt.Errorf("%w (the cache entry was discarded and fetched again once)", err))
	}
	return out, err
}

// DiscardDamagedCache discards the cache entry of the remote repoURL when err is a damaged read of it
// (a broken zlib stream, an object its refs point to that is missing), with the debug line, and reports
// whether it did: the caller then reads once more against a fresh fetch. It is withCacheRecovery for an
// error that surfaced after the operation that read the cache (Inspection.Diff, after Inspect). Local
// repositories are never discarded.
func (c *Client) DiscardDamagedCache(ctx context.Context, repoURL string, err error) bool {
	if !isCacheCorruption(err) {
		return false
	}
	s, oerr := c.open(repoURL)
	if oerr != nil || s.e.local {
		if s != nil {
			s.close()
		}
		return false
	}
	defer s.close()
	s.debug(ctx, "git cache damaged: discarding this repository's cache entry and fetching again", time.Time{}, err, map[string]any{"cache_dir": s.cacheDir})
	return s.resetCache() == nil
}
