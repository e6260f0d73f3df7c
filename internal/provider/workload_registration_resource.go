// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/resources"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
	"github.com/kalypso/terraform-provider-kalypso/internal/workloadsource"
)

var (
	_ resource.Resource                     = &WorkloadRegistrationResource{}
	_ resource.ResourceWithConfigure        = &WorkloadRegistrationResource{}
	_ resource.ResourceWithModifyPlan       = &WorkloadRegistrationResource{}
	_ resource.ResourceWithImportState      = &WorkloadRegistrationResource{}
	_ resource.ResourceWithConfigValidators = &WorkloadRegistrationResource{}
)

// WorkloadRegistrationResource is kalypso_workload_registration: a logical resource that reads the
// registered Workload from Git at plan time and on refresh.
type WorkloadRegistrationResource struct {
	logicalResource // Create, Update and Delete; Read and ImportState are its own
	data            *ProviderData
}

// NewWorkloadRegistrationResource returns the resource.
func NewWorkloadRegistrationResource() resource.Resource { return &WorkloadRegistrationResource{} }

type workloadRegistrationModel struct {
	ID                types.String                     `tfsdk:"id"`
	Name              string                           `tfsdk:"name"`
	Workspace         string                           `tfsdk:"workspace"`
	Labels            map[string]string                `tfsdk:"labels"`
	Source            *registrationRepoRef             `tfsdk:"source"`
	Workload          *registrationInlineWorkloadModel `tfsdk:"workload"`
	Token             types.String                     `tfsdk:"token"`
	SSHPrivateKey     types.String                     `tfsdk:"ssh_private_key"`
	SourceCommit      types.String                     `tfsdk:"source_commit"`
	DeploymentTargets types.List                       `tfsdk:"deployment_targets"`
	Manifest          types.String                     `tfsdk:"manifest"`
}

type registrationRepoRef struct {
	Repo   string `tfsdk:"repo"`
	Branch string `tfsdk:"branch"`
	Path   string `tfsdk:"path"`
}

type registrationInlineWorkloadModel struct {
	Labels            map[string]string               `tfsdk:"labels"`
	DeploymentTargets []registrationInlineTargetModel `tfsdk:"deployment_targets"`
}

type registrationInlineTargetModel struct {
	Name        string              `tfsdk:"name"`
	Environment string              `tfsdk:"environment"`
	Labels      map[string]string   `tfsdk:"labels"`
	Manifests   registrationRepoRef `tfsdk:"manifests"`
}

// registrationTargetModel is one computed deployment target: what a reviewer and a for_each need. The
// rest (the target's manifests, workload and workspace) is in `manifest` and in the labels, and is not
// repeated in the plan.
type registrationTargetModel struct {
	Name        string            `tfsdk:"name"`
	Environment string            `tfsdk:"environment"`
	Labels      map[string]string `tfsdk:"labels"`
}

var deploymentTargetObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name":        types.StringType,
	"environment": types.StringType,
	"labels":      types.MapType{ElemType: types.StringType},
}}

func (r *WorkloadRegistrationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload_registration"
}

func repoRefAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"repo": schema.StringAttribute{
			MarkdownDescription: "Git URL of the repository holding " + what + ": `https://`, `ssh://`, scp-style or `file://`. Provider `git_url_rewrites` apply.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"branch": schema.StringAttribute{
			MarkdownDescription: "Branch holding " + what + ".",
			Required:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"path": schema.StringAttribute{
			MarkdownDescription: "Directory of " + what + " in the repository (`.` for the root).",
			Required:            true,
		},
	}
}

func (r *WorkloadRegistrationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	computedString := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kalypso workload registration: gives an application team's Workload a workspace. The Workload is either read from the " +
			"team's Git repository (`source`) at plan time and on every refresh, so a deployment target the team pushes shows up in the next plan " +
			"(a Workload file there that no longer parses keeps the previous deployment targets, with a warning naming the file, line and commit; " +
			"it is an error only on create), or given inline (`workload`). Exactly one of the two is required. `manifest` holds the `WorkloadRegistration` and the `Workload` " +
			"YAML, linked to each other, for `provider::kalypso::environment_render`. Logical resource: nothing is created outside Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id":   modelIDAttribute(),
			"name": modelNameAttribute("Name of the registration. A sourced Workload with another name is linked to it with the `scheduler.kalypso.io/registration` annotation."),
			"workspace": schema.StringAttribute{
				MarkdownDescription: "Workspace of the workload, the team that owns it. Deployment targets get the label `workspace=<workspace>`, and scheduling policies can select by it.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1), validators.LabelValue()},
			},
			"labels": modelLabelsAttribute("Labels of the registration object."),
			"source": schema.SingleNestedAttribute{
				MarkdownDescription: "Where the Workload file(s) live. Every `*.yaml`/`*.yml` file below `path` is read, and its `kind: Workload` documents are used.",
				Optional:            true,
				Attributes:          repoRefAttributes("the Workload"),
			},
			"workload": schema.SingleNestedAttribute{
				MarkdownDescription: "An inline Workload named like the registration, instead of `source`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"labels": modelLabelsAttribute("Labels of the Workload; they override the targets' labels of the same key."),
					"deployment_targets": schema.ListNestedAttribute{
						MarkdownDescription: "The Workload's deployment targets.",
						Required:            true,
						Validators:          []validator.List{listvalidator.SizeAtLeast(1), validators.NoNullElements()},
						NestedObject: schema.NestedAttributeObject{
							Attributes: map[string]schema.Attribute{
								"name": schema.StringAttribute{
									MarkdownDescription: "Target name; the deployment target's full name is `<registration>-<name>`.",
									Required:            true,
									Validators:          []validator.String{validators.DNSSubdomainName()},
								},
								"environment": schema.StringAttribute{
									MarkdownDescription: "Environment the target belongs to, for example `dev`.",
									Required:            true,
									Validators:          []validator.String{validators.Located(stringvalidator.LengthAtLeast(1))},
								},
								"labels": modelLabelsAttribute("Labels of the target, matched by scheduling policies."),
								"manifests": schema.SingleNestedAttribute{
									MarkdownDescription: "Where the target's Kubernetes manifests live; reconciler templates read it as `.Manifests`.",
									Required:            true,
									Attributes:          repoRefAttributes("the target's manifests"),
								},
							},
						},
					},
				},
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "Write-only https token for `source.repo`, instead of the provider's `git_token`. Never stored in state or plan; " +
					"used at plan time only (a refresh uses the provider's credentials and keeps the previous values when they do not suffice). Needs Terraform 1.11 " +
					"or OpenTofu 1.11 or later; with an older CLI, set the provider's `git_token` (or `GIT_TOKEN`), which no state holds either.",
				Optional: true,
				// Not Sensitive: a write-only value is never in a plan or state, so the flag would protect nothing, and
				// a second sensitive path could change places with the first between two runs, which Terraform reads
				// as drift (issue 36).
				WriteOnly: true,
			},
			"ssh_private_key": schema.StringAttribute{
				MarkdownDescription: "Write-only PEM private key for an ssh `source.repo`, instead of the provider's `ssh_private_key`. Never stored. Needs Terraform 1.11 " +
					"or OpenTofu 1.11 or later; with an older CLI, set the provider's `ssh_private_key` (or `GIT_SSH_KEY`).",
				Optional:  true,
				WriteOnly: true, // not Sensitive: see token
			},
			"source_commit": computedString("Commit of `source.branch` the Workload was read from; null for an inline Workload."),
			"deployment_targets": schema.ListNestedAttribute{
				MarkdownDescription: "The Workload's deployment targets in every environment, sorted by name, as the scheduler sees them: what " +
					"scheduling policies select on. Each target's `manifests` are in `manifest`, and its workload and workspace are its " +
					"`workload` and `workspace` labels.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":        computedString("Full name, `<workload>-<target>`."),
						"environment": computedString("Environment of the target."),
						"labels": schema.MapAttribute{
							MarkdownDescription: "Effective labels: the target's, then the Workload's (which override), then `workload` and `workspace`.",
							Computed:            true, ElementType: types.StringType,
						},
					},
				},
			},
			"manifest": modelManifestAttribute("WorkloadRegistration` followed by its `Workload"),
		},
	}
}

func (r *WorkloadRegistrationResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("source"), path.MatchRoot("workload")),
	}
}

func (r *WorkloadRegistrationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		r.data = data
	}
}

// gitClient returns the provider's shared Git client (cache, rewrites, credentials), with the
// resource's write-only credentials in place of the provider's when they are set.
func (r *WorkloadRegistrationResource) gitClient(token, sshKey string) *gitrepo.Client {
	if token == "" && sshKey == "" {
		return r.data.GitClient()
	}
	return r.data.GitClient(func(c *gitrepo.Client) {
		if token != "" {
			c.Auth.Token = token
		}
		if sshKey != "" {
			c.Auth.SSHPrivateKey = sshKey
		}
	})
}

// registrationDerived are the computed attributes of a registration.
type registrationDerived struct {
	SourceCommit      types.String
	DeploymentTargets types.List
	Manifest          types.String
}

// derive computes the registration's computed attributes, reading the source when there is one.
// derive computes the registration's targets and manifest. invalidSource is true when the Workload files
// were read but no longer parse: a plan then keeps the previous values (see ModifyPlan).
func (r *WorkloadRegistrationResource) derive(ctx context.Context, name, workspace string, labels map[string]string, source *registrationRepoRef, inline *registrationInlineWorkloadModel, client *gitrepo.Client) (_ *registrationDerived, diags diag.Diagnostics, invalidSource bool) {
	out := &registrationDerived{SourceCommit: types.StringNull()}
	var workloads []*model.Workload
	var reg *model.WorkloadRegistration
	switch {
	case source != nil:
		reg = resources.Registration(name, workspace, labels, model.RepoRef{Repo: source.Repo, Branch: source.Branch, Path: source.Path})
		commit, docs, err := workloadsource.FetchDocuments(ctx, client, reg)
		if err == nil {
			workloads, err = resources.DecodeWorkloads(docs)
			if err != nil {
				err = fmt.Errorf("%w: %v (commit %s)", workloadsource.ErrInvalidDocument, err, commit)
			}
		}
		if err != nil {
			p, summary, hint := registrationSourceErrorDetails(err)
			diags.AddAttributeError(p, summary, fmt.Sprintf("kalypso_workload_registration %q: repository %q, branch %q, path %q: %v. %s",
				name, gitrepo.RedactURL(source.Repo), source.Branch, source.Path, err, hint))
			return nil, diags, errors.Is(err, workloadsource.ErrInvalidDocument)
		}
		out.SourceCommit = types.StringValue(commit)
	case inline != nil:
		reg = resources.Registration(name, workspace, labels, model.RepoRef{})
		var targets []resources.Target
		for _, t := range inline.DeploymentTargets {
			targets = append(targets, resources.Target{Name: t.Name, Environment: t.Environment, Labels: t.Labels,
				Manifests: model.RepoRef{Repo: t.Manifests.Repo, Branch: t.Manifests.Branch, Path: t.Manifests.Path}})
		}
		workloads = []*model.Workload{resources.InlineWorkload(name, inline.Labels, targets)}
	default:
		// ExactlyOneOf reports the configuration error.
		return nil, diags, false
	}

	targets, err := resources.DeploymentTargets(reg, workloads)
	if err != nil {
		diags.Append(deploymentTargetsDiagnostics(name, source != nil, err)...)
		return nil, diags, false
	}
	models := make([]registrationTargetModel, 0, len(targets))
	for _, t := range targets {
		models = append(models, registrationTargetModel{Name: t.Name, Environment: t.Environment, Labels: t.Labels})
	}
	list, d := types.ListValueFrom(ctx, deploymentTargetObjectType, models)
	diags.Append(d...)
	if diags.HasError() {
		return nil, diags, false
	}
	out.DeploymentTargets = list

	manifest, err := resources.RegistrationManifest(reg, workloads)
	if err != nil {
		diags.AddError("Cannot build the manifest", fmt.Sprintf("kalypso_workload_registration %q: %v. This is a provider bug; please report it.", name, err))
		return nil, diags, false
	}
	out.Manifest = types.StringValue(manifest)
	return out, diags, false
}

// inlineTargetField matches the field of a deployment target's diagnostic, to find its index.
var inlineTargetField = regexp.MustCompile(`^spec\.deploymentTargets\[(\d+)\]\.name$`)

// deploymentTargetsDiagnostics reports why the targets cannot be derived. For an inline Workload, each
// problem points at the `name` of the inline target it is about, so that Terraform shows that line; a
// sourced Workload's targets live in another repository, so its problems point at `source`.
func deploymentTargetsDiagnostics(name string, sourced bool, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	const hint = "Rename the targets so that every `<workload>-<target>` is a unique DNS-1123 name."
	var te *resources.TargetsError
	if !sourced && errors.As(err, &te) {
		for _, d := range te.Diagnostics {
			m := inlineTargetField.FindStringSubmatch(d.Field)
			if m == nil {
				diags.AddAttributeError(path.Root("workload"), "Invalid deployment targets", fmt.Sprintf("kalypso_workload_registration %q: %s. %s", name, d.Error(), hint))
				continue
			}
			i, _ := strconv.Atoi(m[1])
			validators.AddError(&diags, path.Root("workload").AtName("deployment_targets").AtListIndex(i).AtName("name"), "Invalid deployment target",
				fmt.Sprintf("kalypso_workload_registration %q: %s. %s", name, d.Detail, hint))
		}
		return diags
	}
	p := path.Root("workload")
	if sourced {
		p = path.Root("source")
	}
	diags.AddAttributeError(p, "Invalid deployment targets", fmt.Sprintf("kalypso_workload_registration %q: %v. %s", name, err, hint))
	return diags
}

// registrationSourceFields names the attributes that set the read of a registration's workload source.
var registrationSourceFields = gitrepo.Fields{Repo: "source.repo", Branch: "source.branch", Path: "source.path", Credentials: "token or ssh_private_key"}

// registrationSourceErrorDetails maps a source read error to the attribute at fault, a summary and what to do.
func registrationSourceErrorDetails(err error) (path.Path, string, string) {
	src := path.Root("source")
	switch {
	case errors.Is(err, workloadsource.ErrNoWorkload):
		return src.AtName("path"), "No Workload in the workload source", "Add a `kind: Workload` document below source.path, or fix source.path."
	case errors.Is(err, workloadsource.ErrInvalidDocument):
		return src.AtName("path"), "Invalid Workload in the workload source", "Fix the Workload file in the application repository."
	}
	summary := "Cannot read the workload source"
	if class := gitrepo.Class(err); class != nil {
		summary = "Workload source " + class.Error() // "Workload source branch not found"
	}
	hint, attribute := gitrepo.Hint(err, registrationSourceFields)
	if attribute == "" {
		return src, summary, hint
	}
	return src.AtName(strings.TrimPrefix(attribute, "source.")), summary, hint
}

func (r *WorkloadRegistrationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !modelPlanIsComputable(req) {
		return
	}
	var m workloadRegistrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var token, sshKey types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token"), &token)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ssh_private_key"), &sshKey)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d, diags, invalidSource := r.derive(ctx, m.Name, m.Workspace, m.Labels, m.Source, m.Workload, r.gitClient(token.ValueString(), sshKey.ValueString()))
	if invalidSource && !req.State.Raw.IsNull() {
		// One application team's broken Workload file does not block the platform team's plan: the
		// registration keeps the deployment targets it had. On create there is nothing to keep.
		var prior workloadRegistrationModel
		if resp.Diagnostics.Append(req.State.Get(ctx, &prior)...); resp.Diagnostics.HasError() {
			return
		}
		for _, e := range diags.Errors() {
			resp.Diagnostics.AddAttributeWarning(path.Root("source"), e.Summary()+": the previous deployment targets are kept",
				e.Detail()+" Until the file parses again, this registration keeps the deployment targets, source_commit and manifest of its last successful read.")
		}
		d = &registrationDerived{SourceCommit: prior.SourceCommit, DeploymentTargets: prior.DeploymentTargets, Manifest: prior.Manifest}
	} else if resp.Diagnostics.Append(diags...); d == nil {
		return
	}
	m.ID = types.StringValue(m.Name)
	m.SourceCommit, m.DeploymentTargets, m.Manifest = d.SourceCommit, d.DeploymentTargets, d.Manifest
	m.Token, m.SSHPrivateKey = types.StringNull(), types.StringNull()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// Read re-reads a sourced Workload, so that a target the application team pushed appears in state
// and in everything that renders from `manifest`. Failures are warnings here, keeping the previous
// values: the plan that follows reads the source again, with the configured credentials, and reports them.
func (r *WorkloadRegistrationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var source *registrationRepoRef
	var name, workspace types.String
	var labels map[string]string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("source"), &source)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace"), &workspace)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("labels"), &labels)...)
	if resp.Diagnostics.HasError() || source == nil {
		return
	}
	d, diags, _ := r.derive(ctx, name.ValueString(), workspace.ValueString(), labels, source, nil, r.gitClient("", ""))
	if diags.HasError() {
		for _, e := range diags.Errors() {
			resp.Diagnostics.AddAttributeWarning(path.Root("source"), "Workload source not refreshed: "+e.Summary(), e.Detail()+" The previous values are kept.")
		}
		return
	}
	resp.Diagnostics.Append(diags...)
	for p, v := range map[string]attr.Value{
		"source_commit": d.SourceCommit, "deployment_targets": d.DeploymentTargets, "manifest": d.Manifest,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(p), v)...)
	}
}

// ImportState accepts `<name>` or `<name>@<repo>//<path>?ref=<branch>[&workspace=<workspace>]`. The second
// form sets `source` (and `workspace`), and the Read that follows the import fetches the Workload.
// Everything else comes from configuration.
func (r *WorkloadRegistrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name, source, workspace, err := parseRegistrationImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("%v. Use `<name>` or `<name>@<repo>//<path>?ref=<branch>&workspace=<workspace>`, for example `hello-world-app@https://github.com/org/app-src//workload?ref=main&workspace=kaizen-app-team`.", err))
		return
	}
	if workspace != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace"), workspace)...)
	}
	modelImportByName(ctx, resource.ImportStateRequest{ID: name}, resp)
	if resp.Diagnostics.HasError() || source == nil {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("source"), source)...)
}

// parseRegistrationImportID splits `<name>[@<repo>//<path>?ref=<branch>[&workspace=<workspace>]]`.
func parseRegistrationImportID(id string) (name string, source *registrationRepoRef, workspace string, err error) {
	name, rest, found := strings.Cut(id, "@")
	if !found {
		return id, nil, "", nil
	}
	if name == "" {
		return "", nil, "", fmt.Errorf("import ID %q has no name before @", id)
	}
	rest, query, _ := strings.Cut(rest, "?")
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, "", fmt.Errorf("import ID %q: %v", id, err)
	}
	branch := values.Get("ref")
	if branch == "" {
		return "", nil, "", fmt.Errorf("import ID %q has no ?ref=<branch>", id)
	}
	workspace = values.Get("workspace")
	start := 0
	if i := strings.Index(rest, "://"); i >= 0 {
		start = i + 3
	}
	repo, p := rest, "."
	if i := strings.Index(rest[start:], "//"); i >= 0 {
		repo, p = rest[:start+i], rest[start+i+2:]
	}
	if repo == "" {
		return "", nil, "", fmt.Errorf("import ID %q has no repository", id)
	}
	if p == "" {
		p = "."
	}
	return name, &registrationRepoRef{Repo: repo, Branch: branch, Path: p}, workspace, nil
}
