// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemporaryCachesAreRemoved: a client without CacheDir clones into a kalypso-git-cache-* directory of
// the temp dir, recorded in its TemporaryCaches, and RemoveAll (what main's caches do when the plugin
// server stops) deletes it. The
// end-to-end check with the real provider process and terraform is TestProviderProcessRemovesItsTemporaryGitCache.
func TestTemporaryCachesAreRemoved(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	temporary := &TemporaryCaches{}
	c := &Client{Temporary: temporary}
	root, err := c.cacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(root), TemporaryCachePrefix) {
		t.Fatalf("cache root %s", root)
	}
	if err := os.WriteFile(filepath.Join(root, "clone"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	kept := t.TempDir()
	if _, err := (&Client{CacheDir: kept, Temporary: temporary}).cacheRoot(); err != nil {
		t.Fatal(err)
	}
	if err := temporary.RemoveAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("temporary cache %s still there: %v", root, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Fatalf("configured cache dir removed: %v", err)
	}
}
