// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"regexp"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// azureResourceGraphSource reads the Flux configurations of Arc-enabled and AKS clusters from Azure
// Resource Graph.
var azureResourceGraphSource = &rolloutSourceKind{
	attr:   "azure_resource_graph",
	block:  func(b *rolloutSourceBlocks) types.Object { return b.AzureGraph },
	schema: azureResourceGraphSchema,
	build:  rolloutAzureSource,
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

// rolloutAzureModel is the azure_resource_graph block.
type rolloutAzureModel struct {
	Subscriptions []types.String `tfsdk:"subscriptions"`
	RepositoryURL types.String   `tfsdk:"repository_url"`
	Credential    types.String   `tfsdk:"credential"`
	Endpoint      types.String   `tfsdk:"endpoint"`
}

// httpsURL is what an Azure Resource Manager endpoint must start with.
var httpsURL = regexp.MustCompile(`^https://`)

// azureResourceGraphSchema is the azure_resource_graph block; kalypso_gitops_commit's rollout describes
// it by pointing at kalypso_rollout's.
func azureResourceGraphSchema(use rolloutSourceUse, exactlyOne string) schema.SingleNestedAttribute {
	desc := "Read the Flux configurations of Arc-enabled and AKS clusters that reconcile `branch` from Azure Resource Graph " +
		"(`microsoft.kubernetesconfiguration/fluxconfigurations`: `complianceState`, `sourceSyncedCommitId`), as upstream's promotion check does. " +
		"The cluster is the resource the configuration extends. The identity needs **Reader** on the subscriptions. " +
		exactlyOne
	repoURL := "The URL in the Flux configurations' `gitRepository.url` (compared case-insensitively). Defaults to `repository_url`."
	credential := "How to authenticate: `default` (environment, workload identity, managed identity, then Azure CLI), `environment` " +
		"(`AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET`), `workload_identity` (`AZURE_FEDERATED_TOKEN_FILE`), " +
		"`oidc` (HCP Terraform dynamic credentials or GitHub Actions: `ARM_TENANT_ID`, `ARM_CLIENT_ID` or `TFC_AZURE_RUN_CLIENT_ID`, and " +
		"`ARM_OIDC_TOKEN`, `TFC_WORKLOAD_IDENTITY_TOKEN` or `ARM_OIDC_TOKEN_FILE_PATH`), `managed_identity` or `azure_cli`. Defaults to `default`."
	endpoint := "Azure Resource Manager endpoint, for a sovereign cloud (for example `https://management.usgovcloudapi.net`). Defaults to Azure's public cloud."
	if use == inGitopsCommit {
		desc = "Read the Flux configurations that reconcile `branch` from Azure Resource Graph, as `kalypso_rollout.azure_resource_graph` does. " +
			"Name the clusters per cluster type in `expected.clusters`: a Flux configuration does not say which cluster type its cluster is."
		repoURL = "The URL in the Flux configurations' `gitRepository.url`. Defaults to `repository_url`."
		credential = "How to authenticate, as `kalypso_rollout.azure_resource_graph.credential`. Defaults to `default`."
		endpoint = "Azure Resource Manager endpoint, for a sovereign cloud. Defaults to Azure's public cloud."
	}
	return schema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"subscriptions": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Subscription IDs to query. Defaults to every subscription the identity can read.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"repository_url": schema.StringAttribute{Optional: true, MarkdownDescription: repoURL},
			"credential": schema.StringAttribute{
				Optional: true, MarkdownDescription: credential,
				Validators: []validator.String{stringvalidator.OneOf(rollout.AzureCredentials...)},
			},
			"endpoint": schema.StringAttribute{
				Optional: true, MarkdownDescription: endpoint,
				Validators: []validator.String{stringvalidator.RegexMatches(httpsURL, "must be an https:// URL")},
			},
		},
	}
}

// rolloutAzureSource is the Azure Resource Graph source configured by obj (at: its attribute path) for the
// Flux configurations that reconcile branch of repoURL.
func rolloutAzureSource(ctx context.Context, pd *ProviderData, obj types.Object, at path.Path, repoURL, branch string, limit int, diags diag.Diagnostics) (rollout.Source, diag.Diagnostics) {
	var az rolloutAzureModel
	diags.Append(obj.As(ctx, &az, objectAsOptions)...)
	if diags.HasError() {
		return nil, diags
	}
	var cred azcore.TokenCredential
	var opts *arm.ClientOptions
	var err error
	if o := pd.azure; o != nil {
		cred, opts = o.credential, o.clientOptions
	} else if cred, err = rollout.AzureCredential(az.Credential.ValueString(), nil, pd.apiLimits()); err != nil {
		diags.AddAttributeError(at.AtName("credential"), "Cannot set up the Azure credential", err.Error()+".")
		return nil, diags
	}
	tokens := &rollout.TokenRecorder{TokenCredential: cred}
	client, err := rollout.NewResourceGraphClient(tokens, az.Endpoint.ValueString(), opts, pd.apiLimits())
	if err != nil {
		diags.AddAttributeError(at, "Cannot create the Resource Graph client", err.Error()+".")
		return nil, diags
	}
	src := &rollout.AzureResourceGraph{Client: client, RepoURL: az.RepositoryURL.ValueString(), Branch: branch, Limit: limit,
		Limits: pd.apiLimits(), Tokens: tokens}
	if src.RepoURL == "" {
		src.RepoURL = repoURL
	}
	for _, s := range az.Subscriptions {
		src.Subscriptions = append(src.Subscriptions, s.ValueString())
	}
	return src, diags
}
