// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"os"
	"path/filepath"
	"sync"

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

// gitClients holds one client per configured provider instance, so that every
// resource and data source of that instance shares one cache directory. An entry lives until
// its provider instance is configured again (KalypsoProvider.setData evicts it) or the process
// ends; see ARCHITECTURE.md, "Process-wide state".
var gitClients sync.Map // *ProviderData -> *gitrepo.Client

// unconfiguredData stands for a provider that is not configured yet (Terraform validates before it
// configures), so that all such calls share one client instead of adding one entry each.
var unconfiguredData = &ProviderData{}

// forgetGitClient drops the client of a provider configuration that was replaced. Its temporary
// cache directory stays until the process ends (RemoveTemporaryCaches): an operation that took
// the client before the eviction may still be using it.
func forgetGitClient(d *ProviderData) {
	if d != nil {
		gitClients.Delete(d)
	}
}

// GitClient returns the provider instance's Git client (shared cache, rewrites,
// credentials). With options it returns a client that shares the same cache directory.
// A nil ProviderData (provider not configured) yields a client without credentials.
func (d *ProviderData) GitClient(opts ...GitClientOption) *gitrepo.Client {
	if d == nil {
		d = unconfiguredData
	}
	v, ok := gitClients.Load(d)
	if !ok {
		cacheDir := d.CacheDir
		if cacheDir == "" {
			// One temporary cache per provider process and configuration, removed when the process ends.
			if dir, err := gitrepo.NewTemporaryCacheDir(); err == nil {
				cacheDir = dir
			}
		}
		v, _ = gitClients.LoadOrStore(d, &gitrepo.Client{
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
		})
	}
	base := v.(*gitrepo.Client) //nolint:forcetypeassert // gitClients only ever holds *gitrepo.Client
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

// RemoveTemporaryCaches deletes the Git caches this process created in the temp dir because no cache_dir
// was set. main calls it when the plugin server stops.
func RemoveTemporaryCaches() error {
	return gitrepo.RemoveTemporaryCaches()
}

// renderStores holds one delivery.RenderStore per directory, shared by every provider instance that uses it.
var renderStores sync.Map // string -> *delivery.RenderStore

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
	v, ok := renderStores.Load(dir)
	if !ok {
		v, _ = renderStores.LoadOrStore(dir, delivery.NewRenderStore(dir))
	}
	return v.(*delivery.RenderStore) //nolint:forcetypeassert // renderStores only ever holds *delivery.RenderStore
}
