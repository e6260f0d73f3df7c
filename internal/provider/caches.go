// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"sync"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// Caches is what one provider process keeps between the calls Terraform makes to it: the last renders
// and the render engine behind them (parsed templates, compiled schemas, template memos), one Git client
// per provider configuration, one render store per directory, and the context that stops function
// renders on Ctrl-C. main.go builds it once (NewCaches) and hands it to New; the provider hands it on in
// ProviderData (resources and data sources) and to what it serves unconfigured (the function, the data
// sources' constructors). Nothing of it is a package variable, so a test builds its own.
// ARCHITECTURE.md, "Process-wide state", gives each cache's bound and who clears it.
type Caches struct {
	// renders are the last renders of the function, the data source and kalypso_gitops_commit.
	renders *renderCache
	// gitClients holds one client per configured provider instance (*ProviderData -> *gitrepo.Client), so
	// that every resource and data source of that instance shares one cache directory. An entry lives
	// until its provider instance is configured again (KalypsoProvider.setData evicts it).
	gitClients sync.Map
	// renderStores holds one delivery.RenderStore per directory (string -> *delivery.RenderStore), shared
	// by every provider instance that uses it.
	renderStores sync.Map
	// temporary are the Git cache directories made for configurations without cache_dir; Close removes them.
	temporary gitrepo.TemporaryCaches
	// unconfigured stands for a provider that is not configured yet (Terraform validates before it
	// configures), so that all such calls share one Git client instead of adding one entry each.
	unconfigured *ProviderData

	stopMu sync.Mutex
	stop   context.Context // SetProcessStop; interrupt.go
}

// NewCaches returns empty caches with a render engine of its own.
func NewCaches() *Caches {
	c := &Caches{renders: newRenderCache(render.NewEngine()), stop: context.Background()}
	c.unconfigured = &ProviderData{caches: c}
	return c
}

// Close removes the temporary Git caches (full clones in the temp dir). main calls it when the plugin
// server has stopped and no Git work is left.
func (c *Caches) Close() error {
	return c.temporary.RemoveAll()
}

// cachesOrNil returns the caches the provider handed to d, or nil for a nil ProviderData or one that a
// test built by hand: callers then work without them.
func (d *ProviderData) cachesOrNil() *Caches {
	if d == nil {
		return nil
	}
	return d.caches
}
