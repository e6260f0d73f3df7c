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

// temporaryCaches are the cache directories this process created in the temp dir. They hold full clones,
// so the provider removes them when its process ends (RemoveTemporaryCaches, called by main after the
// plugin server stops); a configured cache_dir is kept, since reusing it across runs is its purpose.
var temporaryCaches struct {
	sync.Mutex
	dirs []string
}

// NewTemporaryCacheDir creates a cache directory in the temp dir that RemoveTemporaryCaches deletes.
func NewTemporaryCacheDir() (string, error) {
	dir, err := os.MkdirTemp("", TemporaryCachePrefix)
	if err != nil {
		return "", err
	}
	temporaryCaches.Lock()
	temporaryCaches.dirs = append(temporaryCaches.dirs, dir)
	temporaryCaches.Unlock()
	return dir, nil
}

// RemoveTemporaryCaches deletes every directory NewTemporaryCacheDir created. Call it once the process
// does no more Git work: when the plugin server has stopped.
func RemoveTemporaryCaches() error {
	temporaryCaches.Lock()
	dirs := temporaryCaches.dirs
	temporaryCaches.dirs = nil
	temporaryCaches.Unlock()
	var errs []error
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
