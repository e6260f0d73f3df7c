// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"context"
	"sort"
)

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
