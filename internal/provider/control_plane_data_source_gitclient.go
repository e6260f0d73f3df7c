// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	gitrepo "github.com/kalypso/terraform-provider-kalypso/internal/git"
)

// controlPlaneGitClient is a stop-gap until ProviderData.GitClient (git_client.go) lands: it builds a
// client from the provider settings so that every read applies git_url_rewrites and the credentials.
func controlPlaneGitClient(pd *ProviderData) *gitrepo.Client {
	return &gitrepo.Client{
		CacheDir: pd.CacheDir,
		Rewrites: pd.GitURLRewrites,
		Auth: gitrepo.Auth{
			Token:          pd.GitToken,
			SSHPrivateKey:  pd.SSHPrivateKey,
			SSHKnownHosts:  pd.SSHKnownHosts,
			CACertificates: pd.CACertificates,
		},
	}
}
