// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// githubStatusesSource reads the commit statuses the clusters post to GitHub.
var githubStatusesSource = &rolloutSourceKind{
	attr:   "github_statuses",
	block:  func(b *rolloutSourceBlocks) types.Object { return b.GitHubStatuses },
	schema: githubStatusesSchema,
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

// rolloutGitHubModel is the github_statuses block.
type rolloutGitHubModel struct {
	Repository      types.String   `tfsdk:"repository"`
	ContextPatterns []types.String `tfsdk:"context_patterns"`
	Creators        []types.String `tfsdk:"creators"`
}

// ownerRepo is what github_statuses.repository must look like.
var ownerRepo = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// githubStatusesSchema is the github_statuses block; kalypso_gitops_commit's rollout describes it by
// pointing at kalypso_rollout's.
func githubStatusesSchema(use rolloutSourceUse, exactlyOne string) schema.SingleNestedAttribute {
	desc := "Read the commit statuses of the GitOps commits from the GitHub REST API (`github_base_url`, token from `git_token`/`GIT_TOKEN`/`GITHUB_TOKEN`; " +
		"it needs read access to commit statuses). " + exactlyOne
	patterns := "Regular expressions over the status context, each with a named group `cluster` and optionally `cluster_type` and `reconciler`. " +
		"A pattern must match the whole context. Contexts that match none (CI checks) are ignored. Defaults to Flux's `" + rollout.FluxContextPattern +
		"` (the last segment is the first part of the cluster's Provider UID, so `kustomization/lint/ci` is not a cluster)."
	creators := "The GitHub accounts (logins) whose statuses count, for example the account of the token the clusters' Flux Providers use. " +
		"Statuses that other accounts post are ignored: anyone who may post a commit status can otherwise post a context shaped like a cluster's. " +
		"Defaults to every account; a cluster reported by two accounts is then an error that names both."
	if use == inGitopsCommit {
		desc = "Read the commit statuses of the branch's commits, as `kalypso_rollout.github_statuses` does. " +
			exactlyOne
		patterns = "Regular expressions over the whole status context with a named group `cluster` and optionally `cluster_type`. " +
			"Defaults to Flux's `" + rollout.FluxContextPattern + "`."
		creators = "The GitHub accounts whose statuses count. Defaults to every account; a cluster two accounts report is an error."
	}
	return schema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"repository": schema.StringAttribute{
				Optional: true, MarkdownDescription: "`owner/name` on GitHub. Defaults to the owner and name in `repository_url`.",
				Validators: []validator.String{stringvalidator.RegexMatches(ownerRepo, "must be owner/name")},
			},
			"context_patterns": schema.ListAttribute{
				Optional: true, ElementType: types.StringType, MarkdownDescription: patterns,
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"creators": schema.ListAttribute{
				Optional: true, ElementType: types.StringType, MarkdownDescription: creators,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
		},
	}
}

// rolloutGitHubSource is the GitHub commit statuses source configured by obj (at: its attribute path, in
// kalypso_rollout or in kalypso_gitops_commit's rollout) for the GitOps repository repoURL.
func rolloutGitHubSource(ctx context.Context, pd *ProviderData, obj types.Object, at path.Path, repoURL string, limit int, diags diag.Diagnostics) (rollout.Source, diag.Diagnostics) {
	var gh rolloutGitHubModel
	diags.Append(obj.As(ctx, &gh, objectAsOptions)...)
	if diags.HasError() {
		return nil, diags
	}
	owner, name, err := githubpr.ParseRepo(repoURL)
	if r := gh.Repository.ValueString(); r != "" {
		owner, name, err = githubpr.ParseRepo("/" + r)
	}
	if err != nil {
		diags.AddAttributeError(at.AtName("repository"), "Cannot tell the GitHub repository",
			err.Error()+". Set github_statuses.repository to owner/name.")
		return nil, diags
	}
	patterns := []string{rollout.FluxContextPattern}
	if len(gh.ContextPatterns) > 0 {
		patterns = patterns[:0]
		for _, p := range gh.ContextPatterns {
			patterns = append(patterns, p.ValueString())
		}
	}
	res, err := rollout.CompilePatterns(patterns)
	if err != nil {
		diags.AddAttributeError(at.AtName("context_patterns"), "Invalid context pattern", err.Error())
		return nil, diags
	}
	svc, err := pd.GitHubClient()
	if err != nil {
		diags.AddAttributeError(at, "Cannot create the GitHub client", err.Error()+". Fix the provider's github_base_url.")
		return nil, diags
	}
	src := &rollout.GitHubStatuses{Lister: svc, Owner: owner, Repo: name, Patterns: res, Limit: limit}
	for _, c := range gh.Creators {
		src.Creators = append(src.Creators, c.ValueString())
	}
	return src, diags
}
