// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

// The provider attributes that scope credentials and bound outside answers (SECURITY.md, "Credentials
// are scoped" and "Outside answers are bounded").
const (
	attrGitCredentialHosts       = "git_credential_hosts"
	attrAllowLoopbackHTTP        = "allow_loopback_http"
	attrAllowLocalContentRepos   = "allow_local_repositories_from_content"
	envAllowLoopbackHTTP         = "KALYPSO_ALLOW_LOOPBACK_HTTP"
	envAPIRequestTimeout         = "KALYPSO_API_REQUEST_TIMEOUT"
	envAPIReadTimeout            = "KALYPSO_API_READ_TIMEOUT"
	envAPIMaxRetryAfter          = "KALYPSO_API_MAX_RETRY_AFTER"
	defaultAPIRequestTimeoutText = "30s"
)

// TrustModel is the part of the provider configuration that scopes credentials and bounds outside
// answers; KalypsoProviderModel embeds it.
type TrustModel struct {
	GitCredentialHosts     types.List   `tfsdk:"git_credential_hosts"`
	AllowLoopbackHTTP      types.Bool   `tfsdk:"allow_loopback_http"`
	AllowLocalContentRepos types.Bool   `tfsdk:"allow_local_repositories_from_content"`
	APIRequestTimeout      types.String `tfsdk:"api_request_timeout"`
	APIReadTimeout         types.String `tfsdk:"api_read_timeout"`
	APIMaxRetryAfter       types.String `tfsdk:"api_max_retry_after"`
}

// trustAttributes are the schema of TrustModel.
func trustAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		attrGitCredentialHosts: schema.ListAttribute{
			MarkdownDescription: "Hosts (`host` or `host:port`) that receive `git_token` for a repository URL that comes from repository content: " +
				"a control plane's BaseRepo `spec.repo` or a WorkloadRegistration's `spec.workload.repo`, which whoever can write those repositories chooses. " +
				"By default such a URL gets no credential unless `git_url_rewrites` maps it. URLs the configuration names (`repository_url`, `source.repo`, `git.repo`) " +
				"and rewrite targets need no listing. The token never goes over plain http except to a loopback host with `allow_loopback_http`, and never across a redirect to another host.",
			Optional:    true,
			ElementType: types.StringType,
			Validators:  []validator.List{validators.NoNullElements()},
		},
		attrAllowLoopbackHTTP: schema.BoolAttribute{
			MarkdownDescription: "Send `git_token` over plain http to a loopback host (`127.0.0.0/8`, `::1`, `localhost`): a local mirror or a test server. " +
				"Defaults to `" + envAllowLoopbackHTTP + "`, else `false`. The token never goes over plain http to any other host.",
			Optional: true,
		},
		attrAllowLocalContentRepos: schema.BoolAttribute{
			MarkdownDescription: "Let a repository URL that comes from repository content (BaseRepo `spec.repo`, WorkloadRegistration `spec.workload.repo`) name a " +
				"local repository (`file://` or a path) that `git_url_rewrites` does not map. Defaults to `false`: such a URL could read any repository on the machine " +
				"that runs Terraform into the plan.",
			Optional: true,
		},
		outbound.AttrRequestTimeout: schema.StringAttribute{
			MarkdownDescription: "Upper bound for one request to GitHub's REST API, Azure Resource Graph or Entra ID (connecting, the headers and the whole body), as a Go duration. " +
				"Defaults to `" + envAPIRequestTimeout + "`, else `" + defaultAPIRequestTimeoutText + "`.",
			Optional: true,
		},
		outbound.AttrReadTimeout: schema.StringAttribute{
			MarkdownDescription: "Upper bound for one read of such a source (every page, retry and throttling wait of one commit's statuses or one Resource Graph query), as a Go duration. " +
				"Defaults to `" + envAPIReadTimeout + "`, else `5m`.",
			Optional: true,
		},
		outbound.AttrMaxRetryAfter: schema.StringAttribute{
			MarkdownDescription: "Longest `Retry-After` (or GitHub rate-limit reset) the provider waits out before it retries a throttled request, as a Go duration; " +
				"a longer one fails the plan with a `throttled` error at once. Defaults to `" + envAPIMaxRetryAfter + "`, else `30s`.",
			Optional: true,
		},
	}
}

// configureTrust reads TrustModel into data.
func configureTrust(ctx context.Context, cfg TrustModel, data *ProviderData, diags *diag.Diagnostics) {
	if !cfg.GitCredentialHosts.IsNull() && !cfg.GitCredentialHosts.IsUnknown() {
		diags.Append(cfg.GitCredentialHosts.ElementsAs(ctx, &data.GitCredentialHosts, false)...)
		for i, h := range data.GitCredentialHosts {
			if h = strings.TrimSpace(h); h == "" || strings.ContainsAny(h, "/@ \t") {
				diags.AddAttributeError(path.Root(attrGitCredentialHosts).AtListIndex(i), "Invalid credential host",
					fmt.Sprintf("%q is not a host or host:port (no scheme, path or user); for example \"github.com\" or \"git.example.com:8443\".", h))
			}
		}
	}
	data.LoopbackHTTP = cfg.AllowLoopbackHTTP.ValueBool() || (cfg.AllowLoopbackHTTP.IsNull() && envTrue(envAllowLoopbackHTTP))
	data.AllowLocalContent = cfg.AllowLocalContentRepos.ValueBool()
	for _, s := range []struct {
		attr, env string
		v         types.String
		set       *time.Duration
	}{
		{outbound.AttrRequestTimeout, envAPIRequestTimeout, cfg.APIRequestTimeout, &data.APILimits.RequestTimeout},
		{outbound.AttrReadTimeout, envAPIReadTimeout, cfg.APIReadTimeout, &data.APILimits.ReadTimeout},
		{outbound.AttrMaxRetryAfter, envAPIMaxRetryAfter, cfg.APIMaxRetryAfter, &data.APILimits.MaxRetryAfter},
	} {
		v := firstNonEmpty(s.v.ValueString(), os.Getenv(s.env))
		if v == "" {
			continue
		}
		d, err := positiveDuration(v)
		if err != nil {
			diags.AddAttributeError(path.Root(s.attr), "Invalid "+s.attr, fmt.Sprintf("%s (from %s or %s).", err, s.attr, s.env))
			continue
		}
		*s.set = d
	}
	data.APILimits = data.APILimits.WithDefaults()
}

// loopbackHTTP reports whether the token may be sent over plain http to a loopback host.
func (d *ProviderData) loopbackHTTP() bool {
	if d == nil {
		return envTrue(envAllowLoopbackHTTP)
	}
	return d.LoopbackHTTP
}

// apiLimits bound the provider's requests to GitHub's REST API and Azure; a nil ProviderData (provider
// not configured) uses the defaults.
func (d *ProviderData) apiLimits() outbound.Limits {
	if d == nil {
		return outbound.Limits{}.WithDefaults()
	}
	return d.APILimits.WithDefaults()
}

func envTrue(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "1", "true", "yes":
		return true
	}
	return false
}
