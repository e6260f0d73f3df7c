// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import "github.com/go-git/go-git/v5/plumbing"

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
