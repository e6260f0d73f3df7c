// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"testing"
)

// userCacheDirBeforeTests is the user's cache directory as the environment gave it.
var userCacheDirBeforeTests string

// TestMain points the user's cache directory (os.UserCacheDir: XDG_CACHE_HOME on Linux) at a directory of
// this run's own, so the render store of configurations without cache_dir (RenderStoreDir) never fills
// the developer's or CI's real cache, and no run reuses another run's renders.
func TestMain(m *testing.M) {
	// Where scripts/tofu.sh caches OpenTofu (tofuBinary), read before the override.
	userCacheDirBeforeTests, _ = os.UserCacheDir()
	dir, err := os.MkdirTemp("", "kalypso-provider-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating the test cache directory:", err)
		os.Exit(1)
	}
	if err := os.Setenv("XDG_CACHE_HOME", dir); err != nil {
		fmt.Fprintln(os.Stderr, "setting XDG_CACHE_HOME:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = testCaches.Close()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
