// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// GitClientOption adjusts the Git client for one resource (never its cache).
type GitClientOption func(*gitrepo.Client)

// WithSSHHostKeyFingerprint pins the ssh host key by its SHA256 fingerprint instead of known_hosts.
func WithSSHHostKeyFingerprint(fp string) GitClientOption {
	return func(c *gitrepo.Client) {
		if fp != "" {
			c.Auth.SSHHostKeyFingerprint = fp
		}
	}
}

// forgetGitClient drops the client of a provider configuration that was replaced. Its temporary
// cache directory stays until the process ends (Caches.Close): an operation that took
// the client before the eviction may still be using it.
func (c *Caches) forgetGitClient(d *ProviderData) {
	if d != nil {
		c.gitClients.Delete(d)
	}
}

// GitClient returns the provider instance's Git client (shared cache, rewrites,
// credentials). With options it returns a client that shares the same cache directory.
// A ProviderData without caches (nil, or built by a test) gets a client of its own each call.
func (d *ProviderData) GitClient(opts ...GitClientOption) *gitrepo.Client {
	var base *gitrepo.Client
	if c := d.cachesOrNil(); c != nil {
		v, ok := c.gitClients.Load(d)
		if !ok {
			v, _ = c.gitClients.LoadOrStore(d, d.newGitClient(&c.temporary))
		}
		base = v.(*gitrepo.Client) //nolint:forcetypeassert // gitClients only ever holds *gitrepo.Client
	} else {
		base = d.newGitClient(nil)
	}
	if len(opts) == 0 {
		return base
	}
	c := &gitrepo.Client{CacheDir: base.CacheDir, InspectionDir: base.InspectionDir, Rewrites: base.Rewrites, Auth: base.Auth, Timeout: base.Timeout, MaxRetries: base.MaxRetries, Debug: base.Debug,
		CredentialHosts: base.CredentialHosts, AllowLocalContent: base.AllowLocalContent}
	for _, o := range opts {
		o(c)
	}
	return c
}

// newGitClient is the Git client of d's configuration (of no configuration for a nil d), with a
// temporary cache directory recorded in temporary (removed when the process ends) when d sets no cache_dir.
func (d *ProviderData) newGitClient(temporary *gitrepo.TemporaryCaches) *gitrepo.Client {
	if d == nil {
		d = &ProviderData{}
	}
	cacheDir := d.CacheDir
	if cacheDir == "" {
		if dir, err := temporary.NewDir(); err == nil {
			cacheDir = dir
		}
	}
	return &gitrepo.Client{
		CacheDir:      cacheDir,
		InspectionDir: d.InspectionDir(),
		Rewrites:      d.GitURLRewrites,
		Timeout:       d.GitTimeout,
		Debug:         debugLog,
		// URLs from repository content get the token only for these hosts, and name local
		// repositories only when allowed (gitrepo.Client.ForContent).
		CredentialHosts:   d.GitCredentialHosts,
		AllowLocalContent: d.AllowLocalContent,
		Auth: gitrepo.Auth{
			LoopbackHTTP:   d.loopbackHTTP(),
			Token:          d.GitToken,
			SSHPrivateKey:  d.SSHPrivateKey,
			SSHKnownHosts:  d.SSHKnownHosts,
			CACertificates: d.CACertificates,
		},
	}
}

// debugLog writes an engine debug event to Terraform's log (TF_LOG=debug). Engine packages take it
// as a plain function, so they never import the framework.
func debugLog(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// GitHubClient returns a pull-request service for the provider's GitHub base URL and token.
func (d *ProviderData) GitHubClient() (*githubpr.Service, error) {
	if d == nil {
		d = &ProviderData{}
	}
	return githubpr.New(githubpr.Options{BaseURL: d.GitHubBaseURL, Token: d.GitToken, LoopbackHTTP: d.loopbackHTTP(), Debug: debugLog, Limits: d.APILimits})
}

// RenderStoreDir is where kalypso_gitops_commit keeps the desired trees its plans render, for the apply in
// the next provider process: renders/ in cache_dir when one is configured, else in the user's cache
// directory (it must outlive the process, unlike the temporary Git cache). "" when there is none.
func (d *ProviderData) RenderStoreDir() string {
	if d != nil && d.CacheDir != "" {
		return filepath.Join(d.CacheDir, "renders")
	}
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "terraform-provider-kalypso", "renders")
}

// InspectionDir is where the Git client keeps what it read of a branch at a commit, for the next provider
// process that reads the same commit (gitrepo.Client.InspectionDir): beside the render store, which
// outlives the process for the same reason. "" when there is no such directory.
func (d *ProviderData) InspectionDir() string {
	dir := d.RenderStoreDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "inspections")
}

// RenderStore is the store in RenderStoreDir, or nil when there is none.
func (d *ProviderData) RenderStore() *delivery.RenderStore {
	dir := d.RenderStoreDir()
	if dir == "" {
		return nil
	}
	c := d.cachesOrNil()
	if c == nil {
		return delivery.NewRenderStore(dir)
	}
	v, ok := c.renderStores.Load(dir)
	if !ok {
		v, _ = c.renderStores.LoadOrStore(dir, delivery.NewRenderStore(dir))
	}
	return v.(*delivery.RenderStore) //nolint:forcetypeassert // renderStores only ever holds *delivery.RenderStore
}
