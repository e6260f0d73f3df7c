// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import "testing"

// Configuring a provider instance again evicts the Git client of its previous configuration, so a
// process that configures many times (acceptance tests, a long-lived plugin) keeps one client per
// live configuration; the new configuration gets a client of its own.
func TestConfigure_EvictsTheGitClientOfTheReplacedConfiguration(t *testing.T) {
	t.Parallel()
	caches := NewCaches()
	p := &KalypsoProvider{caches: caches}
	first := &ProviderData{CacheDir: t.TempDir(), caches: caches}
	p.setData(first)
	c1 := first.GitClient()
	if _, ok := caches.gitClients.Load(first); !ok {
		t.Fatal("the first configuration has no client")
	}
	p.setData(first) // the same configuration again keeps its client
	if first.GitClient() != c1 {
		t.Error("configuring the same data again replaced its client")
	}

	second := &ProviderData{CacheDir: t.TempDir(), caches: caches}
	p.setData(second)
	if _, ok := caches.gitClients.Load(first); ok {
		t.Error("the replaced configuration's client is still cached")
	}
	if c2 := second.GitClient(); c2 == c1 || c2.CacheDir != second.CacheDir {
		t.Errorf("the new configuration's client: %+v", c2)
	}
	p.setData(nil)
	if _, ok := caches.gitClients.Load(second); ok {
		t.Error("the second configuration's client is still cached")
	}
}

// Calls before the provider is configured share one client instead of adding a cache entry (and a
// temporary cache directory) each.
func TestGitClient_UnconfiguredCallsShareOneClient(t *testing.T) {
	t.Parallel()
	ds := NewControlPlaneDataSource(NewCaches())().(*ControlPlaneDataSource)
	if a, b := ds.unconfigured().GitClient(), ds.unconfigured().GitClient(); a != b || a == nil {
		t.Error("two unconfigured calls got two clients")
	}
}
