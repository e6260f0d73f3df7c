// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	gitrepo "github.com/kalypso/terraform-provider-kalypso/internal/git"
	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
)

var (
	_ resource.Resource                   = &GitopsCommitResource{}
	_ resource.ResourceWithConfigure      = &GitopsCommitResource{}
	_ resource.ResourceWithModifyPlan     = &GitopsCommitResource{}
	_ resource.ResourceWithValidateConfig = &GitopsCommitResource{}
	_ resource.ResourceWithImportState    = &GitopsCommitResource{}
)

const (
	// promotedCommitFile is where upstream Kalypso records the promoted commit.
	promotedCommitFile   = ".github/tracking/Promoted_Commit_Id"
	defaultCommitMessage = "Update GitOps repository (kalypso_gitops_commit)"
	prStateNone          = "none"
)

// GitopsCommitResource is kalypso_gitops_commit: it delivers a file set to a path of a Git branch.
type GitopsCommitResource struct {
	data *ProviderData
}

// NewGitopsCommitResource returns the resource.
func NewGitopsCommitResource() resource.Resource { return &GitopsCommitResource{} }

type gitopsCommitModel struct {
	ID                    types.String `tfsdk:"id"`
	RepositoryURL         types.String `tfsdk:"repository_url"`
	Branch                types.String `tfsdk:"branch"`
	Path                  types.String `tfsdk:"path"`
	Files                 types.Map    `tfsdk:"files"`
	CommitMessage         types.String `tfsdk:"commit_message"`
	Author                types.Object `tfsdk:"author"`
	PromotedCommitID      types.String `tfsdk:"promoted_commit_id"`
	PullRequest           types.Object `tfsdk:"pull_request"`
	SSHHostKeyFingerprint types.String `tfsdk:"ssh_host_key_fingerprint"`
	RetainOnDestroy       types.Bool   `tfsdk:"retain_on_destroy"`
	CommitSHA             types.String `tfsdk:"commit_sha"`
	PullRequestNumber     types.Int64  `tfsdk:"pull_request_number"`
	PullRequestURL        types.String `tfsdk:"pull_request_url"`
	PullRequestState      types.String `tfsdk:"pull_request_state"`
}

type gitopsPullRequestModel struct {
	HeadBranch types.String `tfsdk:"head_branch"`
	Title      types.String `tfsdk:"title"`
	Labels     types.List   `tfsdk:"labels"`
}

var gitopsAuthorAttrTypes = map[string]attr.Type{"name": types.StringType, "email": types.StringType}

func (r *GitopsCommitResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gitops_commit"
}

func (r *GitopsCommitResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Delivers a rendered file set (for example `kalypso_environment_render`'s `files`) to a path of a Git branch, " +
			"in one commit per apply and no commit when nothing changed, or as a GitHub pull request. " +
			"Files under `path` that are not in `files` are deleted; nothing outside `path`, and no dot-entry at its root, is touched. " +
			"Refresh reads the remote, so out-of-band edits show up as drift and the next apply restores them. " +
			"All Git operations use go-git; credentials come from the provider configuration or its environment variables and are never stored in state.\n\n" +
			"Keep an instance to a few thousand files. Terraform and the plugin framework process `files` element by element at every " +
			"refresh, plan and apply, at a cost that grows faster than the number of files: on 2 cores, a one-file change to an instance of 29,292 files " +
			"takes 81 s where the Git push takes 0.12 s; with the same tree split into one instance per cluster type, 12 s. For large fleets, use one instance per cluster type " +
			"(`for_each` over `cluster_types` with `only_cluster_types`, as in the last example); BENCHMARKS.md has the figures.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<repository_url>//<path>?ref=<branch>`, also the import ID.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"repository_url": schema.StringAttribute{
				MarkdownDescription: "Repository URL: `file://`, a local path, `https://`, `ssh://` or scp-style `git@host:org/repo.git`. " +
					"`git_url_rewrites` apply. Credentials in the URL are rejected.",
				Required:      true,
				PlanModifiers: replace,
			},
			"branch": schema.StringAttribute{
				MarkdownDescription: "Branch to write (the pull request's base in PR mode). A missing branch is created from the default branch, or as an orphan in an empty repository.",
				Required:            true,
				PlanModifiers:       replace,
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Directory of the repository this resource owns. Defaults to `.` (the root).",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("."),
				PlanModifiers:       replace,
			},
			"files": schema.MapAttribute{
				MarkdownDescription: "Map of file name, relative to `path`, to content. Names may not start with a dot-entry (those are never managed).",
				Required:            true,
				ElementType:         types.StringType,
			},
			"commit_message": schema.StringAttribute{
				MarkdownDescription: "Commit message. Defaults to `" + defaultCommitMessage + "`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultCommitMessage),
			},
			"author": schema.SingleNestedAttribute{
				MarkdownDescription: "Commit author; defaults to the provider's `author`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"name":  schema.StringAttribute{Optional: true, MarkdownDescription: "Author name."},
					"email": schema.StringAttribute{Optional: true, MarkdownDescription: "Author email."},
				},
			},
			"promoted_commit_id": schema.StringAttribute{
				MarkdownDescription: "Writes `" + promotedCommitFile + "` at the repository root with this value and no newline, as upstream Kalypso does. " +
					"Removing the attribute removes the file. In PR mode a change adds the `promoted` label.",
				Optional: true,
			},
			"pull_request": schema.SingleNestedAttribute{
				MarkdownDescription: "GitHub pull-request mode: the change is committed on top of `branch` to a stable head branch and proposed " +
					"as one pull request, updated in place on later applies. Uses the provider's `github_base_url` and token.",
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"head_branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Head branch; defaults to `kalypso/<branch>`. It is owned by the provider and force-updated."},
					"title":       schema.StringAttribute{Optional: true, MarkdownDescription: "Title; defaults to a summary of the changes per cluster type."},
					"labels":      schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Labels added to the pull request."},
				},
			},
			"ssh_host_key_fingerprint": schema.StringAttribute{
				MarkdownDescription: "SHA256 fingerprint (`SHA256:...`) the ssh host key must have, instead of known_hosts. Host keys are always verified.",
				Optional:            true,
			},
			"retain_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Keep the files in the repository when the resource is destroyed. Defaults to `false`: destroy removes them " +
					"(and the promoted-commit file it wrote) in one commit; in pull-request mode the removal is proposed as a pull request.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"commit_sha": schema.StringAttribute{
				MarkdownDescription: "Commit holding the desired files: the last commit made, the unchanged branch head, or in PR mode the pull request's head commit.",
				Computed:            true,
			},
			"pull_request_number": schema.Int64Attribute{Computed: true, MarkdownDescription: "Pull request number in PR mode."},
			"pull_request_url":    schema.StringAttribute{Computed: true, MarkdownDescription: "Pull request URL in PR mode."},
			"pull_request_state": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`open`, `merged` or `closed` in PR mode (`none` when there was nothing to propose); null otherwise.",
			},
		},
	}
}

func (r *GitopsCommitResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	data, ok := req.ProviderData.(*ProviderData)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data",
			fmt.Sprintf("kalypso_gitops_commit expected *ProviderData, got %T. This is a bug in the provider; please report it.", req.ProviderData))
		return
	}
	r.data = data
}

func (r *GitopsCommitResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gitopsCommitModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if v := cfg.RepositoryURL; !v.IsNull() && !v.IsUnknown() {
		if err := gitrepo.ValidateURL(v.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("repository_url"), "Invalid repository_url",
				fmt.Sprintf("kalypso_gitops_commit: %s. Use file://, a local path, https://, ssh:// or user@host:path, without credentials; configure the token or ssh key in the provider.", err))
		}
	}
	if v := cfg.Branch; !v.IsNull() && !v.IsUnknown() && strings.TrimSpace(v.ValueString()) == "" {
		resp.Diagnostics.AddAttributeError(path.Root("branch"), "Invalid branch", "kalypso_gitops_commit: branch must not be empty.")
	}
	if v := cfg.Path; !v.IsNull() && !v.IsUnknown() {
		if _, err := gitrepo.CleanPath(v.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("path"), "Invalid path",
				fmt.Sprintf("kalypso_gitops_commit: %s. Use a relative directory such as \"clusters\" or \".\".", err))
		}
	}
	if !cfg.Files.IsNull() && !cfg.Files.IsUnknown() {
		for name := range cfg.Files.Elements() {
			if err := gitrepo.ValidateFileName(name); err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("files").AtMapKey(name), "Invalid file name",
					fmt.Sprintf("kalypso_gitops_commit: %s. File names are relative to path and use forward slashes.", err))
				continue
			}
			if strings.HasPrefix(name, ".") {
				resp.Diagnostics.AddAttributeError(path.Root("files").AtMapKey(name), "Dot-entry at the root of path",
					fmt.Sprintf("kalypso_gitops_commit: %q starts with a dot. Dot-entries at the root of path are never managed, so that "+
						"repository metadata such as .github or .sops.yaml is safe; move the file into a sub-directory or write it outside this resource.", name))
			}
		}
	}
}

func (r *GitopsCommitResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan gitopsCommitModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if gitopsKnown(plan.RepositoryURL) && gitopsKnown(plan.Branch) && gitopsKnown(plan.Path) {
		plan.ID = types.StringValue(gitopsCommitID(plan.RepositoryURL.ValueString(), plan.Path.ValueString(), plan.Branch.ValueString()))
	}
	prMode := !plan.PullRequest.IsNull()
	if !prMode && !plan.PullRequest.IsUnknown() {
		plan.PullRequestNumber = types.Int64Null()
		plan.PullRequestURL = types.StringNull()
		plan.PullRequestState = types.StringNull()
	}
	if !req.State.Raw.IsNull() {
		var state gitopsCommitModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		// Only content changes produce a commit; other updates keep the computed values.
		if plan.Files.Equal(state.Files) && plan.PromotedCommitID.Equal(state.PromotedCommitID) && plan.PullRequest.Equal(state.PullRequest) {
			plan.CommitSHA = state.CommitSHA
			if prMode {
				plan.PullRequestNumber = state.PullRequestNumber
				plan.PullRequestURL = state.PullRequestURL
				plan.PullRequestState = state.PullRequestState
			}
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *GitopsCommitResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan gitopsCommitModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.deliver(ctx, &plan, nil)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *GitopsCommitResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state gitopsCommitModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.deliver(ctx, &plan, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *GitopsCommitResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state gitopsCommitModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client := r.client(&state)
	repoURL, branch, dir := state.RepositoryURL.ValueString(), state.Branch.ValueString(), state.Path.ValueString()
	readBranch := branch

	if !state.PullRequest.IsNull() && !state.PullRequestNumber.IsNull() {
		pr, diags := r.readPullRequest(ctx, &state)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		state.PullRequestState = types.StringValue(pr.State)
		if pr.URL != "" {
			state.PullRequestURL = types.StringValue(pr.URL)
		}
		if pr.State == githubpr.StateOpen {
			// The open proposal is the content Terraform delivered; edits to it are drift.
			readBranch = r.headBranch(ctx, &state)
		}
	}

	// What the last apply delivered: unchanged files are recognised by their blob hash and not read.
	var delivered map[string]string
	if !state.Files.IsNull() && !state.Files.IsUnknown() {
		resp.Diagnostics.Append(state.Files.ElementsAs(ctx, &delivered, false)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	snap, err := client.SnapshotKnown(ctx, repoURL, readBranch, dir, []string{promotedCommitFile}, delivered)
	if err != nil && readBranch != branch && errors.Is(err, gitrepo.ErrBranchNotFound) {
		readBranch = branch // the head branch is gone: compare with the base
		snap, err = client.SnapshotKnown(ctx, repoURL, readBranch, dir, []string{promotedCommitFile}, delivered)
	}
	if err != nil {
		if errors.Is(err, gitrepo.ErrRepositoryNotFound) || errors.Is(err, gitrepo.ErrBranchNotFound) {
			resp.Diagnostics.AddWarning("Git branch no longer exists",
				fmt.Sprintf("kalypso_gitops_commit %s: %s. The resource is removed from state; the next apply delivers the files again.", state.ID.ValueString(), err))
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.Append(gitErrorDiag("Cannot read the Git repository", state.ID.ValueString(), err))
		return
	}
	files := make(map[string]string, len(snap.Files))
	for name, content := range snap.Files {
		files[name] = string(content)
	}
	fv, diags := types.MapValueFrom(ctx, types.StringType, files)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Files under path that changed out of band (including a push whose answer was lost, or an apply
	// killed after its push landed) move commit_sha to the head that now holds them.
	drifted := !state.Files.Equal(fv)
	state.Files = fv
	if !state.PromotedCommitID.IsNull() {
		if v, ok := snap.RootFiles[promotedCommitFile]; ok {
			state.PromotedCommitID = types.StringValue(string(v))
		} else {
			state.PromotedCommitID = types.StringNull()
		}
	}
	if state.CommitSHA.IsNull() || state.CommitSHA.ValueString() == "" || drifted {
		state.CommitSHA = types.StringValue(snap.CommitSHA)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *GitopsCommitResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state gitopsCommitModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.RetainOnDestroy.ValueBool() {
		return
	}
	prior := state
	state.Files = types.MapValueMust(types.StringType, map[string]attr.Value{})
	state.PromotedCommitID = types.StringNull()
	if state.CommitMessage.ValueString() == "" || state.CommitMessage.ValueString() == defaultCommitMessage {
		state.CommitMessage = types.StringValue("Remove files managed by kalypso_gitops_commit")
	}
	diags, err := r.deliverOpts(ctx, &state, &prior, true)
	if errors.Is(err, gitrepo.ErrRepositoryNotFound) || errors.Is(err, gitrepo.ErrBranchNotFound) {
		return // the repository or branch is already gone: nothing left to remove
	}
	resp.Diagnostics.Append(diags...)
}

// ImportState accepts `<repository_url>//<path>?ref=<branch>`; Read then loads the files.
func (r *GitopsCommitResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	repoURL, dir, branch, err := parseGitopsCommitID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("kalypso_gitops_commit: %s. Use <repository_url>//<path>?ref=<branch>, for example https://github.com/org/fleet.git//clusters?ref=main.", err))
		return
	}
	st := gitopsCommitModel{
		ID:                    types.StringValue(gitopsCommitID(repoURL, dir, branch)),
		RepositoryURL:         types.StringValue(repoURL),
		Branch:                types.StringValue(branch),
		Path:                  types.StringValue(dir),
		Files:                 types.MapValueMust(types.StringType, map[string]attr.Value{}),
		CommitMessage:         types.StringValue(defaultCommitMessage),
		Author:                types.ObjectNull(gitopsAuthorAttrTypes),
		PromotedCommitID:      types.StringNull(),
		PullRequest:           types.ObjectNull(gitopsPullRequestAttrTypes()),
		SSHHostKeyFingerprint: types.StringNull(),
		RetainOnDestroy:       types.BoolValue(false),
		CommitSHA:             types.StringNull(),
		PullRequestNumber:     types.Int64Null(),
		PullRequestURL:        types.StringNull(),
		PullRequestState:      types.StringNull(),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func gitopsPullRequestAttrTypes() map[string]attr.Type {
	return map[string]attr.Type{
		"head_branch": types.StringType,
		"title":       types.StringType,
		"labels":      types.ListType{ElemType: types.StringType},
	}
}

// deliver pushes m's files (direct or PR mode) and fills the computed attributes.
// prior is the state before the change (nil on create).
func (r *GitopsCommitResource) deliver(ctx context.Context, m *gitopsCommitModel, prior *gitopsCommitModel) diag.Diagnostics {
	diags, _ := r.deliverOpts(ctx, m, prior, false)
	return diags
}

// deliverOpts is deliver; existingOnly refuses to create a missing branch (destroy), and the
// Git error is returned for the caller to classify.
func (r *GitopsCommitResource) deliverOpts(ctx context.Context, m *gitopsCommitModel, prior *gitopsCommitModel, existingOnly bool) (diag.Diagnostics, error) {
	var diags diag.Diagnostics
	files := map[string]string{}
	diags.Append(m.Files.ElementsAs(ctx, &files, false)...)
	if diags.HasError() {
		return diags, nil
	}
	req := gitrepo.ApplyRequest{
		RepoURL:  m.RepositoryURL.ValueString(),
		Branch:   m.Branch.ValueString(),
		Path:     m.Path.ValueString(),
		Files:    make(map[string][]byte, len(files)),
		Message:  m.CommitMessage.ValueString(),
		Author:   r.author(ctx, m, &diags),
		NoCreate: existingOnly,
	}
	for name, content := range files {
		req.Files[name] = []byte(content)
	}
	if !m.PromotedCommitID.IsNull() {
		req.RootFiles = map[string][]byte{promotedCommitFile: []byte(m.PromotedCommitID.ValueString())}
	} else if prior != nil && !prior.PromotedCommitID.IsNull() {
		req.DeleteRootFiles = []string{promotedCommitFile}
	}
	prMode := !m.PullRequest.IsNull()
	if prMode {
		req.HeadBranch = r.headBranch(ctx, m)
	}
	id := gitopsCommitID(req.RepoURL, req.Path, req.Branch)
	m.ID = types.StringValue(id)

	res, err := r.client(m).Apply(ctx, req)
	if err != nil {
		diags.Append(gitErrorDiag("Cannot deliver the files to Git", id, err))
		return diags, err
	}
	m.CommitSHA = types.StringValue(res.CommitSHA)
	if !prMode {
		m.PullRequestNumber = types.Int64Null()
		m.PullRequestURL = types.StringNull()
		m.PullRequestState = types.StringNull()
		return diags, nil
	}
	if !res.Changed {
		// Nothing to propose: the base already holds the desired content.
		if prior == nil || prior.PullRequestNumber.IsNull() {
			m.PullRequestNumber = types.Int64Null()
			m.PullRequestURL = types.StringNull()
			m.PullRequestState = types.StringValue(prStateNone)
		} else {
			m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = prior.PullRequestNumber, prior.PullRequestURL, prior.PullRequestState
			if m.PullRequestState.IsUnknown() || m.PullRequestState.IsNull() {
				m.PullRequestState = types.StringValue(prStateNone)
			}
		}
		return diags, nil
	}
	pr, d := r.ensurePullRequest(ctx, m, prior, req, res)
	diags.Append(d...)
	if diags.HasError() {
		return diags, nil
	}
	m.PullRequestNumber = types.Int64Value(int64(pr.Number))
	m.PullRequestURL = types.StringValue(pr.URL)
	m.PullRequestState = types.StringValue(pr.State)
	return diags, nil
}

func (r *GitopsCommitResource) ensurePullRequest(ctx context.Context, m, prior *gitopsCommitModel, req gitrepo.ApplyRequest, res gitrepo.ApplyResult) (githubpr.PR, diag.Diagnostics) {
	var diags diag.Diagnostics
	var prm gitopsPullRequestModel
	diags.Append(m.PullRequest.As(ctx, &prm, objectAsOptions)...)
	if diags.HasError() {
		return githubpr.PR{}, diags
	}
	owner, repo, err := githubpr.ParseRepo(req.RepoURL)
	if err != nil {
		diags.AddAttributeError(path.Root("repository_url"), "Pull-request mode needs a GitHub repository URL",
			fmt.Sprintf("kalypso_gitops_commit %s: %s.", m.ID.ValueString(), err))
		return githubpr.PR{}, diags
	}
	svc, err := r.data.GitHubClient()
	if err != nil {
		diags.AddError("Invalid GitHub configuration", fmt.Sprintf("kalypso_gitops_commit %s: %s. Check the provider's github_base_url.", m.ID.ValueString(), err))
		return githubpr.PR{}, diags
	}
	promotedChanged := !m.PromotedCommitID.IsNull() && (prior == nil || !prior.PromotedCommitID.Equal(m.PromotedCommitID))
	title, body := githubpr.Describe(githubpr.Summary{
		Base: req.Branch, Path: req.Path,
		Added: res.Changes.Added, Modified: res.Changes.Modified, Removed: res.Changes.Removed,
		PromotedCommitID: m.PromotedCommitID.ValueString(), PromotedChanged: promotedChanged,
	})
	if t := prm.Title.ValueString(); t != "" {
		title = t
	}
	var labels []string
	if !prm.Labels.IsNull() && !prm.Labels.IsUnknown() {
		diags.Append(prm.Labels.ElementsAs(ctx, &labels, false)...)
	}
	if promotedChanged {
		labels = append(labels, githubpr.LabelPromoted)
	}
	pr, _, err := svc.Ensure(ctx, githubpr.EnsureRequest{
		Owner: owner, Repo: repo, Base: req.Branch, Head: req.HeadBranch, Title: title, Body: body, Labels: labels,
	})
	if err != nil {
		diags.AddError("Cannot open or update the pull request",
			fmt.Sprintf("kalypso_gitops_commit %s: the commit %s is on branch %q, but the GitHub API failed: %s. "+
				"Check the provider's git_token (it needs pull-request write access) and github_base_url; the next apply retries.",
				m.ID.ValueString(), res.CommitSHA, req.HeadBranch, err))
		return githubpr.PR{}, diags
	}
	return pr, diags
}

func (r *GitopsCommitResource) readPullRequest(ctx context.Context, m *gitopsCommitModel) (githubpr.PR, diag.Diagnostics) {
	var diags diag.Diagnostics
	owner, repo, err := githubpr.ParseRepo(m.RepositoryURL.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("repository_url"), "Pull-request mode needs a GitHub repository URL", err.Error())
		return githubpr.PR{}, diags
	}
	svc, err := r.data.GitHubClient()
	if err != nil {
		diags.AddError("Invalid GitHub configuration", err.Error())
		return githubpr.PR{}, diags
	}
	pr, err := svc.Get(ctx, owner, repo, int(m.PullRequestNumber.ValueInt64()))
	if err != nil {
		diags.AddError("Cannot read the pull request",
			fmt.Sprintf("kalypso_gitops_commit %s: %s. Check the provider's git_token and github_base_url.", m.ID.ValueString(), err))
	}
	return pr, diags
}

func (r *GitopsCommitResource) headBranch(ctx context.Context, m *gitopsCommitModel) string {
	var prm gitopsPullRequestModel
	if !m.PullRequest.IsNull() && !m.PullRequest.IsUnknown() {
		_ = m.PullRequest.As(ctx, &prm, objectAsOptions)
	}
	if h := prm.HeadBranch.ValueString(); h != "" {
		return h
	}
	return "kalypso/" + m.Branch.ValueString()
}

func (r *GitopsCommitResource) author(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) gitrepo.Signature {
	sig := gitrepo.Signature{}
	if r.data != nil {
		sig.Name, sig.Email = r.data.AuthorName, r.data.AuthorEmail
	}
	if !m.Author.IsNull() && !m.Author.IsUnknown() {
		var a AuthorModel
		diags.Append(m.Author.As(ctx, &a, objectAsOptions)...)
		if v := a.Name.ValueString(); v != "" {
			sig.Name = v
		}
		if v := a.Email.ValueString(); v != "" {
			sig.Email = v
		}
	}
	return sig
}

func (r *GitopsCommitResource) client(m *gitopsCommitModel) *gitrepo.Client {
	return r.data.GitClient(WithSSHHostKeyFingerprint(m.SSHHostKeyFingerprint.ValueString()))
}

// gitErrorDiag turns a gitrepo error into a diagnostic that says what to do.
func gitErrorDiag(summary, id string, err error) diag.Diagnostic {
	hint := "The remote may be unreachable; check the network and retry."
	attrPath := path.Empty()
	switch {
	case errors.Is(err, gitrepo.ErrCredentialsInURL):
		hint = "Remove credentials from repository_url and set git_token (or GIT_TOKEN/GITHUB_TOKEN) or ssh_private_key in the provider."
		attrPath = path.Root("repository_url")
	case errors.Is(err, gitrepo.ErrAuth):
		hint = "Check the provider's git_token (GIT_TOKEN/GITHUB_TOKEN) for https, or ssh_private_key and ssh_known_hosts for ssh, and that they may read and push the repository."
	case errors.Is(err, gitrepo.ErrRepositoryNotFound):
		hint = "Check repository_url and the provider's git_url_rewrites."
		attrPath = path.Root("repository_url")
	case errors.Is(err, gitrepo.ErrBranchNotFound):
		hint = "Check branch; in pull-request mode the base branch must exist."
		attrPath = path.Root("branch")
	case errors.Is(err, gitrepo.ErrConflict):
		hint = "Other writers kept updating the branch while this apply pushed; nothing was written. Apply again."
	case errors.Is(err, gitrepo.ErrTimeout):
		hint = "The Git server did not answer within the provider's git_timeout; nothing was written. Raise git_timeout (or KALYPSO_GIT_TIMEOUT) for slow or large remotes, or check the server."
	case errors.Is(err, gitrepo.ErrInvalidInput):
		hint = "Fix path or the file names in files."
	case strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		hint = "TLS verification of the Git server failed (it is always on). For a server whose certificate comes from a private CA, put that CA's PEM certificate in the provider's ca_certificates."
	}
	detail := fmt.Sprintf("kalypso_gitops_commit %s: %s.\n\n%s", id, err, hint)
	if attrPath.Equal(path.Empty()) {
		return diag.NewErrorDiagnostic(summary, detail)
	}
	return diag.NewAttributeErrorDiagnostic(attrPath, summary, detail)
}

// gitopsCommitID renders `<repository_url>//<path>?ref=<branch>`.
func gitopsCommitID(repoURL, dir, branch string) string {
	clean, err := gitrepo.CleanPath(dir)
	if err != nil || clean == "" {
		clean = "."
	}
	return repoURL + "//" + clean + "?ref=" + branch
}

// parseGitopsCommitID parses `<repository_url>//<path>?ref=<branch>`; a missing `//<path>` means ".".
func parseGitopsCommitID(id string) (repoURL, dir, branch string, err error) {
	i := strings.LastIndex(id, "?ref=")
	if i < 0 {
		return "", "", "", errors.New("the ID has no ?ref=<branch> suffix")
	}
	rest, branch := id[:i], id[i+len("?ref="):]
	if branch == "" {
		return "", "", "", errors.New("the branch after ?ref= is empty")
	}
	repoURL, dir = rest, "."
	if j := strings.LastIndex(rest, "//"); j >= 0 && !(j > 0 && rest[j-1] == ':') {
		repoURL, dir = rest[:j], rest[j+2:]
		if dir == "" {
			dir = "."
		}
	}
	if repoURL == "" {
		return "", "", "", errors.New("the repository URL is empty")
	}
	if err := gitrepo.ValidateURL(repoURL); err != nil {
		return "", "", "", err
	}
	if _, err := gitrepo.CleanPath(dir); err != nil {
		return "", "", "", err
	}
	return repoURL, dir, branch, nil
}

func gitopsKnown(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }
