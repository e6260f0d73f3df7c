// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// rolloutSources is the one list of the places clusters report to about the GitOps commits (the rollout
// sources): kalypso_rollout and kalypso_gitops_commit's rollout take exactly one of them, each as a
// block named after it. Which block is configured, how its source is built, which errors of a read are
// its own to explain (and how), and what to check when no cluster reported all come from here, so a
// read that fails is explained by the source that was configured, never by another. Adding a source
// is a rolloutSourceKind in a file of its own, a line here, its block in the three schemas and models
// (kalypso_rollout, kalypso_gitops_commit's rollout, kalypso_fleet_status's environments).
var rolloutSources = []*rolloutSourceKind{githubStatusesSource, azureResourceGraphSource}

// rolloutSourceKind is one kind of rollout source.
type rolloutSourceKind struct {
	// attr names the block, in kalypso_rollout and in kalypso_gitops_commit's rollout.
	attr string
	// inRollout, inCommit and inFleet return the block of kalypso_rollout's model, kalypso_gitops_commit's
	// rollout's and one environment of kalypso_fleet_status.
	inRollout func(*RolloutModel) types.Object
	inCommit  func(*gitopsRolloutModel) types.Object
	inFleet   func(*fleetEnvironmentModel) types.Object
	// build makes the source of the block obj (at: its attribute path) for branch of the GitOps
	// repository repoURL, refusing more than limit clusters.
	build func(ctx context.Context, pd *ProviderData, obj types.Object, at path.Path, repoURL, branch string, limit int, diags diag.Diagnostics) (rollout.Source, diag.Diagnostics)
	// explain adds the diagnostic of an error of a read from this source that is its own (at: the
	// block's path) and reports true, or reports false for an error it does not know.
	explain func(err error, env string, at path.Path, diags *diag.Diagnostics) bool
	// fallback is the diagnostic's detail for any other error of a read from this source.
	fallback func(err error) string
	// noReportHint says what to check when no expected cluster reported through src.
	noReportHint func(src rollout.Source) string
}

// rolloutSourceNames is "`a` and `b`" (or "`a`, `b` and `c`") of the sources' blocks, for descriptions.
func rolloutSourceNames() string {
	names := make([]string, len(rolloutSources))
	for i, s := range rolloutSources {
		names[i] = "`" + s.attr + "`"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// configuredRolloutSource returns the source whose block block returns as set, the first one when none
// is (the configuration validators refuse that before a read).
func configuredRolloutSource(block func(*rolloutSourceKind) types.Object) *rolloutSourceKind {
	for _, s := range rolloutSources {
		if !block(s).IsNull() {
			return s
		}
	}
	return rolloutSources[0]
}

// rolloutError words an error of a read from src at the attribute to fix: the errors of the GitOps
// branch and of the expectations first, then the source's own, then the source's fallback.
func rolloutError(err error, env string, src *rolloutSourceKind) diag.Diagnostics {
	var diags diag.Diagnostics
	at := path.Root(src.attr)
	if rolloutCommonError(err, env, at, &diags) || src.explain(err, env, at, &diags) {
		return diags
	}
	diags.AddAttributeError(at, "Cannot read the rollout of "+env, src.fallback(err))
	return diags
}

// githubStatusesSource reads the commit statuses the clusters post to GitHub.
var githubStatusesSource = &rolloutSourceKind{
	attr:      "github_statuses",
	inRollout: func(m *RolloutModel) types.Object { return m.GitHubStatuses },
	inCommit:  func(m *gitopsRolloutModel) types.Object { return m.GitHubStatuses },
	inFleet:   func(m *fleetEnvironmentModel) types.Object { return m.GitHubStatuses },
	build: func(ctx context.Context, pd *ProviderData, obj types.Object, at path.Path, repoURL, _ string, limit int, diags diag.Diagnostics) (rollout.Source, diag.Diagnostics) {
		return rolloutGitHubSource(ctx, pd, obj, at, repoURL, limit, diags)
	},
	explain: func(err error, _ string, at path.Path, diags *diag.Diagnostics) bool {
		switch {
		case errors.Is(err, rollout.ErrSharedCluster):
			diags.AddAttributeError(at.AtName("creators"), "One cluster, two reporters", err.Error()+
				". Set github_statuses.creators to the account the clusters post with, and find out who posts the other; nothing was written.")
		case errors.Is(err, githubpr.ErrTooMany):
			diags.AddAttributeError(path.Root("max_clusters"), "Too many statuses", err.Error()+
				". Narrow github_statuses.context_patterns, or raise max_clusters for a fleet this large.")
		case errors.Is(err, githubpr.ErrNotFound), errors.Is(err, githubpr.ErrMalformed):
			diags.AddAttributeError(at, "Cannot read the commit statuses", err.Error()+
				". Check github_statuses.repository (or repository_url), the provider's github_base_url, and that the token may read commit statuses.")
		default:
			return false
		}
		return true
	},
	fallback: func(err error) string {
		return err.Error() + ". Check that the status API is reachable from this machine (github_base_url) and that the token may read commit statuses; nothing was written."
	},
	noReportHint: func(src rollout.Source) string {
		gh, ok := src.(*rollout.GitHubStatuses)
		if !ok {
			return "Check that the clusters post statuses (Flux: a Provider of type github and an Alert for the Kustomizations) and that the context patterns match them."
		}
		// Name the repository asked: it comes from repository_url unless github_statuses.repository is set.
		return fmt.Sprintf("The statuses were read from the GitHub repository %s/%s; check that the clusters post statuses there "+
			"(Flux: a Provider of type github for that repository and an Alert for the Kustomizations), that the context patterns match them, "+
			"and that github_statuses.repository (or repository_url) names the repository the clusters post to.", gh.Owner, gh.Repo)
	},
}

// azureResourceGraphSource reads the Flux configurations of Arc-enabled and AKS clusters from Azure
// Resource Graph.
var azureResourceGraphSource = &rolloutSourceKind{
	attr:      "azure_resource_graph",
	inRollout: func(m *RolloutModel) types.Object { return m.AzureGraph },
	inCommit:  func(m *gitopsRolloutModel) types.Object { return m.AzureGraph },
	inFleet:   func(m *fleetEnvironmentModel) types.Object { return m.AzureGraph },
	build:     rolloutAzureSource,
	explain: func(err error, env string, at path.Path, diags *diag.Diagnostics) bool {
		switch {
		case errors.Is(err, rollout.ErrTooManyClusters):
			diags.AddAttributeError(path.Root("max_clusters"), "Too many clusters", err.Error()+
				". Scope azure_resource_graph.subscriptions, or raise max_clusters for a fleet this large.")
		case errors.Is(err, rollout.ErrMalformedAnswer):
			diags.AddAttributeError(at, "Cannot read the Flux configurations", err.Error()+
				". Check azure_resource_graph.endpoint; nothing was written.")
		case errors.Is(err, rollout.ErrResourceGraph):
			diags.AddAttributeError(at, "Cannot read the rollout of "+env, azureResourceGraphFallback(err))
		default:
			return false
		}
		return true
	},
	fallback: azureResourceGraphFallback,
	noReportHint: func(rollout.Source) string {
		return "Check that the clusters' Flux configurations reconcile this branch of the repository in azure_resource_graph.repository_url (or repository_url), " +
			"and that the identity has Reader on their subscriptions."
	},
}

// azureResourceGraphFallback is what to check about a read from Azure Resource Graph that failed.
func azureResourceGraphFallback(err error) string {
	return err.Error() + ". Check the Azure credential (azure_resource_graph.credential and its environment variables), that the identity has Reader on the subscriptions, " +
		"and that Azure Resource Manager is reachable; nothing was written."
}
