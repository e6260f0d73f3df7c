// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"unsafe"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

var (
	_ resource.Resource                     = &GitopsCommitResource{}
	_ resource.ResourceWithConfigure        = &GitopsCommitResource{}
	_ resource.ResourceWithModifyPlan       = &GitopsCommitResource{}
	_ resource.ResourceWithValidateConfig   = &GitopsCommitResource{}
	_ resource.ResourceWithConfigValidators = &GitopsCommitResource{}
	_ resource.ResourceWithImportState      = &GitopsCommitResource{}
)

const (
	promotedCommitFile   = delivery.PromotedCommitFile
	defaultCommitMessage = "Update GitOps repository (kalypso_gitops_commit)"
	prStateNone          = "none"
)

// GitopsCommitResource is kalypso_gitops_commit: it delivers a file set, or an environment it renders, to
// a path of a Git branch. The change set, guards and Git work live in internal/delivery and internal/gitrepo.
type GitopsCommitResource struct {
	data *ProviderData
}

// NewGitopsCommitResource returns the resource.
func NewGitopsCommitResource() resource.Resource { return &GitopsCommitResource{} }

type gitopsCommitModel struct {
	ID                    types.String `tfsdk:"id"`
	RepositoryURL         types.String `tfsdk:"repository_url"`
	Branch                types.String `tfsdk:"branch"`
	CreateBranch          types.Bool   `tfsdk:"create_branch"`
	Path                  types.String `tfsdk:"path"`
	Files                 types.Map    `tfsdk:"files"`
	Render                types.Object `tfsdk:"render"`
	CommitMessage         types.String `tfsdk:"commit_message"`
	Author                types.Object `tfsdk:"author"`
	PromotedCommitID      types.String `tfsdk:"promoted_commit_id"`
	PullRequest           types.Object `tfsdk:"pull_request"`
	SSHHostKeyFingerprint types.String `tfsdk:"ssh_host_key_fingerprint"`
	RetainOnDestroy       types.Bool   `tfsdk:"retain_on_destroy"`
	MaxChanges            types.Int64  `tfsdk:"max_changes"`
	MaxDeletePercent      types.Int64  `tfsdk:"max_delete_percent"`
	Changes               types.Map    `tfsdk:"changes"`
	ChangesSummary        types.String `tfsdk:"changes_summary"`
	ChangesByDirectory    types.Map    `tfsdk:"changes_by_directory"`
	RenderSummary         types.Object `tfsdk:"render_summary"`
	BaseTreeID            types.String `tfsdk:"base_tree_id"`
	ContentHash           types.String `tfsdk:"content_hash"`
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

type gitopsRenderModel struct {
	Environment      types.String   `tfsdk:"environment"`
	Manifests        []types.String `tfsdk:"manifests"`
	ConfigValidation types.String   `tfsdk:"config_validation"`
}

var (
	gitopsAuthorAttrTypes = map[string]attr.Type{"name": types.StringType, "email": types.StringType}
	gitopsChangeType      = types.ObjectType{AttrTypes: map[string]attr.Type{"action": types.StringType, "diff": types.StringType}}
	// Counts are strings: a number anywhere in the state makes `terraform plan -refresh-only -detailed-exitcode`
	// exit 2 without any drift (hashicorp/terraform#36403), which breaks drift detection.
	gitopsRenderSummaryTypes = map[string]attr.Type{
		"assignments":                    types.StringType,
		"assignments_by_cluster_type":    types.MapType{ElemType: types.StringType},
		"unscheduled_deployment_targets": types.ListType{ElemType: types.StringType},
		"promoted_commit_id":             types.StringType,
	}
	sshFingerprint = regexp.MustCompile(`^SHA256:[A-Za-z0-9+/]{43}=?$`)
)

func (r *GitopsCommitResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gitops_commit"
}

func (r *GitopsCommitResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Delivers a Kalypso environment (`render`) or a hand-made file set (`files`) to a path of a Git branch, " +
			"in one commit per apply and no commit when nothing changed, or as one GitHub pull request.\n\n" +
			"The plan is computed against the branch: `changes` lists every file the apply will create, update (with a unified diff) " +
			"or delete, also on create, and `changes_summary` counts them. The apply performs exactly that change set: if the files " +
			"under `path` changed on the branch after the plan, it writes nothing and asks for a new plan. Files under `path` that are " +
			"not desired are deleted; nothing outside `path`, and no dot-entry at its root, is touched, and commits by others outside " +
			"`path` are kept.\n\n" +
			"Guards at plan time: invalid branch names, a missing branch (unless `create_branch`), two resources whose paths overlap " +
			"on one branch (each resource records its path in a `" + delivery.OwnerMarker + "` file at the root of `path`, which no " +
			"cluster applies), and a change that deletes most of what is under `path` (`max_delete_percent`).\n\n" +
			"All Git operations use go-git; credentials come from the provider configuration or its environment variables and are never stored in state.",
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
				MarkdownDescription: "Branch to write (the pull request's base in PR mode). It must exist unless `create_branch` is set; " +
					"the name must follow `git check-ref-format`.",
				Required:      true,
				PlanModifiers: replace,
			},
			"create_branch": schema.BoolAttribute{
				MarkdownDescription: "Create `branch` when it does not exist, as a new branch (without parent commit) that holds only this resource's files, " +
					"so that what the plan shows does not depend on another branch moving before the apply; to start from another branch's content " +
					"(CI workflows, a README), create the branch with git first. Defaults to `false`: a missing branch is an error at plan time that lists the branches that exist.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Directory of the repository this resource owns. Defaults to `.` (the root).",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("."),
				PlanModifiers:       replace,
			},
			"render": schema.SingleNestedAttribute{
				MarkdownDescription: "Render mode: the resource runs the same engine as `provider::kalypso::environment_render` and delivers " +
					"the environment's tree. No file content passes through Terraform's state. Exactly one of `render` and `files`.",
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"environment": schema.StringAttribute{Required: true, MarkdownDescription: "Environment to render, for example `dev`."},
					"manifests": schema.ListAttribute{
						Required: true, ElementType: types.StringType,
						MarkdownDescription: "Kalypso YAML, as for `environment_render`: each string holds one or more `---`-separated documents.",
					},
					"config_validation": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "`error` (default) or `warn`: a platform config that violates a config schema fails the plan, or is a plan warning and leaves that assignment out.",
						Validators:          []validator.String{stringvalidator.OneOf(render.ConfigValidationError, render.ConfigValidationWarn)},
					},
				},
			},
			"files": schema.MapAttribute{
				MarkdownDescription: "Files mode, for hand-made or small trees: map of file name, relative to `path`, to content. Names may not " +
					"start with a dot-entry (those are never managed). Exactly one of `render` and `files`.",
				Optional:    true,
				ElementType: types.StringType,
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
				MarkdownDescription: "A full commit id (40 hexadecimal digits, 64 in a SHA-256 repository), written to `" + promotedCommitFile +
					"` at the repository root with no newline, as upstream Kalypso does. Removing the attribute removes the file. In PR mode a change adds the `promoted` label.",
				Optional: true,
			},
			"pull_request": schema.SingleNestedAttribute{
				MarkdownDescription: "GitHub pull-request mode: the change is committed on top of `branch` to a stable head branch and proposed " +
					"as one pull request, updated in place on later applies. Uses the provider's `github_base_url` and token; `repository_url` " +
					"must be a GitHub URL.",
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"head_branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Head branch; defaults to `kalypso/<branch>`. It is owned by the provider and force-updated."},
					"title":       schema.StringAttribute{Optional: true, MarkdownDescription: "Title; defaults to a summary of the changes per cluster type."},
					"labels":      schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Labels added to the pull request."},
				},
			},
			"ssh_host_key_fingerprint": schema.StringAttribute{
				MarkdownDescription: "SHA256 fingerprint (`SHA256:` and 43 base64 characters, as `ssh-keygen -lf` prints it) the ssh host key must have, instead of known_hosts. Host keys are always verified.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(sshFingerprint, "must be SHA256: followed by 43 base64 characters, as `ssh-keygen -l -E sha256` prints it")},
			},
			"retain_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Keep the files in the repository when the resource is destroyed. Defaults to `false`: destroy removes them " +
					"(and the promoted-commit file and ownership record it wrote) in one commit; in pull-request mode the removal is proposed as a pull request.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"max_changes": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many files `changes` lists (the first by path); `changes_summary` always counts all. Defaults to %d.", delivery.DefaultMaxChanges),
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 100000)},
			},
			"max_delete_percent": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Refuse a change that deletes more than this share of the files under `path` (when it holds at least %d): "+
					"the signature of a mistyped environment name or selector. Defaults to %d; `100` disables the guard.", delivery.MassDeletionMinFiles, delivery.DefaultMaxDeletePercent),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 100)},
			},
			"changes": schema.MapNestedAttribute{
				MarkdownDescription: "The change set the plan computed against the branch: root-relative path → `action` (`create`, `update`, " +
					"`delete`) and `diff` (a unified diff for an update, the content for a create, both cut with a note past 16 KiB; empty for a delete). " +
					"Only changed files appear, at most `max_changes`. After an apply the state holds the applied change set until the next refresh, " +
					"which empties it (so the first `terraform plan -refresh-only` after an apply reports that update).",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"action": schema.StringAttribute{Computed: true, MarkdownDescription: "`create`, `update` or `delete`."},
					"diff":   schema.StringAttribute{Computed: true, MarkdownDescription: "Unified diff, content of a new file, or empty."},
				}},
			},
			"changes_summary": schema.StringAttribute{
				MarkdownDescription: "Counts of the change set, covering every changed file even past `max_changes`, for example " +
					"`2 to create, 1 to update, 0 to delete`. Counts are strings here and below: a number in the state makes " +
					"`terraform plan -refresh-only -detailed-exitcode` report drift that is not there (hashicorp/terraform#36403).",
				Computed: true,
			},
			"changes_by_directory": schema.MapAttribute{
				MarkdownDescription: "The same counts per top-level directory under `path` (a cluster type's folder in a Kalypso GitOps repository).",
				Computed:            true, ElementType: types.StringType,
			},
			"render_summary": schema.SingleNestedAttribute{
				MarkdownDescription: "Render mode: what the engine scheduled. Null in files mode.",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"assignments":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Number of assignments (a string, see `changes_summary`)."},
					"assignments_by_cluster_type":    schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Assignments per cluster type."},
					"unscheduled_deployment_targets": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Deployment targets no policy places."},
					"promoted_commit_id":             schema.StringAttribute{Computed: true, MarkdownDescription: "`spec.commit` of the BaseRepo named `main`, or empty; pass it to `promoted_commit_id` to record it."},
				},
			},
			"base_tree_id": schema.StringAttribute{
				MarkdownDescription: "Git tree id of the managed files under `path` that the last change set was computed against; the apply refuses to write when the branch holds anything else there.",
				Computed:            true,
			},
			"content_hash": schema.StringAttribute{
				MarkdownDescription: "Git tree id of the delivered files under `path` (dot-entries at its root not counted). Refresh reads it from the branch, so out-of-band edits show as drift.",
				Computed:            true,
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

func (r *GitopsCommitResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(path.MatchRoot("files"), path.MatchRoot("render"))}
}

func (r *GitopsCommitResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if data := configuredProviderData(req.ProviderData, &resp.Diagnostics); data != nil {
		r.data = data
	}
}

func (r *GitopsCommitResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gitopsCommitModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	known := func(v types.String) *string {
		if !gitopsKnown(v) {
			return nil
		}
		s := v.ValueString()
		return &s
	}
	settings := delivery.Settings{RepoURL: known(cfg.RepositoryURL), Branch: known(cfg.Branch), PromotedCommitID: known(cfg.PromotedCommitID), Path: known(cfg.Path), PullRequest: !cfg.PullRequest.IsNull()}
	if !cfg.PullRequest.IsNull() && !cfg.PullRequest.IsUnknown() {
		var prm gitopsPullRequestModel
		resp.Diagnostics.Append(cfg.PullRequest.As(ctx, &prm, objectAsOptions)...)
		settings.HeadBranch = known(prm.HeadBranch)
	}
	for _, p := range delivery.CheckSettings(settings) {
		at := path.Root(p.Attribute)
		if p.Attribute == "pull_request.head_branch" {
			at = path.Root("pull_request").AtName("head_branch")
		}
		resp.Diagnostics.AddAttributeError(at, p.Summary, "kalypso_gitops_commit: "+p.Detail)
	}
	if !cfg.Files.IsNull() && !cfg.Files.IsUnknown() {
		names := make([]string, 0, len(cfg.Files.Elements()))
		for name, v := range cfg.Files.Elements() {
			names = append(names, name)
			if v.IsNull() {
				resp.Diagnostics.AddAttributeError(path.Root("files").AtMapKey(name), "Null file content",
					fmt.Sprintf("kalypso_gitops_commit: file %q has null content. Give it content (\"\" for an empty file) or remove it from files.", name))
			}
		}
		for _, p := range delivery.CheckFileNames(names) {
			resp.Diagnostics.AddAttributeError(path.Root("files").AtMapKey(p.Name), p.Summary, "kalypso_gitops_commit: "+p.Detail)
		}
	}
}

// desired is what a plan or an apply delivers, built from the configuration.
type desired struct {
	files  map[string][]byte
	render *render.Result
	known  bool
	// inputs names the render's inputs and the code that renders them (render mode).
	inputs string
	// warnings are the render's (render mode).
	warnings model.Diagnostics
	// reused is the managed tree id that the last apply of the same inputs recorded: the render was skipped
	// and files is nil (delivery.Desired.Tree).
	reused string
}

// desiredFiles reads files or renders; known is false when an input is not known yet. With last (render
// mode), inputs equal to those of the last apply are not rendered again: see renderRecord.
func (r *GitopsCommitResource) desiredFiles(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics, last *renderRecord) desired {
	if !m.Render.IsNull() {
		if m.Render.IsUnknown() {
			return desired{}
		}
		var rm gitopsRenderModel
		diags.Append(m.Render.As(ctx, &rm, objectAsOptions)...)
		manifests, known := manifestStrings(rm.Manifests)
		if diags.HasError() || !known || !gitopsKnown(rm.Environment) || rm.ConfigValidation.IsUnknown() {
			return desired{}
		}
		opts := r.data.RenderOptions(ctx, rm.ConfigValidation.ValueString())
		key := renderCacheKey(rm.Environment.ValueString(), manifests, opts)
		inputs := fmt.Sprintf("%x", sha256.Sum256(append([]byte(render.BuildID()+"\n"), key[:]...)))
		manifestsPath := path.Root("render").AtName("manifests")
		if last != nil && last.Inputs == inputs && last.Tree != "" {
			diags.Append(engineDiagnostics(last.Warnings, manifestsPath)...)
			return desired{known: true, inputs: inputs, warnings: last.Warnings, reused: last.Tree}
		}
		res, engineDiags, _ := renderCached(rm.Environment.ValueString(), manifests, opts, nil)
		diags.Append(engineDiagnostics(engineDiags, manifestsPath)...)
		if diags.HasError() {
			return desired{}
		}
		var warnings model.Diagnostics
		for _, d := range engineDiags {
			if d.Severity == model.SeverityWarning {
				warnings = append(warnings, d)
			}
		}
		return desired{files: renderedFiles(res), render: res, known: true, inputs: inputs, warnings: warnings}
	}
	if m.Files.IsUnknown() {
		return desired{}
	}
	files := make(map[string][]byte, len(m.Files.Elements()))
	for name, v := range m.Files.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return desired{}
		}
		files[name] = []byte(s.ValueString())
	}
	return desired{files: files, known: true}
}

// The apply walk plans (ModifyPlan) and then applies (Create, Update) in one provider process, on the same
// cached render: its files are converted once, and the tree id the plan computed is kept for the apply.
var lastRendered struct {
	sync.Mutex
	res   *render.Result
	files map[string][]byte
	tree  *gitrepo.Tree
}

func renderedFiles(res *render.Result) map[string][]byte {
	lastRendered.Lock()
	defer lastRendered.Unlock()
	if lastRendered.res == res {
		return lastRendered.files
	}
	files := make(map[string][]byte, len(res.Files))
	for p, c := range res.Files {
		// No copy: the render's strings are immutable and outlive the map, and the delivery only reads
		// them. (A whole environment is 160 MiB of files; copying it cost a second per plan.)
		files[p] = unsafe.Slice(unsafe.StringData(c), len(c))
		if c == "" {
			files[p] = []byte{}
		}
	}
	lastRendered.res, lastRendered.files, lastRendered.tree = res, files, nil
	return files
}

// rememberTree records the tree of res's files; renderedTree returns it (nil when not known).
func rememberTree(res *render.Result, tree *gitrepo.Tree) {
	lastRendered.Lock()
	defer lastRendered.Unlock()
	if lastRendered.res == res {
		lastRendered.tree = tree
	}
}

func renderedTree(res *render.Result) *gitrepo.Tree {
	lastRendered.Lock()
	defer lastRendered.Unlock()
	if res != nil && lastRendered.res == res {
		return lastRendered.tree
	}
	return nil
}

// renderRecord is what an apply in render mode keeps in the resource's private state: the render's inputs
// (with the code that renders them), the managed tree they render to, and the render's warnings. A plan
// whose inputs are the same, against a branch that still holds that tree, has nothing to change and
// needs no render: at 86k assignments that is most of an empty re-plan.
type renderRecord struct {
	Inputs   string            `json:"inputs"`
	Tree     string            `json:"tree"`
	Warnings model.Diagnostics `json:"warnings,omitempty"`
}

const renderRecordKey = "render"

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// readRenderRecord returns the record, or nil when there is none or it cannot be read (the plan renders).
func readRenderRecord(ctx context.Context, p privateGetter) *renderRecord {
	if p == nil {
		return nil
	}
	b, diags := p.GetKey(ctx, renderRecordKey)
	var rec renderRecord
	if diags.HasError() || len(b) == 0 || json.Unmarshal(b, &rec) != nil {
		return nil
	}
	return &rec
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// writeRenderRecord stores the record of an apply in render mode (and clears it in files mode).
func writeRenderRecord(ctx context.Context, p privateSetter, d desired, tree string) diag.Diagnostics {
	if d.inputs == "" || tree == "" {
		return p.SetKey(ctx, renderRecordKey, nil)
	}
	b, err := json.Marshal(renderRecord{Inputs: d.inputs, Tree: tree, Warnings: d.warnings})
	if err != nil {
		return p.SetKey(ctx, renderRecordKey, nil)
	}
	return p.SetKey(ctx, renderRecordKey, b)
}

// deliveryDesired adds the root files (promoted commit, ownership record) to the managed files.
func deliveryDesired(m *gitopsCommitModel, want desired, priorPromoted bool) delivery.Desired {
	dir, _ := gitrepo.CleanPath(m.Path.ValueString())
	d := delivery.Desired{Path: dir, Files: want.files, RecordedTree: want.reused, RootFiles: map[string][]byte{delivery.MarkerPath(dir): delivery.MarkerContent(displayDir(dir))}}
	if !m.PromotedCommitID.IsNull() {
		d.RootFiles[promotedCommitFile] = []byte(m.PromotedCommitID.ValueString())
	} else if priorPromoted {
		d.DeleteRootFiles = []string{promotedCommitFile}
	}
	return d
}

func displayDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
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
	var state *gitopsCommitModel
	if !req.State.Raw.IsNull() {
		state = &gitopsCommitModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if gitopsKnown(plan.RepositoryURL) && gitopsKnown(plan.Branch) && gitopsKnown(plan.Path) {
		plan.ID = types.StringValue(delivery.ID(plan.RepositoryURL.ValueString(), plan.Path.ValueString(), plan.Branch.ValueString()))
	}
	prMode := !plan.PullRequest.IsNull()
	if !prMode && !plan.PullRequest.IsUnknown() {
		plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = types.Int64Null(), types.StringNull(), types.StringNull()
	}
	var last *renderRecord
	if state != nil {
		last = readRenderRecord(ctx, req.Private)
	}
	var d desired
	var cs *delivery.Plan
	for attempt := 0; attempt < 2; attempt++ {
		var diags diag.Diagnostics
		d = r.desiredFiles(ctx, &plan, &diags, last)
		if !diags.HasError() {
			var needFiles bool
			if cs, needFiles = r.planChanges(ctx, &plan, state, d, &diags); needFiles {
				last = nil // the branch no longer holds the recorded tree: render
				continue
			}
		}
		resp.Diagnostics.Append(diags...)
		break
	}
	if resp.Diagnostics.HasError() {
		return
	}
	plan.RenderSummary = renderSummaryValue(&plan, d.render)
	if d.reused != "" {
		plan.RenderSummary = state.RenderSummary // same inputs, same render
	}
	if cs == nil || !cs.Empty() {
		// Something will be written (or it is not known yet): the commit and PR outcome are known after apply.
		plan.CommitSHA = types.StringUnknown()
		if prMode {
			plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = types.Int64Unknown(), types.StringUnknown(), types.StringUnknown()
		}
	} else if state != nil {
		// Nothing to write: keep what the last apply recorded, so that the plan is empty.
		plan.CommitSHA, plan.Changes, plan.ChangesSummary, plan.ChangesByDirectory, plan.BaseTreeID = state.CommitSHA, state.Changes, state.ChangesSummary, state.ChangesByDirectory, state.BaseTreeID
		if prMode {
			plan.PullRequestNumber, plan.PullRequestURL, plan.PullRequestState = state.PullRequestNumber, state.PullRequestURL, state.PullRequestState
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planChanges reads the branch and fills changes, changes_summary, base_tree_id and content_hash, or
// marks them unknown when the desired tree is not known yet. It returns nil in that case, and needFiles
// when d skipped the render but the branch no longer holds the recorded tree.
func (r *GitopsCommitResource) planChanges(ctx context.Context, plan, state *gitopsCommitModel, d desired, diags *diag.Diagnostics) (_ *delivery.Plan, needFiles bool) {
	unknown := func() (*delivery.Plan, bool) {
		plan.Changes, plan.ChangesSummary, plan.ChangesByDirectory = types.MapUnknown(gitopsChangeType), types.StringUnknown(), types.MapUnknown(types.StringType)
		plan.BaseTreeID, plan.ContentHash = types.StringUnknown(), types.StringUnknown()
		return nil, false
	}
	if !d.known || !gitopsKnown(plan.RepositoryURL) || !gitopsKnown(plan.Branch) || !gitopsKnown(plan.Path) ||
		plan.PromotedCommitID.IsUnknown() || plan.PullRequest.IsUnknown() || plan.MaxChanges.IsUnknown() || plan.MaxDeletePercent.IsUnknown() || plan.CreateBranch.IsUnknown() {
		return unknown()
	}
	req := delivery.PlanRequest{
		RepoURL: plan.RepositoryURL.ValueString(), Branch: plan.Branch.ValueString(), CreateBranch: plan.CreateBranch.ValueBool(),
		PullRequest: !plan.PullRequest.IsNull(), Desired: deliveryDesired(plan, d, state != nil && !state.PromotedCommitID.IsNull()),
		MaxChanges: int(plan.MaxChanges.ValueInt64()), MaxDeletePercent: delivery.DefaultMaxDeletePercent,
	}
	if !plan.MaxDeletePercent.IsNull() {
		req.MaxDeletePercent = int(plan.MaxDeletePercent.ValueInt64())
	}
	if state != nil {
		req.LastTree = state.ContentHash.ValueString()
		if req.PullRequest && state.PullRequestState.ValueString() == githubpr.StateOpen {
			req.ReadBranch = r.headBranch(ctx, plan) // the open proposal is what the plan changes
		}
	}
	cs, err := delivery.PlanAgainstBranch(ctx, r.client(plan), req)
	if errors.Is(err, delivery.ErrFilesNeeded) {
		return nil, true
	}
	if err != nil {
		diags.Append(deliveryDiag(plan.ID.ValueString(), err))
		return nil, false
	}
	if cs.Tree != nil {
		rememberTree(d.render, cs.Tree)
	}
	plan.Changes, plan.ChangesSummary, plan.ChangesByDirectory = changesValue(cs), types.StringValue(cs.Counts.String(cs.Omitted)), byDirectoryValue(cs)
	plan.BaseTreeID, plan.ContentHash = types.StringValue(cs.BaseTree), types.StringValue(cs.DesiredTree)
	return cs, false
}

func changesValue(cs *delivery.Plan) types.Map {
	elems := make(map[string]attr.Value, len(cs.Changes))
	for p, c := range cs.Changes {
		elems[p] = types.ObjectValueMust(gitopsChangeType.AttrTypes, map[string]attr.Value{"action": types.StringValue(string(c.Action)), "diff": types.StringValue(c.Diff)})
	}
	return types.MapValueMust(gitopsChangeType, elems)
}

func byDirectoryValue(cs *delivery.Plan) types.Map {
	by := make(map[string]attr.Value, len(cs.ByDirectory))
	for dir, c := range cs.ByDirectory {
		by[dir] = types.StringValue(c.String(0))
	}
	return types.MapValueMust(types.StringType, by)
}

// emptyChanges are the values of changes, changes_summary and changes_by_directory when nothing is pending.
func emptyChanges() (types.Map, types.String, types.Map) {
	empty := &delivery.Plan{}
	return changesValue(empty), types.StringValue(empty.Counts.String(0)), byDirectoryValue(empty)
}

func renderSummaryValue(m *gitopsCommitModel, res *render.Result) types.Object {
	if m.Render.IsNull() {
		return types.ObjectNull(gitopsRenderSummaryTypes)
	}
	if res == nil {
		return types.ObjectUnknown(gitopsRenderSummaryTypes)
	}
	by := map[string]attr.Value{}
	counts := map[string]int{}
	for _, a := range res.Assignments {
		counts[a.ClusterType]++
	}
	for _, ct := range res.ClusterTypes {
		by[ct] = types.StringValue(strconv.Itoa(counts[ct]))
	}
	return types.ObjectValueMust(gitopsRenderSummaryTypes, map[string]attr.Value{
		"assignments":                    types.StringValue(strconv.Itoa(len(res.Assignments))),
		"assignments_by_cluster_type":    types.MapValueMust(types.StringType, by),
		"unscheduled_deployment_targets": stringList(res.Unscheduled),
		"promoted_commit_id":             types.StringValue(res.PromotedCommit),
	})
}

func (r *GitopsCommitResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan gitopsCommitModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d, diags := r.deliver(ctx, &plan, nil)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(writeRenderRecord(ctx, resp.Private, d, plan.ContentHash.ValueString())...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *GitopsCommitResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state gitopsCommitModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d, diags := r.deliver(ctx, &plan, &state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(writeRenderRecord(ctx, resp.Private, d, plan.ContentHash.ValueString())...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *GitopsCommitResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state gitopsCommitModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dir, _ := gitrepo.CleanPath(state.Path.ValueString())
	req2 := delivery.RefreshRequest{RepoURL: state.RepositoryURL.ValueString(), Branch: state.Branch.ValueString(), Path: dir, Files: state.Render.IsNull()}
	if !state.PullRequest.IsNull() && !state.PullRequestNumber.IsNull() {
		pr, err := delivery.ReadPullRequest(ctx, r.data.GitHubClient, req2.RepoURL, int(state.PullRequestNumber.ValueInt64()))
		if err != nil {
			resp.Diagnostics.Append(deliveryDiag(state.ID.ValueString(), err))
			return
		}
		state.PullRequestState = types.StringValue(pr.State)
		if pr.URL != "" {
			state.PullRequestURL = types.StringValue(pr.URL)
		}
		if pr.State == githubpr.StateOpen {
			// The open proposal is the content Terraform delivered; edits to it are drift.
			req2.HeadBranch = r.headBranch(ctx, &state)
		}
	}
	if req2.Files && !state.Files.IsNull() && !state.Files.IsUnknown() {
		resp.Diagnostics.Append(state.Files.ElementsAs(ctx, &req2.Known, false)...)
	}
	ins, err := delivery.Refresh(ctx, r.client(&state), req2)
	if err != nil {
		resp.Diagnostics.Append(gitErrorDiag("Cannot read the Git repository", state.ID.ValueString(), err))
		return
	}
	if ins.Gone != nil {
		resp.Diagnostics.AddWarning("Git branch no longer exists",
			fmt.Sprintf("kalypso_gitops_commit %s: %s. The resource is removed from state; the next apply delivers the files again.", state.ID.ValueString(), ins.Gone))
		resp.State.RemoveResource(ctx)
		return
	}
	if req2.Files {
		fv, diags := types.MapValueFrom(ctx, types.StringType, ins.Files)
		resp.Diagnostics.Append(diags...)
		state.Files = fv
	}
	// Files under path that changed out of band (including a push whose answer was lost, or an apply
	// killed after its push landed) move commit_sha to the head that now holds them.
	drifted := state.ContentHash.ValueString() != ins.ManagedTree
	// Refresh resets the change set: nothing is pending against what the branch now holds. (The next plan
	// computes a new one; a plan without refresh that finds nothing to change keeps the last apply's.)
	state.ContentHash, state.BaseTreeID = types.StringValue(ins.ManagedTree), types.StringValue(ins.ManagedTree)
	state.Changes, state.ChangesSummary, state.ChangesByDirectory = emptyChanges()
	if !state.PromotedCommitID.IsNull() {
		if v, ok := ins.RootFiles[promotedCommitFile]; ok {
			state.PromotedCommitID = types.StringValue(string(v))
		} else {
			state.PromotedCommitID = types.StringNull()
		}
	}
	if state.CommitSHA.IsNull() || state.CommitSHA.ValueString() == "" || drifted {
		state.CommitSHA = types.StringValue(ins.HeadSHA)
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
	if state.CommitMessage.ValueString() == "" || state.CommitMessage.ValueString() == defaultCommitMessage {
		state.CommitMessage = types.StringValue("Remove files managed by kalypso_gitops_commit")
	}
	dir, _ := gitrepo.CleanPath(state.Path.ValueString())
	want := delivery.Desired{Path: dir, Files: map[string][]byte{}, DeleteRootFiles: []string{delivery.MarkerPath(dir)}}
	if !prior.PromotedCommitID.IsNull() {
		want.DeleteRootFiles = append(want.DeleteRootFiles, promotedCommitFile)
	}
	diags, err := r.push(ctx, &state, &prior, want, "", true)
	if errors.Is(err, gitrepo.ErrRepositoryNotFound) || errors.Is(err, gitrepo.ErrBranchNotFound) {
		return // the repository or branch is already gone: nothing left to remove
	}
	resp.Diagnostics.Append(diags...)
}

// ImportState accepts `<repository_url>//<path>?ref=<branch>`; Read then loads the files.
func (r *GitopsCommitResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	repoURL, dir, branch, err := delivery.ParseID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("kalypso_gitops_commit: %s. Use <repository_url>//<path>?ref=<branch>, for example https://github.com/org/fleet.git//clusters?ref=main.", err))
		return
	}
	changes, summary, byDir := emptyChanges()
	st := gitopsCommitModel{
		ID:                    types.StringValue(delivery.ID(repoURL, dir, branch)),
		RepositoryURL:         types.StringValue(repoURL),
		Branch:                types.StringValue(branch),
		CreateBranch:          types.BoolValue(false),
		Path:                  types.StringValue(dir),
		Files:                 types.MapValueMust(types.StringType, map[string]attr.Value{}),
		Render:                types.ObjectNull(gitopsRenderAttrTypes()),
		CommitMessage:         types.StringValue(defaultCommitMessage),
		Author:                types.ObjectNull(gitopsAuthorAttrTypes),
		PromotedCommitID:      types.StringNull(),
		PullRequest:           types.ObjectNull(gitopsPullRequestAttrTypes()),
		SSHHostKeyFingerprint: types.StringNull(),
		RetainOnDestroy:       types.BoolValue(false),
		MaxChanges:            types.Int64Null(),
		MaxDeletePercent:      types.Int64Null(),
		Changes:               changes,
		ChangesSummary:        summary,
		ChangesByDirectory:    byDir,
		RenderSummary:         types.ObjectNull(gitopsRenderSummaryTypes),
		BaseTreeID:            types.StringNull(),
		ContentHash:           types.StringNull(),
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

func gitopsRenderAttrTypes() map[string]attr.Type {
	return map[string]attr.Type{"environment": types.StringType, "manifests": types.ListType{ElemType: types.StringType}, "config_validation": types.StringType}
}

// deliver applies the planned change set of m (prior is the state before, nil on create) and fills the
// computed attributes.
func (r *GitopsCommitResource) deliver(ctx context.Context, m *gitopsCommitModel, prior *gitopsCommitModel) (desired, diag.Diagnostics) {
	var diags diag.Diagnostics
	d := r.desiredFiles(ctx, m, &diags, nil)
	if diags.HasError() {
		return d, diags
	}
	if !d.known {
		diags.AddError("Cannot deliver an unknown file set",
			fmt.Sprintf("kalypso_gitops_commit %s: an input of files or render is still unknown at apply time. This is a bug in the provider; please report it.", m.ID.ValueString()))
		return d, diags
	}
	want := deliveryDesired(m, d, prior != nil && !prior.PromotedCommitID.IsNull())
	var tree string
	var treeErr error
	if want.Built = renderedTree(d.render); want.Built != nil {
		tree = want.Built.ID()
	} else {
		tree, treeErr = delivery.TreeID(d.files)
	}
	if gitopsKnown(m.ContentHash) {
		// The apply delivers exactly the planned tree: a render that differs from the plan's is refused.
		if got, err := tree, treeErr; err != nil || got != m.ContentHash.ValueString() {
			diags.AddError("The desired tree differs from the plan",
				fmt.Sprintf("kalypso_gitops_commit %s: the plan was for tree %s, the apply computed %s (%v). Nothing was written; run terraform plan again.",
					m.ID.ValueString(), m.ContentHash.ValueString(), got, err))
			return d, diags
		}
	}
	expected := ""
	if m.PullRequest.IsNull() && gitopsKnown(m.BaseTreeID) && gitopsKnown(m.ContentHash) {
		expected = m.BaseTreeID.ValueString()
		if gitopsKnown(m.CommitSHA) {
			// The plan found nothing to write (commit_sha stays known; changes and base_tree_id are those of the
			// last apply): the branch must still hold the desired tree.
			expected = m.ContentHash.ValueString()
		}
	}
	d2, _ := r.push(ctx, m, prior, want, expected, false)
	diags.Append(d2...)
	if diags.HasError() {
		return d, diags
	}
	if !gitopsKnown(m.ContentHash) {
		m.ContentHash = types.StringValue(tree)
	}
	if m.BaseTreeID.IsUnknown() {
		m.BaseTreeID = m.ContentHash
	}
	if m.Changes.IsUnknown() || m.ChangesSummary.IsUnknown() || m.ChangesByDirectory.IsUnknown() {
		m.Changes, m.ChangesSummary, m.ChangesByDirectory = emptyChanges()
	}
	if m.RenderSummary.IsUnknown() {
		m.RenderSummary = renderSummaryValue(m, d.render)
	}
	return d, diags
}

// push writes want (direct or PR mode) and fills commit_sha and the pull-request attributes. existingOnly
// refuses to create a missing branch (destroy); the Git error is returned for the caller to classify.
func (r *GitopsCommitResource) push(ctx context.Context, m, prior *gitopsCommitModel, want delivery.Desired, expected string, existingOnly bool) (diag.Diagnostics, error) {
	var diags diag.Diagnostics
	req := delivery.DeliverRequest{
		Apply: gitrepo.ApplyRequest{
			RepoURL: m.RepositoryURL.ValueString(), Branch: m.Branch.ValueString(), Path: want.Path,
			Files: want.Files, Tree: want.Built, RootFiles: want.RootFiles, DeleteRootFiles: want.DeleteRootFiles,
			Message: m.CommitMessage.ValueString(), Author: r.author(ctx, m, &diags),
			NoCreate: existingOnly || !m.CreateBranch.ValueBool(), Orphan: true, ExpectedManagedTree: expected,
		},
		PromotedCommitID: m.PromotedCommitID.ValueString(),
		PromotedChanged:  !m.PromotedCommitID.IsNull() && (prior == nil || !prior.PromotedCommitID.Equal(m.PromotedCommitID)),
	}
	prMode := !m.PullRequest.IsNull()
	if prMode {
		var prm gitopsPullRequestModel
		diags.Append(m.PullRequest.As(ctx, &prm, objectAsOptions)...)
		if !prm.Labels.IsNull() && !prm.Labels.IsUnknown() {
			diags.Append(prm.Labels.ElementsAs(ctx, &req.Labels, false)...)
		}
		req.Title, req.Apply.HeadBranch = prm.Title.ValueString(), delivery.HeadBranch(req.Apply.Branch, prm.HeadBranch.ValueString())
	}
	m.ID = types.StringValue(delivery.ID(req.Apply.RepoURL, req.Apply.Path, req.Apply.Branch))
	res, err := delivery.Deliver(ctx, r.client(m), r.data.GitHubClient, req)
	if res.Git.CommitSHA != "" {
		m.CommitSHA = types.StringValue(res.Git.CommitSHA)
	}
	if err != nil {
		diags.Append(deliveryDiag(m.ID.ValueString(), err))
		return diags, err
	}
	switch {
	case !prMode:
		m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = types.Int64Null(), types.StringNull(), types.StringNull()
	case res.PullRequest != nil:
		m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = types.Int64Value(int64(res.PullRequest.Number)), types.StringValue(res.PullRequest.URL), types.StringValue(res.PullRequest.State)
	case prior == nil || prior.PullRequestNumber.IsNull(): // nothing to propose: the base already holds the desired content
		m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = types.Int64Null(), types.StringNull(), types.StringValue(prStateNone)
	default:
		m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = prior.PullRequestNumber, prior.PullRequestURL, prior.PullRequestState
		if m.PullRequestState.IsUnknown() || m.PullRequestState.IsNull() {
			m.PullRequestState = types.StringValue(prStateNone)
		}
	}
	return diags, nil
}

func (r *GitopsCommitResource) headBranch(ctx context.Context, m *gitopsCommitModel) string {
	var prm gitopsPullRequestModel
	if !m.PullRequest.IsNull() && !m.PullRequest.IsUnknown() {
		_ = m.PullRequest.As(ctx, &prm, objectAsOptions)
	}
	return delivery.HeadBranch(m.Branch.ValueString(), prm.HeadBranch.ValueString())
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

// deliveryDiag reports a delivery.Error (or a bare Git error) at its attribute, with what to do.
func deliveryDiag(id string, err error) diag.Diagnostic {
	var de *delivery.Error
	if !errors.As(err, &de) {
		return gitErrorDiag("Cannot deliver the files to Git", id, err)
	}
	detail := fmt.Sprintf("kalypso_gitops_commit %s: %s.", id, de.Err)
	if de.Hint != "" {
		detail += "\n\n" + de.Hint
	}
	if de.Attribute == "" {
		return diag.NewErrorDiagnostic(de.Summary, detail)
	}
	return diag.NewAttributeErrorDiagnostic(path.Root(de.Attribute), de.Summary, detail)
}

// gitErrorDiag turns a gitrepo error into a diagnostic that says what to do.
func gitErrorDiag(summary, id string, err error) diag.Diagnostic {
	hint, attribute := delivery.ErrorHint(err)
	detail := fmt.Sprintf("kalypso_gitops_commit %s: %s.\n\n%s", id, err, hint)
	if attribute == "" {
		return diag.NewErrorDiagnostic(summary, detail)
	}
	return diag.NewAttributeErrorDiagnostic(path.Root(attribute), summary, detail)
}

func gitopsKnown(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }
