// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/controlplane"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ datasource.DataSource                     = &ControlPlaneDataSource{}
	_ datasource.DataSourceWithConfigure        = &ControlPlaneDataSource{}
	_ datasource.DataSourceWithConfigValidators = &ControlPlaneDataSource{}
)

// ControlPlaneDataSource is kalypso_control_plane: it reads an upstream Kalypso control-plane repository as-is.
type ControlPlaneDataSource struct {
	// client is the provider instance's shared Git client (cache, git_url_rewrites, credentials).
	client *gitrepo.Client
	caches *Caches
}

// unconfigured is the ProviderData of a provider that is not configured, with the data source's caches.
func (d *ControlPlaneDataSource) unconfigured() *ProviderData {
	if d.caches == nil {
		return nil
	}
	return d.caches.unconfigured
}

// NewControlPlaneDataSource returns the data source; before the provider is configured it reads with
// the Git client of caches for an unconfigured provider.
func NewControlPlaneDataSource(caches *Caches) func() datasource.DataSource {
	return func() datasource.DataSource { return &ControlPlaneDataSource{caches: caches} }
}

// ControlPlaneModel is the data source's configuration and state.
type ControlPlaneModel struct {
	Dir              types.String `tfsdk:"dir"`
	Git              types.Object `tfsdk:"git"`
	ResolveWorkloads types.Bool   `tfsdk:"resolve_workloads"`
	Ignore           types.String `tfsdk:"ignore"`
	FollowBaseRepo   types.Bool   `tfsdk:"follow_base_repo"`

	Manifests             types.List   `tfsdk:"manifests"`
	ClusterTypes          types.List   `tfsdk:"cluster_types"`
	SchedulingPolicies    types.List   `tfsdk:"scheduling_policies"`
	WorkloadRegistrations types.List   `tfsdk:"workload_registrations"`
	Workloads             types.List   `tfsdk:"workloads"`
	Templates             types.List   `tfsdk:"templates"`
	Configs               types.List   `tfsdk:"configs"`
	ConfigSchemas         types.List   `tfsdk:"config_schemas"`
	BaseRepoCommit        types.String `tfsdk:"base_repo_commit"`
	GitOpsRepo            types.Object `tfsdk:"gitops_repo"`
	BaseRepo              types.Object `tfsdk:"base_repo"`
	Commit                types.String `tfsdk:"commit"`
	WorkloadCommits       types.Map    `tfsdk:"workload_commits"`
	Skipped               types.List   `tfsdk:"skipped"`
}

// ControlPlaneGitModel is the `git` source block.
type ControlPlaneGitModel struct {
	Repo   types.String `tfsdk:"repo"`
	Branch types.String `tfsdk:"branch"`
	Path   types.String `tfsdk:"path"`
	Commit types.String `tfsdk:"commit"`
}

var baseRepoAttrTypes = map[string]attr.Type{
	"repo":   types.StringType,
	"branch": types.StringType,
	"path":   types.StringType,
	"commit": types.StringType,
}

var repoRefAttrTypes = map[string]attr.Type{
	"repo":   types.StringType,
	"branch": types.StringType,
	"path":   types.StringType,
}

func (d *ControlPlaneDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_control_plane"
}

func (d *ControlPlaneDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads an existing upstream Kalypso control-plane repository as-is, from a local directory or a Git branch, " +
			"and returns its documents as `manifests` for `kalypso_environment_render` or `provider::kalypso::environment_render`. " +
			"Every `*.yaml`/`*.yml` document below the path is read, whatever the folder structure. `.sourceignore` files are honoured " +
			"as Flux honours them (gitignore syntax, scoped to their directory; without any, Flux's defaults exclude `.git/`, `.github/` and other CI folders). " +
			"Documents that are not a Kalypso kind or a v1 ConfigMap are skipped and reported in `skipped` and a warning.\n\n" +
			"Upstream keeps templates and workload registrations on `main` and an environment's cluster types, configs, policies, " +
			"`BaseRepo` and `GitOpsRepo` on a branch per environment: read both and concatenate their `manifests`.",
		Attributes: map[string]schema.Attribute{
			"dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Local directory holding the control plane, for example a checkout. Relative paths are resolved from Terraform's working directory; " +
					"prefer `\"${path.module}/...\"`. Exactly one of `dir` and `git` is required.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"git": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Git branch holding the control plane, read at its head with the provider's credentials and `git_url_rewrites`. " +
					"`.sourceignore` files are honoured from the repository root, as Flux does. Exactly one of `dir` and `git` is required.",
				Attributes: map[string]schema.Attribute{
					"repo": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Repository URL: `https://`, `ssh://`, scp-style `git@host:org/repo`, or `file://`.",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"branch": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Branch to read, for example `main` or `dev`.",
						Validators:          []validator.String{validators.BranchName()},
					},
					"path": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Directory inside the repository. Defaults to the repository root.",
					},
					"commit": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "Read the branch at this commit instead of its head: a full SHA or a prefix of at least 7 hex digits, " +
							"which must be the head of `branch` or one of its ancestors (the plan fails otherwise). " +
							"Promotion pins `main` this way, for example to `kalypso_rollout.promotion.commit`.",
						Validators: []validator.String{validators.CommitSHA()},
					},
				},
			},
			"follow_base_repo": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "With `git` on an environment branch: also read the control plane that the branch's `BaseRepo` named `main` points to " +
					"(its `repo`, `branch` and `path`, through `git_url_rewrites`) at its `spec.commit`, the way the upstream operator makes Flux fetch it, " +
					"and put its documents first in `manifests`. One data source then holds everything the environment renders, " +
					"and content that reached `main` after the pin stays out. Defaults to `false`.",
			},
			"base_repo": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "With `follow_base_repo`: where the `BaseRepo` was read, `commit` being the full SHA. Null otherwise.",
				Attributes: map[string]schema.Attribute{
					"repo":   schema.StringAttribute{Computed: true, MarkdownDescription: "Repository URL (`spec.repo`)."},
					"branch": schema.StringAttribute{Computed: true, MarkdownDescription: "Branch (`spec.branch`)."},
					"path":   schema.StringAttribute{Computed: true, MarkdownDescription: "Path (`spec.path`)."},
					"commit": schema.StringAttribute{Computed: true, MarkdownDescription: "The commit read: `spec.commit` in full, or the branch head when `spec.commit` is empty."},
				},
			},
			"resolve_workloads": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Fetch the Workload of every WorkloadRegistration from its `spec.workload` repository, branch and path, " +
					"link it to the registration (annotation `scheduler.kalypso.io/registration`) and append it to `manifests`, as the upstream operator does. Defaults to `false`.",
			},
			"ignore": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Extra ignore patterns in gitignore syntax, like Flux's `GitRepository.spec.ignore`. " +
					"As in Flux, they replace the default excludes (except `.git/`).",
			},
			"manifests": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every Kalypso document read, verbatim, one per element, in file path then document order; resolved Workloads come last. Ready for the render's `manifests`.",
			},
			"base_repo_commit": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "`spec.commit` of the BaseRepo named `main` (on an environment branch), or empty. " +
					"Pass it to `kalypso_gitops_commit.promoted_commit_id`.",
			},
			"gitops_repo": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "`spec` of the GitOpsRepo (on an environment branch): where the rendered tree goes. Null when there is none.",
				Attributes: map[string]schema.Attribute{
					"repo":   schema.StringAttribute{Computed: true, MarkdownDescription: "GitOps repository URL."},
					"branch": schema.StringAttribute{Computed: true, MarkdownDescription: "GitOps branch."},
					"path":   schema.StringAttribute{Computed: true, MarkdownDescription: "Path inside the GitOps repository."},
				},
			},
			"commit": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Commit SHA that was read, in `git` mode; null in `dir` mode.",
			},
			"workload_commits": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "With `resolve_workloads`: WorkloadRegistration name → commit its Workload was read from.",
			},
			"skipped": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Documents that were read but skipped because they are not a Kalypso kind or a v1 ConfigMap, each as `file <path>, document <index> (line <n>): <kind>`.",
			},
		},
	}
	for _, n := range controlPlaneNames {
		resp.Schema.Attributes[n.attr] = schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names of the " + n.what + " read, sorted."}
	}
}

// controlPlaneNames pairs each summary attribute with its kind; Schema and Read both loop over it.
var controlPlaneNames = []struct {
	attr, kind, what string
	field            func(*ControlPlaneModel) *types.List
}{
	{"cluster_types", model.KindClusterType, "ClusterTypes", func(m *ControlPlaneModel) *types.List { return &m.ClusterTypes }},
	{"scheduling_policies", model.KindSchedulingPolicy, "SchedulingPolicies", func(m *ControlPlaneModel) *types.List { return &m.SchedulingPolicies }},
	{"workload_registrations", model.KindWorkloadRegistration, "WorkloadRegistrations", func(m *ControlPlaneModel) *types.List { return &m.WorkloadRegistrations }},
	{"workloads", model.KindWorkload, "Workloads (in the control plane or resolved)", func(m *ControlPlaneModel) *types.List { return &m.Workloads }},
	{"templates", model.KindTemplate, "Templates", func(m *ControlPlaneModel) *types.List { return &m.Templates }},
	{"configs", model.KindConfigMap, "v1 ConfigMaps", func(m *ControlPlaneModel) *types.List { return &m.Configs }},
	{"config_schemas", model.KindConfigSchema, "ConfigSchemas", func(m *ControlPlaneModel) *types.List { return &m.ConfigSchemas }},
}

func (d *ControlPlaneDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("dir"), path.MatchRoot("git")),
		datasourcevalidator.Conflicting(path.MatchRoot("dir"), path.MatchRoot("follow_base_repo")),
	}
}

func (d *ControlPlaneDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		d.client = data.GitClient()
	}
}

func (d *ControlPlaneDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data ControlPlaneModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client := d.client
	if client == nil {
		client = d.unconfigured().GitClient()
	}
	opts := controlplane.Options{
		ResolveWorkloads: data.ResolveWorkloads.ValueBool(),
		Client:           client,
		Ignore:           data.Ignore.ValueString(),
		FollowBaseRepo:   data.FollowBaseRepo.ValueBool(),
	}

	var (
		res        *controlplane.Result
		diags      model.Diagnostics
		sourcePath path.Path
		repoPath   path.Path
	)
	if !data.Git.IsNull() {
		var g ControlPlaneGitModel
		resp.Diagnostics.Append(data.Git.As(ctx, &g, objectAsOptions)...)
		if resp.Diagnostics.HasError() {
			return
		}
		sourcePath, repoPath = path.Root("git"), path.Root("git").AtName("repo")
		opts.Commit = g.Commit.ValueString()
		res, diags = controlplane.ReadGit(ctx, g.Repo.ValueString(), g.Branch.ValueString(), g.Path.ValueString(), opts)
	} else {
		sourcePath, repoPath = path.Root("dir"), path.Root("dir")
		res, diags = controlplane.ReadDir(ctx, data.Dir.ValueString(), opts)
	}
	resp.Diagnostics.Append(controlPlaneDiagnostics(diags, sourcePath, repoPath)...)
	if resp.Diagnostics.HasError() || res == nil {
		return
	}

	data.Manifests = stringList(nonNil(res.Manifests))
	for _, n := range controlPlaneNames {
		*n.field(&data) = stringList(res.Set.Names(n.kind))
	}
	data.BaseRepoCommit = types.StringValue(res.BaseRepoCommit)
	data.GitOpsRepo = types.ObjectNull(repoRefAttrTypes)
	if g := res.GitOpsRepo; g != nil {
		data.GitOpsRepo = types.ObjectValueMust(repoRefAttrTypes, map[string]attr.Value{
			"repo": types.StringValue(g.Repo), "branch": types.StringValue(g.Branch), "path": types.StringValue(g.Path),
		})
	}
	data.BaseRepo = types.ObjectNull(baseRepoAttrTypes)
	if b := res.Base; b != nil {
		data.BaseRepo = types.ObjectValueMust(baseRepoAttrTypes, map[string]attr.Value{
			"repo": types.StringValue(b.Repo), "branch": types.StringValue(b.Branch), "path": types.StringValue(b.Path), "commit": types.StringValue(b.Commit),
		})
	}
	data.Commit = types.StringNull()
	if res.Commit != "" {
		data.Commit = types.StringValue(res.Commit)
	}
	commits := make(map[string]attr.Value, len(res.WorkloadCommits))
	for k, v := range res.WorkloadCommits {
		commits[k] = types.StringValue(v)
	}
	data.WorkloadCommits = types.MapValueMust(types.StringType, commits)
	skipped := make([]string, 0, len(res.Skipped))
	for _, s := range res.Skipped {
		skipped = append(skipped, s.String())
	}
	data.Skipped = stringList(skipped)
	if len(skipped) > 0 {
		shown := skipped
		more := ""
		if len(shown) > 20 {
			shown, more = shown[:20], fmt.Sprintf("\n... and %d more (see the skipped attribute)", len(skipped)-20)
		}
		resp.Diagnostics.AddAttributeWarning(sourcePath, "Documents skipped",
			fmt.Sprintf("%d document(s) are not a Kalypso kind (apiVersion %s) or a v1 ConfigMap and were not read:\n%s%s\n"+
				"Exclude them with a .sourceignore entry to silence this warning.", len(skipped), model.APIVersion, strings.Join(shown, "\n"), more))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// controlPlaneDiagnostics points document problems at the source attribute and repository problems at the repository.
func controlPlaneDiagnostics(ds model.Diagnostics, sourcePath, repoPath path.Path) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range ds {
		at := sourcePath
		switch {
		case d.Kind == model.KindWorkloadRegistration && d.Field == "spec.workload":
			at = path.Root("resolve_workloads")
		case d.Kind == model.KindBaseRepo:
			at = path.Root("follow_base_repo")
		case d.Field == "git.commit":
			at = path.Root("git").AtName("commit")
		case d.Source.File == "" && d.Severity == model.SeverityError:
			at = repoPath
		}
		if d.Severity == model.SeverityWarning {
			out.AddAttributeWarning(at, d.Summary, describeDiagnostic(d))
		} else {
			out.AddAttributeError(at, d.Summary, describeDiagnostic(d))
		}
	}
	return out
}
