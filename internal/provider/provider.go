// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ provider.Provider              = &KalypsoProvider{}
	_ provider.ProviderWithFunctions = &KalypsoProvider{}
)

// KalypsoProvider is the provider implementation.
type KalypsoProvider struct {
	version string
	// caches are the process's (main.go builds them once); each configuration's ProviderData carries them.
	caches *Caches

	mu   sync.Mutex
	data *ProviderData // the last configuration, whose Git client a new one replaces

	// azure is nil except in tests (azureOverride).
	azure *azureOverride
	// now is nil except in tests: the clock change_windows is decided by. Only the provider factories
	// set it; no configuration or environment variable can, so nobody leaves a freeze by moving a clock.
	now func() time.Time
}

// setData records the provider's new configuration and evicts the Git client of the one it replaces.
func (p *KalypsoProvider) setData(data *ProviderData) {
	p.mu.Lock()
	prev := p.data
	p.data = data
	p.mu.Unlock()
	if prev != data && p.caches != nil {
		p.caches.forgetGitClient(prev)
	}
}

// KalypsoProviderModel describes the provider configuration block.
type KalypsoProviderModel struct {
	GitToken       types.String `tfsdk:"git_token"`
	SSHPrivateKey  types.String `tfsdk:"ssh_private_key"`
	SSHKnownHosts  types.String `tfsdk:"ssh_known_hosts"`
	Author         types.Object `tfsdk:"author"`
	GitHubBaseURL  types.String `tfsdk:"github_base_url"`
	GitURLRewrites types.Map    `tfsdk:"git_url_rewrites"`
	CacheDir       types.String `tfsdk:"cache_dir"`
	CACertificates types.String `tfsdk:"ca_certificates"`
	GitTimeout     types.String `tfsdk:"git_timeout"`

	RenderTimeout          types.String `tfsdk:"render_timeout"`
	TemplateTimeout        types.String `tfsdk:"template_timeout"`
	TemplateMaxOutputBytes types.Int64  `tfsdk:"template_max_output_bytes"`
	RenderMaxOutputBytes   types.Int64  `tfsdk:"render_max_output_bytes"`
	ConfigSchemaMaxDepth   types.Int64  `tfsdk:"config_schema_max_depth"`
	ConfigSchemaMaxBytes   types.Int64  `tfsdk:"config_schema_max_bytes"`

	TrustModel
}

// AuthorModel is the commit author identity.
type AuthorModel struct {
	Name  types.String `tfsdk:"name"`
	Email types.String `tfsdk:"email"`
}

// ProviderData is handed to every resource, data source and function that needs provider-level settings.
type ProviderData struct {
	// GitToken is the https token; from configuration, else GIT_TOKEN, else GITHUB_TOKEN. Never logged.
	GitToken string
	// SSHPrivateKey is a PEM private key; from configuration, else GIT_SSH_KEY. Never logged.
	SSHPrivateKey string
	// SSHKnownHosts is known_hosts content used to verify ssh host keys.
	SSHKnownHosts string
	AuthorName    string
	AuthorEmail   string
	GitHubBaseURL string
	// GitURLRewrites maps a URL prefix to its replacement, like git's url.<base>.insteadOf.
	GitURLRewrites map[string]string
	// CacheDir holds fetched repositories between calls; empty means a per-process temporary directory.
	CacheDir string
	// CACertificates is extra PEM CA bundle content for private Git hosts.
	CACertificates string
	// GitTimeout bounds each Git network operation (fetch, list, push).
	GitTimeout time.Duration
	// RenderLimits bound every render: its time, each template's time and output sizes.
	RenderLimits RenderLimits
	// LoopbackHTTP allows the token over plain http to loopback hosts (allow_loopback_http).
	LoopbackHTTP bool
	// GitCredentialHosts receive the token for URLs from repository content (git_credential_hosts).
	GitCredentialHosts []string
	// AllowLocalContent lets URLs from repository content name local repositories (allow_local_repositories_from_content).
	AllowLocalContent bool
	// APILimits bound every request to GitHub's REST API and Azure (api_request_timeout, ...).
	APILimits outbound.Limits
	// Locations are where the kalypso_gitops_commit resources of this plan deliver: two that overlap are
	// refused at plan, even when both are new. Each Configure (each Terraform walk) starts afresh.
	Locations *delivery.Locations

	// azure is nil except in tests (azureOverride).
	azure *azureOverride
	// caches are the provider process's (KalypsoProvider.caches); nil in a ProviderData a test builds.
	caches *Caches
	// now is nil except in tests (KalypsoProvider.now); Now reads it.
	now func() time.Time
}

// Now is the time change_windows is decided at: the real clock, or a test's.
func (d *ProviderData) Now() time.Time {
	if d == nil || d.now == nil {
		return time.Now()
	}
	return d.now()
}

// configuredProviderData is the body of every Configure: it returns the provider's data, or nil when
// the provider is not configured yet (Terraform validates before it configures), or when the framework
// hands over something else, which is a bug reported as an error.
func configuredProviderData(v any, diags *diag.Diagnostics) *ProviderData {
	if v == nil {
		return nil
	}
	data, ok := v.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("expected *provider.ProviderData, got %T. This is a bug in the provider; please report it.", v))
	}
	return data
}

// DefaultGitTimeout bounds each Git network operation when git_timeout is not set.
const DefaultGitTimeout = 2 * time.Minute

// New returns a constructor for the provider.
func New(version string, caches *Caches) func() provider.Provider {
	return func() provider.Provider {
		return &KalypsoProvider{version: version, caches: caches}
	}
}

func (p *KalypsoProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kalypso"
	resp.Version = p.version
}

func (p *KalypsoProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kalypso multi-cluster workload scheduling with GitOps, computed inside `terraform plan`. " +
			"Every attribute is optional; credentials fall back to environment variables so that they never need to appear in configuration.",
		Attributes: map[string]schema.Attribute{
			"git_token": schema.StringAttribute{
				MarkdownDescription: "Token for https Git remotes and the GitHub API. Defaults to `GIT_TOKEN`, then `GITHUB_TOKEN`. Provider configuration is never written to state.",
				Optional:            true,
				Sensitive:           true,
			},
			"ssh_private_key": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded private key for ssh Git remotes. Defaults to `GIT_SSH_KEY`.",
				Optional:            true,
				Sensitive:           true,
			},
			"ssh_known_hosts": schema.StringAttribute{
				MarkdownDescription: "known_hosts content used to verify ssh host keys. Defaults to `GIT_SSH_KNOWN_HOSTS`, then `~/.ssh/known_hosts`. Host keys are always verified.",
				Optional:            true,
			},
			"author": schema.SingleNestedAttribute{
				MarkdownDescription: "Default commit author for `kalypso_gitops_commit`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Author name; no line break, `<`, `>` or NUL.",
						Validators: []validator.String{validators.CommitIdentity("name")}},
					"email": schema.StringAttribute{Optional: true, MarkdownDescription: "Author email; no line break, `<`, `>` or NUL.",
						Validators: []validator.String{validators.CommitIdentity("email")}},
				},
			},
			"github_base_url": schema.StringAttribute{
				MarkdownDescription: "GitHub API base URL, for GitHub Enterprise Server (for example `https://ghe.example.com/api/v3/`). Defaults to `https://api.github.com/`.",
				Optional:            true,
			},
			"git_url_rewrites": schema.MapAttribute{
				MarkdownDescription: "Map of URL prefix to replacement applied to every Git URL before it is fetched or pushed, like git's `url.<base>.insteadOf`. The longest matching prefix wins. Use it to resolve `https://github.com/...` from a mirror or a `file://` path.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Map{validators.NoNullElements()},
			},
			"cache_dir": schema.StringAttribute{
				MarkdownDescription: "Directory where fetched repositories are cached between calls. Defaults to `KALYPSO_CACHE_DIR`, else a temporary directory that lives for one provider process. " +
					"`kalypso_gitops_commit` keeps the desired trees its plans render in `renders/` below it (by default in `terraform-provider-kalypso/renders` of the user's cache directory), so that the apply of a plan, in another provider process, does not render again, " +
					"and in `renders/inspections` what its plans read of a branch at a commit, so that the next plan of the same commit reads no Git object.",
				Optional: true,
			},
			"ca_certificates": schema.StringAttribute{
				MarkdownDescription: "Extra PEM CA certificates trusted for https Git remotes on private hosts, in addition to the system roots. TLS verification is always on; there is no option to skip it. Checked at plan time: only CERTIFICATE blocks that parse.",
				Optional:            true,
				Validators:          []validator.String{validators.PEMCertificates()},
			},
			"git_timeout": schema.StringAttribute{
				MarkdownDescription: "Upper bound for each Git network operation (one fetch, one ref listing, one push), as a Go duration such as `90s` or `5m`. " +
					"Defaults to `KALYPSO_GIT_TIMEOUT`, else `2m`. An operation that exceeds it fails the plan or apply without writing anything.",
				Optional: true,
			},
		},
	}
	for name, a := range trustAttributes() {
		resp.Schema.Attributes[name] = a
	}
	for _, l := range renderLimitSettings {
		desc := fmt.Sprintf("%s Defaults to `%s`, else `%s`. A render that exceeds it fails with a diagnostic naming what exceeded it (the template and deployment target, or the config schema and whose it is) and this attribute; see SECURITY.md.", l.help, l.env, l.def)
		if l.attr != render.AttrRenderTimeout && l.attr != render.AttrTemplateTimeout {
			resp.Schema.Attributes[l.attr] = schema.Int64Attribute{MarkdownDescription: desc, Optional: true}
		} else {
			resp.Schema.Attributes[l.attr] = schema.StringAttribute{MarkdownDescription: desc, Optional: true}
		}
	}
}

func (p *KalypsoProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg KalypsoProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	data := &ProviderData{
		GitToken:       firstNonEmpty(cfg.GitToken.ValueString(), os.Getenv("GIT_TOKEN"), os.Getenv("GITHUB_TOKEN")),
		SSHPrivateKey:  firstNonEmpty(cfg.SSHPrivateKey.ValueString(), os.Getenv("GIT_SSH_KEY")),
		SSHKnownHosts:  firstNonEmpty(cfg.SSHKnownHosts.ValueString(), os.Getenv("GIT_SSH_KNOWN_HOSTS")),
		GitHubBaseURL:  firstNonEmpty(cfg.GitHubBaseURL.ValueString(), os.Getenv("GITHUB_BASE_URL")),
		CacheDir:       firstNonEmpty(cfg.CacheDir.ValueString(), os.Getenv("KALYPSO_CACHE_DIR")),
		CACertificates: cfg.CACertificates.ValueString(),
		GitURLRewrites: map[string]string{},
		Locations:      &delivery.Locations{},
		caches:         p.caches,
		azure:          p.azure,
		now:            p.now,
	}
	data.GitTimeout = DefaultGitTimeout
	if v := firstNonEmpty(cfg.GitTimeout.ValueString(), os.Getenv("KALYPSO_GIT_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("git_timeout"), "Invalid git_timeout",
				fmt.Sprintf("%q is not a positive Go duration. Use a value such as \"90s\" or \"5m\" (from git_timeout or KALYPSO_GIT_TIMEOUT).", v))
			return
		}
		data.GitTimeout = d
	}
	limits, err := renderLimitsFromEnv(configuredLimits(cfg))
	if err != nil {
		var le *limitSettingError
		if errors.As(err, &le) {
			resp.Diagnostics.AddAttributeError(path.Root(le.attr), "Invalid "+le.attr, err.Error())
			return
		}
	}
	data.RenderLimits = limits
	configureTrust(ctx, cfg.TrustModel, data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cfg.Author.IsNull() && !cfg.Author.IsUnknown() {
		var author AuthorModel
		resp.Diagnostics.Append(cfg.Author.As(ctx, &author, objectAsOptions)...)
		if resp.Diagnostics.HasError() {
			return
		}
		data.AuthorName = author.Name.ValueString()
		data.AuthorEmail = author.Email.ValueString()
	}
	if !cfg.GitURLRewrites.IsNull() && !cfg.GitURLRewrites.IsUnknown() {
		resp.Diagnostics.Append(cfg.GitURLRewrites.ElementsAs(ctx, &data.GitURLRewrites, false)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	p.setData(data)
	resp.DataSourceData = data
	resp.ResourceData = data
}

func (p *KalypsoProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewClusterTypeResource,
		NewSchedulingPolicyResource,
		NewWorkloadRegistrationResource,
		NewTemplateResource,
		NewPlatformConfigResource,
		NewConfigSchemaResource,
		NewGitopsCommitResource,
	}
}

func (p *KalypsoProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewEnvironmentRenderDataSource(p.caches),
		NewControlPlaneDataSource(p.caches),
		NewRolloutDataSource,
		NewFleetStatusDataSource,
	}
}

func (p *KalypsoProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewEnvironmentRenderFunction(p.caches),
	}
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
