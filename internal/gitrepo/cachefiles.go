// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"os"
	"path/filepath"
	"sort"
)

// WriteFileAtomic writes b to p through a temporary file renamed into place, so that a reader sees the
// whole file or none (the local caches: the render store's records, the inspection memo).
func WriteFileAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// TrimOldest removes the files of dir, oldest first, until it holds at most keep: a local cache's bound.
func TrimOldest(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type file struct {
		name string
		mod  int64
	}
	var all []file
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			all = append(all, file{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod < all[j].mod })
	for _, f := range all[:max(len(all)-keep, 0)] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
