// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"os"
	"sync"
)

// TemporaryCachePrefix starts the name of every cache directory created because no cache_dir was set.
const TemporaryCachePrefix = "kalypso-git-cache-"

// TemporaryCaches are the cache directories a process created in the temp dir because no cache_dir was
// set. They hold full clones, so their owner removes them when it does no more Git work (the provider's
// Caches, which main closes after the plugin server stops); a configured cache_dir is kept, since reusing
// it across runs is its purpose.
type TemporaryCaches struct {
	mu   sync.Mutex
	dirs []string
}

// NewDir creates a cache directory in the temp dir that RemoveAll deletes. A nil t records nothing: the
// directory is the caller's to remove.
func (t *TemporaryCaches) NewDir() (string, error) {
	dir, err := os.MkdirTemp("", TemporaryCachePrefix)
	if err != nil || t == nil {
		return dir, err
	}
	t.mu.Lock()
	t.dirs = append(t.dirs, dir)
	t.mu.Unlock()
	return dir, nil
}

// RemoveAll deletes every directory NewDir created. Call it once the process does no more Git work with
// them: when the plugin server has stopped.
func (t *TemporaryCaches) RemoveAll() error {
	t.mu.Lock()
	dirs := t.dirs
	t.dirs = nil
	t.mu.Unlock()
	var errs []error
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
