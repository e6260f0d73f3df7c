// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

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
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/validators"
)

var (
	_ resource.Resource                     = &GitopsCommitResource{}
	_ resource.ResourceWithConfigure        = &GitopsCommitResource{}
	_ resource.ResourceWithModifyPlan       = &GitopsCommitResource{}
	_ resource.ResourceWithValidateConfig   = &GitopsCommitResource{}
	_ resource.ResourceWithConfigValidators = &GitopsCommitResource{}
	_ resource.ResourceWithImportState      = &GitopsCommitResource{}
	_ resource.ResourceWithUpgradeState     = &GitopsCommitResource{}
)

const (
	promotedCommitFile   = delivery.PromotedCommitFile
	defaultCommitMessage = delivery.DefaultCommitMessage
)

// GitopsCommitResource is kalypso_gitops_commit: it delivers a file set, or an environment it renders, to
// a path of a Git branch. The change set, guards and Git work live in internal/delivery and internal/gitrepo.
type GitopsCommitResource struct {
	data *ProviderData
}

// NewGitopsCommitResource returns the resource.
func NewGitopsCommitResource() resource.Resource { return &GitopsCommitResource{} }

var (
	sshFingerprint = regexp.MustCompile(`^SHA256:[A-Za-z0-9+/]{43}=?$`)
)

func (r *GitopsCommitResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gitops_commit"
}

func (r *GitopsCommitResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: gitopsCommitSchemaVersion,
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
				Computed:            true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"repository_url": schema.StringAttribute{
				MarkdownDescription: "Repository URL: `file://`, a local path, `https://`, `ssh://` or scp-style `git@host:org/repo.git`. " +
					"`git_url_rewrites` apply. Credentials in the URL are rejected. Another spelling of the same repository (`file://` or a plain path, " +
					"a trailing `/` or `.git` on a remote URL, the host's case, a default port, scp-style or `ssh://`, also once `git_url_rewrites` apply) " +
					"is no change: the plan is empty and the state keeps the spelling it was applied with. Another repository is a move (see `path`).",
				Required: true,
			},
			"branch": schema.StringAttribute{
				MarkdownDescription: "Branch to write (the pull request's base in PR mode). It must exist unless `create_branch` is set; " +
					"the name must follow `git check-ref-format`.",
				Required: true,
			},
			"create_branch": schema.BoolAttribute{
				MarkdownDescription: "Create `branch` when it does not exist, as a new branch (without parent commit) that holds only this resource's files, " +
					"so that what the plan shows does not depend on another branch moving before the apply; to start from another branch's content " +
					"(CI workflows, a README), create the branch with git first. Defaults to `false`: a missing branch is an error at plan time that lists the branches that exist.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Directory of the repository this resource owns. Defaults to `.` (the root). A change of `path`, `branch` or " +
					"`repository_url` is a move, planned as one update: `changes` lists the files at the new location and the deletions at the old one " +
					"(keys prefixed with `<old branch>:`, or `<old repository_url>@<old branch>:`, when the old location is on another branch). On one branch " +
					"of one repository the apply writes both sides in one commit; otherwise it writes the new location first, then removes the old one " +
					"in a second commit. `deletion_protection` (as applied) applies to the old side, and " +
					"`max_delete_percent` to the old files the new location does not write again; with `retain_on_destroy = true` the old files stay.",
				Optional: true, Computed: true, Default: stringdefault.StaticString("."),
			},
			"render": schema.SingleNestedAttribute{
				MarkdownDescription: "Render mode: the resource runs the same engine as `provider::kalypso::environment_render` and delivers " +
					"the environment's tree. No file content passes through Terraform's state. Exactly one of `render` and `files`.",
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"environment": schema.StringAttribute{Required: true, MarkdownDescription: "Environment to render, for example `dev`."},
					"manifests": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						// Not a secret. The one sensitive path of the resource, so that the plan shows the pending change
						// (`changes`) instead of the model: Terraform prints a changed list element with its neighbours in
						// full (a one-key change printed 202 lines instead of 135), and the model resources' own plans show
						// each manifest's diff. A single path has a single order: the state's sensitive_attributes cannot
						// change between two runs, which Terraform's refresh-only plan would report as drift (issue 36).
						Sensitive: true,
						MarkdownDescription: "Kalypso YAML, as for `environment_render`: each string holds one or more `---`-separated documents. " +
							"The plan prints it as `(sensitive value)`: it holds no secret, but the model resources' plans show each manifest's change, " +
							"and `changes` what it does to the files; `terraform show -json` has it. It is the resource's only sensitive attribute, so an " +
							"output of any other attribute needs no `sensitive = true`. Exactly one of `manifests` and `manifests_wo`: a change of `manifests` is " +
							"a change of the resource even when it renders the same files (`~ manifests = (sensitive value)`, and an apply that writes nothing).",
					},
					"manifests_wo": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						// Write-only, not for secrecy: the state keeps what the manifests render to (content_hash), so a
						// change of the model that renders the same files is no change (issue 36 item 6).
						WriteOnly: true,
						MarkdownDescription: "The same Kalypso YAML as `manifests`, as a write-only attribute (Terraform 1.11 or OpenTofu 1.11 and later; use " +
							"`manifests` with older CLIs): neither the plan nor the state keeps it, only what it renders to. A change of the model that does not " +
							"change a file of this environment, such as a registration's new target in another environment, then plans no change at all for " +
							"this resource, where `manifests` shows `~ manifests = (sensitive value)` and an apply that writes nothing.",
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
				Optional: true, ElementType: types.StringType,
			},
			"commit_message": schema.StringAttribute{
				MarkdownDescription: "Commit message. The default, `" + defaultCommitMessage + "`, stands for a message generated from the " +
					"commit's change: the path and branch with the number of files added, modified and removed, the cluster types " +
					"(render mode) or folders touched with their counts, the promoted commit, and the root files written or removed.",
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultCommitMessage),
				Validators: []validator.String{validators.CommitMessage()},
			},
			"author": schema.SingleNestedAttribute{
				MarkdownDescription: "Commit author; defaults to the provider's `author`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Author name; no line break, `<`, `>` or NUL.",
						Validators: []validator.String{validators.CommitIdentity("name")}},
					"email": schema.StringAttribute{Optional: true, MarkdownDescription: "Author email; no line break, `<`, `>` or NUL.",
						Validators: []validator.String{validators.CommitIdentity("email")}},
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
					"must be a GitHub URL. The resource keeps at most one proposal open, and the plan warns before the apply changes one: a change " +
					"reverted in the configuration before its pull request was merged closes it (`branch` already holds what the configuration asks " +
					"for); a move to another branch or repository updates it to propose the removal at the old location, or closes it when nothing " +
					"is left there; a new head branch or removing `pull_request` closes it. A pull request merged between plan and apply refuses the " +
					"apply before anything is written: plan again.",
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"head_branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Head branch; defaults to `kalypso/<branch>`. It may be neither `branch` nor the repository's default branch, and an existing one must have been written by the provider: its head commit carries the trailer `Kalypso-Head-Branch: <name>` that every commit the provider writes there carries, else the plan fails. Each new proposal moves it with a compare-and-swap push, never a force push, so a commit someone else pushed there is never dropped."},
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
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			},
			"adopt": schema.BoolAttribute{
				MarkdownDescription: "Take over a path whose ownership record (`" + delivery.OwnerMarker + "` at the root of `path`) another " +
					"kalypso_gitops_commit wrote, in another configuration, state or workspace. Without it such a plan is refused, naming the record: " +
					"its repository, branch and path, and the commit that wrote it, with its time. With it the plan warns that the resource takes the " +
					"path over and `changes` shows the record rewritten with `adopted_from`; the other resource is refused at its next plan. " +
					"`terraform import` takes a path over too. Unset means `false`; it has no effect while the record is this resource's own.",
				Optional: true,
			},
			"adopted_from": schema.StringAttribute{
				MarkdownDescription: "The commit whose ownership record this resource took over (`adopt = true`, or read back on import); null when it " +
					"claimed the path first. It is part of the record the resource writes, so two resources in two states never hold the same record.",
				Computed: true,
			},
			"deletion_protection": schema.BoolAttribute{
				MarkdownDescription: "Refuse, at plan time, a destroy or a move that would delete files under `path` (a replacement at the same location deletes nothing: the new object takes the files over). Defaults to `true`: " +
					"clusters prune what leaves their folders, so removing a resource (or renaming it in the configuration) would remove every " +
					"workload of the environment. The plan's error names the files per directory and the two ways out: `retain_on_destroy = true` " +
					"keeps the files, or `deletion_protection = false`, applied first, allows the deletion. An unprotected destroy's plan warns " +
					"with the same counts, and its commit says it is a removal.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			},
			"max_changes": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How many files `changes` lists (the first by path), a whole number from 1 to 100000 (`max_changes = 1000` "+
					"or `\"1000\"`; the state keeps it as a string, see `changes_summary`); `changes_summary`, `changes_counts` "+
					"and `changes_by_directory` always count all. Defaults to %d. A larger value shows more files in a plan that changes them, and makes "+
					"that plan and its apply slower.", delivery.DefaultMaxChanges),
				Optional:   true,
				Validators: []validator.String{validators.WholeNumberString(1, 100000)},
			},
			"max_delete_percent": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Refuse a change that deletes more than this share of the files under `path` (when it holds at least %d), "+
					"a whole number from 0 to 100 (kept as a string, see `changes_summary`): "+
					"the signature of a mistyped environment name or selector. The share is also counted from `deletion_reference`, the largest number of files the "+
					"resource has delivered there, so that a series of smaller deletions is refused as one would be. Defaults to %d; `100` disables the guard "+
					"for that apply and resets `deletion_reference` to what it leaves.", delivery.MassDeletionMinFiles, delivery.DefaultMaxDeletePercent),
				Optional:   true,
				Validators: []validator.String{validators.WholeNumberString(0, 100)},
			},
			"changes": schema.MapNestedAttribute{
				MarkdownDescription: "The change set the plan computed against the branch: root-relative path → `action` (`create`, `update`, " +
					"`delete`) and `diff` (a unified diff for an update, the content for a create, the removed content for a delete, each cut with a note past 16 KiB). " +
					"Only changed files appear, at most `max_changes`. It is the pending change: the next plan after an apply shows only what that plan " +
					"changes, never the applied entries leaving the map. (The apply stores what it planned, as Terraform requires; Terraform and OpenTofu read " +
					"every stored object through the provider before they use it, and the provider reads an applied change set, with its counts, as empty. " +
					"So `terraform plan -refresh-only` right after an apply is empty while the branch is unchanged, and `terraform show` of the state keeps " +
					"the last apply's change until the next refresh writes the state.)",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"action": schema.StringAttribute{Computed: true, MarkdownDescription: "`create`, `update` or `delete`."},
					"diff":   schema.StringAttribute{Computed: true, MarkdownDescription: "Unified diff, content of a new file, or content of a deleted file."},
				}},
			},
			"changes_summary": schema.StringAttribute{
				MarkdownDescription: "Counts of the change set, covering every changed file even past `max_changes`, for example " +
					"`2 to create, 1 to update, 0 to delete`. Counts are strings here and below: a number in the state makes " +
					"`terraform plan -refresh-only -detailed-exitcode` report drift that is not there (hashicorp/terraform#36403).",
				Computed: true,
			},
			"changes_counts": schema.SingleNestedAttribute{
				MarkdownDescription: "The counts of `changes_summary`, one attribute each, `{ create, update, delete }`, covering every changed file even past " +
					"`max_changes`, so that a policy (OPA, Sentinel) reads them from `terraform show -json` without parsing a sentence " +
					"(`to_number(changes_counts.delete)` in Rego). Each is a decimal string, not a number: with a number in the state, Terraform 1.11's " +
					"`terraform plan -refresh-only -detailed-exitcode` exits 2 right after every apply although it prints \"No changes\" " +
					"(OpenTofu exits 0), which would make drift detection alert on every workspace.",
				Computed: true,
				Attributes: map[string]schema.Attribute{
					"create": schema.StringAttribute{Computed: true, MarkdownDescription: "Files to create, for example `\"3\"`."},
					"update": schema.StringAttribute{Computed: true, MarkdownDescription: "Files to update."},
					"delete": schema.StringAttribute{Computed: true, MarkdownDescription: "Files to delete."},
				},
			},
			"changes_markdown": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The pending change as Markdown, for a pull-request comment (tfcmt, Atlantis, `gh pr comment --body-file`): "+
					"the counts, per cluster type and per workload (per deployment-target folder in files mode), then the deletions with their removed content, "+
					"then the creates and updates with their content or diff, each file in a collapsed block. At most %d characters (GitHub caps a comment at "+
					"65,535): what does not fit is cut at a whole file, and the last line says what was cut. In pull-request mode it is the body of the pull "+
					"request. Read it from the plan: `terraform show -json tfplan | jq -r '.resource_changes[] | select(.type == \"kalypso_gitops_commit\") | "+
					".change.after.changes_markdown'`. Like `changes`, it is the pending change: after an apply it reads `%s`.", delivery.MarkdownLimit, strings.TrimSpace(strings.ReplaceAll(delivery.NoChangeMarkdown, "\n\n", " ")),
				),
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
			"change_windows":  changeWindowsSchema(),
			"break_glass":     breakGlassSchema(),
			"rollback":        rollbackSchema(),
			"release_hold":    releaseHoldSchema(),
			"last_known_good": lastKnownGoodSchema(),
			"deletion_reference": schema.StringAttribute{
				MarkdownDescription: "How many files under `path` the mass-deletion guard (`max_delete_percent`) measures a change against: the largest number " +
					"this resource has delivered there, so that a series of small deletions (20, 10, 5, 0 files) is refused as one large one would be. " +
					"An apply with `max_delete_percent = 100` resets it to what that apply leaves, and a move starts it afresh at the new location. " +
					"Null after an import (no delivery yet) and in states written before it existed, until the next apply that changes files. " +
					"A decimal string, not a number: a number in the state makes `terraform plan -refresh-only -detailed-exitcode` report drift that is not there (hashicorp/terraform#36403).",
				Computed: true,
			},
			"pull_request_number": schema.StringAttribute{Computed: true, MarkdownDescription: "Pull request number in PR mode, in decimal (`\"42\"`): " +
				"a string, as the counts are (see `changes_summary`)."},
			"pull_request_url": schema.StringAttribute{Computed: true, MarkdownDescription: "Pull request URL in PR mode."},
			"pull_request_state": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`open`, `merged` or `closed` in PR mode (`none` when there was nothing to propose); null otherwise.",
			},
			"rollout":        gitopsRolloutAttribute(),
			"rollout_status": gitopsRolloutStatusAttribute(),
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
	validateWindows(ctx, &cfg, &resp.Diagnostics)
	for _, p := range delivery.CheckSettings(settings) {
		resp.Diagnostics.AddAttributeError(attributePath(p.Attribute), p.Summary, "kalypso_gitops_commit: "+p.Detail)
	}
	if !cfg.Render.IsNull() && !cfg.Render.IsUnknown() {
		attrs := cfg.Render.Attributes() // a wholly unknown list is given, not null
		if attrs["manifests"].IsNull() == attrs["manifests_wo"].IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("render"), "Exactly one of render.manifests and render.manifests_wo",
				"kalypso_gitops_commit: set render.manifests_wo (Terraform or OpenTofu 1.11 and later: a model change that renders the same files "+
					"is no change) or render.manifests (any CLI), not both and not neither.")
		}
	}
	if !cfg.Files.IsNull() && !cfg.Files.IsUnknown() {
		var problems []delivery.FileProblem
		names := make([]string, 0, len(cfg.Files.Elements()))
		for name, v := range cfg.Files.Elements() {
			if names = append(names, name); v.IsNull() {
				problems = append(problems, delivery.NullContent(name))
			}
		}
		for _, p := range append(problems, delivery.CheckFileNames(names)...) {
			resp.Diagnostics.AddAttributeError(path.Root("files").AtMapKey(p.Name), p.Summary, "kalypso_gitops_commit: "+p.Detail)
		}
	}
}

// renderRecordKey is the private-state key of the delivery.RenderRecord of the last apply;
// plannedRenderKey, in the planned private state, holds the render inputs and desired tree of the plan.
const (
	renderRecordKey  = "render"
	plannedRenderKey = "planned_render"
)

// ModifyPlan converts the plan and the state into a delivery.Planning, runs the engine's steps
// (delivery.PlanSteps, or delivery.DestroySteps) and reports what they decided.
func (r *GitopsCommitResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	defer phaseLog(ctx, "plan modified", time.Now(), nil)
	var plan, state *gitopsCommitModel
	if !req.Plan.Raw.IsNull() {
		plan = &gitopsCommitModel{}
		resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
		withWriteOnlyManifests(ctx, req.Config, plan, &resp.Diagnostics)
		ctx = gitopsLogContext(ctx, plan)
	}
	if !req.State.Raw.IsNull() {
		state = &gitopsCommitModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	steps, rend := delivery.DestroySteps(), &planRenderer{r: r, m: plan}
	if plan != nil {
		steps, rend.last = delivery.PlanSteps(), r.lastRender(ctx, req.Private, state)
	}
	p := r.planning(ctx, plan, state, rend, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.Append(resp.Private.SetKey(ctx, takeOverKey, nil)...); resp.Diagnostics.HasError() {
		return
	}
	p.Replacing = replacedAttributes(resp.RequiresReplace)
	privateFacts(ctx, req.Private, p)
	err := delivery.RunPlan(ctx, p, steps)
	for _, n := range p.Warnings {
		resp.Diagnostics.AddWarning(n.Summary, n.Detail)
	}
	if resp.Diagnostics.Append(rend.diags...); err != nil && !errors.Is(err, delivery.ErrReported) {
		resp.Diagnostics.Append(refusalDiag(delivery.Explain(p.ID, err)))
	}
	if plan == nil || resp.Diagnostics.HasError() {
		return
	}
	r.reportPlan(ctx, p, plan, state, req.State.Raw, rend, resp)
}

func (r *GitopsCommitResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, req.Config, nil, &resp.State, resp.Private, &resp.Diagnostics, nil)
	if resp.Diagnostics.Append(resp.Private.SetKey(ctx, takeOverKey, nil)...); resp.Diagnostics.HasError() {
		return
	}
	var m gitopsCommitModel
	if resp.Diagnostics.Append(resp.State.Get(ctx, &m)...); !resp.Diagnostics.HasError() && r.data != nil {
		// With create_before_destroy, the replaced object's destroy comes next in this process: it finds
		// its location taken over (delivery.Locations.WasApplied).
		s := r.settings(ctx, &m, &resp.Diagnostics)
		r.data.Locations.Applied(r.client(&m).RepositoryKey(s.RepoURL), s.Branch, s.Path)
		delivery.DropTakeOver(r.data.RenderStore(), m.ID.ValueString(), s)
	}
}

func (r *GitopsCommitResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	b, _ := req.Private.GetKey(ctx, moveKey)
	rec := delivery.ParseMoveRecord(b)
	vacated := r.apply(ctx, req.Plan, req.Config, &req.State, &resp.State, resp.Private, &resp.Diagnostics, rec)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, moveKey, nil)...)
	if rec != nil && !vacated {
		// The new location is written, on another branch: now the old one, as the plan listed it.
		r.removeOld(ctx, req.State, req.Plan, rec, &resp.Diagnostics)
	}
}

type privateSetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func (r *GitopsCommitResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state gitopsCommitModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = gitopsLogContext(ctx, &state)
	s := r.settings(ctx, &state, &resp.Diagnostics)
	req2 := s.RefreshRequest(wholeNumber(state.PullRequestNumber))
	// With a rollout the branch holds the configured files and promoted commit only once the last wave is
	// written; until then its other folders differ on purpose, and rollout_status says so. The refresh reads
	// the tree (content_hash) but keeps the configured files and promoted commit.
	rolling := !state.Rollout.IsNull()
	if req2.Files = state.Render.IsNull() && !rolling; req2.Files && !state.Files.IsNull() && !state.Files.IsUnknown() {
		resp.Diagnostics.Append(state.Files.ElementsAs(ctx, &req2.Known, false)...)
	}
	start := time.Now()
	ins, err := delivery.Refresh(ctx, r.client(&state), r.data.GitHubClient, req2)
	phaseLog(ctx, "branch refreshed", start, err)
	if err != nil {
		resp.Diagnostics.Append(deliveryDiag(state.ID.ValueString(), err))
		return
	}
	if ins.Gone != nil {
		summary, detail := delivery.GoneWarning(ins.Gone)
		resp.Diagnostics.AddWarning(summary, fmt.Sprintf("kalypso_gitops_commit %s: %s. %s", state.ID.ValueString(), ins.Gone, detail))
		resp.State.RemoveResource(ctx)
		return
	}
	if pr := ins.PullRequest; pr != nil {
		state.PullRequestState = types.StringValue(pr.State)
		if pr.URL != "" {
			state.PullRequestURL = types.StringValue(pr.URL)
		}
	}
	if req2.Files {
		if rel, under := s.PromotedUnderPath(); under && s.PromotedCommitID != nil {
			delete(ins.Files, rel) // promoted_commit_id writes it, not files
		}
		fv, diags := types.MapValueFrom(ctx, types.StringType, ins.Files)
		resp.Diagnostics.Append(diags...)
		state.Files = fv
	}
	rec := ins.Update(delivery.Recorded{ContentHash: state.ContentHash.ValueString(), CommitSHA: state.CommitSHA.ValueString(), PromotedCommitID: state.PromotedCommitID.ValueStringPointer()})
	// The change set of the last apply (changes, its counts, base_tree_id) is a record of that apply, not
	// something the branch holds: refresh leaves it, so that a refresh-only plan right after an apply is
	// empty (drift detection runs exactly that). An out-of-band edit shows in content_hash and commit_sha;
	// the next plan computes the change set that repairs it.
	state.ContentHash, state.CommitSHA = types.StringValue(rec.ContentHash), types.StringValue(rec.CommitSHA)
	if !gitopsKnown(state.BaseTreeID) { // imported: nothing was applied, the branch is the base of the next plan
		state.BaseTreeID = state.ContentHash
		// Import takes the path over as its ownership record stands.
		if from := delivery.AdoptedFrom(ins.RootFiles[delivery.MarkerPath(s.Path)]); from != "" {
			state.AdoptedFrom = types.StringValue(from)
		}
	}
	if !rolling {
		state.PromotedCommitID = types.StringPointerValue(rec.PromotedCommitID)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// deletionProtected is deletion_protection as the state records it; a state written before the
// attribute existed (null) is protected, as the default is.
func deletionProtected(m gitopsCommitModel) bool {
	return m.DeletionProtection.IsNull() || m.DeletionProtection.ValueBool()
}

// replacedAttributes names the attributes that force a replacement: "repository_url, path".
func replacedAttributes(paths path.Paths) string {
	names := make([]string, 0, len(paths))
	for _, p := range paths {
		names = append(names, p.String())
	}
	return strings.Join(names, ", ")
}

func (r *GitopsCommitResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state gitopsCommitModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = gitopsLogContext(ctx, &state)
	if state.RetainOnDestroy.ValueBool() {
		tflog.Info(ctx, "nothing to write: retain_on_destroy keeps the files on the branch")
		return
	}
	s := r.settings(ctx, &state, &resp.Diagnostics)
	if r.takenOver(ctx, req.Private, s, &state) {
		tflog.Info(ctx, "nothing to write: the object that replaces this one takes the files under path over")
		if r.data != nil {
			r.data.Locations.HandOver(r.client(&state).RepositoryKey(s.RepoURL), s.Branch, s.Path)
		}
		return
	}
	if deletionProtected(state) {
		// The plan refused a protected destroy; a replacement forced with -replace reaches here unplanned.
		m, err := delivery.PlanRemoval(ctx, r.client(&state), s)
		if err == nil && !m.Gone && m.Files > 0 {
			err = delivery.DecideDestroy(m, "destroying the resource", false, true).Refusal
		}
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection", fmt.Sprintf("kalypso_gitops_commit %s: %s.", state.ID.ValueString(), err))
			return
		}
	}
	prior := state
	diags, err := r.push(ctx, &state, &prior, s.RemovalRequest())
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
	// The zero types.String, types.Int64 and types.Bool are null; null objects and maps need their types.
	imported := &gitopsCommitModel{
		ID: types.StringValue(delivery.ID(repoURL, dir, branch)), RepositoryURL: types.StringValue(repoURL), Branch: types.StringValue(branch), Path: types.StringValue(dir),
		CreateBranch: types.BoolValue(false), RetainOnDestroy: types.BoolValue(false), DeletionProtection: types.BoolValue(true), CommitMessage: types.StringValue(delivery.DefaultCommitMessage),
		Adopt:  types.BoolNull(),
		Files:  types.MapValueMust(types.StringType, map[string]attr.Value{}),
		Render: types.ObjectNull(gitopsRenderAttrTypes), Author: types.ObjectNull(gitopsAuthorAttrTypes),
		PullRequest: types.ObjectNull(gitopsPullRequestAttrTypes), RenderSummary: types.ObjectNull(gitopsRenderSummaryTypes),
		Rollout: types.ObjectNull(gitopsRolloutAttrTypes), RolloutStatus: types.ListNull(types.ObjectType{AttrTypes: gitopsWaveStatusTypes}),
		ChangeWindows: types.ObjectNull(gitopsChangeWindowsTypes), BreakGlass: types.ObjectNull(gitopsBreakGlassTypes),
		Rollback: types.ObjectNull(gitopsRollbackTypes), LastKnownGood: types.ObjectNull(gitopsLastKnownGoodTypes),
	}
	imported.setChanges(&delivery.Plan{})
	resp.Diagnostics.Append(resp.State.Set(ctx, imported)...)
}

// apply delivers the planned change set (priorState is nil on create), fills the computed attributes, and
// records the render in private state. move is the old side of a planned move (nil for none): when it is on
// the same branch, the same commit empties it, and vacated is true. The decisions are the engine's apply
// steps (delivery.ApplySteps); this converts, runs them, delivers and reports.
func (r *GitopsCommitResource) apply(ctx context.Context, planned tfsdk.Plan, config tfsdk.Config, priorState, out *tfsdk.State, private privateSetter, diags *diag.Diagnostics,
	move *delivery.MoveRecord) (vacated bool) {
	defer phaseLog(ctx, "applied", time.Now(), nil)
	var m gitopsCommitModel
	var prior *gitopsCommitModel
	diags.Append(planned.Get(ctx, &m)...)
	withWriteOnlyManifests(ctx, config, &m, diags)
	if priorState != nil {
		prior = &gitopsCommitModel{}
		diags.Append(priorState.Get(ctx, prior)...)
	}
	if diags.HasError() {
		return false
	}
	ctx = gitopsLogContext(ctx, &m)
	d, rolledBack := r.applyDesired(ctx, &m, private, diags)
	if diags.HasError() {
		return false
	}
	a := r.applying(ctx, &m, prior, d, rolledBack, private, move, diags)
	if diags.HasError() {
		return false
	}
	if err := delivery.RunApply(ctx, a, delivery.ApplySteps()); err != nil {
		diags.Append(deliveryDiag(m.ID.ValueString(), err))
		return false
	}
	if a.Held {
		tflog.Info(ctx, "nothing to write: a rollback holds the tree the configuration renders")
		m.withoutWriteOnlyManifests()
		diags.Append(out.Set(ctx, &m)...)
		return false
	}
	pushed, _ := r.push(ctx, &m, prior, a.Request)
	if diags.Append(pushed...); diags.HasError() {
		return a.Vacated
	}
	applied := a.Delivered(d.configKey)
	m.appliedValues(applied, d.summary)
	d.record.Tree = applied.ContentHash
	r.recordBreakGlass(ctx, a.BreakGlass, applied.ContentHash, private, diags)
	r.recordHold(ctx, a.HoldAfter(r.data.Now()), private, diags)
	a.Store.DropStamp(applied.StampKey)
	diags.Append(private.SetKey(ctx, renderRecordKey, d.record.Marshal())...)
	diags.Append(private.SetKey(ctx, plannedRenderKey, nil)...)
	diags.Append(private.SetKey(ctx, autoRollbackKey, nil)...)
	m.withoutWriteOnlyManifests()
	diags.Append(out.Set(ctx, &m)...)
	return a.Vacated
}

// applying converts an apply of m (prior: the state, nil on create) into the engine's apply steps' input.
func (r *GitopsCommitResource) applying(ctx context.Context, m, prior *gitopsCommitModel, d desired, rolledBack *delivery.RolledBack, private privateGetter,
	move *delivery.MoveRecord, diags *diag.Diagnostics) *delivery.Applying {
	holdRecord, _ := private.GetKey(ctx, holdKey)
	a := &delivery.Applying{
		ID: m.ID.ValueString(), Resource: r.settings(ctx, m, diags), Git: r.client(m), Store: r.data.RenderStore(),
		Known: d.known, Files: d.files, Built: d.cached.builtTree(), RolledBack: rolledBack,
		Rolling: !m.Rollout.IsNull(),
		Planned: delivery.Planned{ContentHash: m.ContentHash.ValueString(), BaseTree: m.BaseTreeID.ValueString(), CommitKnown: gitopsKnown(m.CommitSHA)},
		Hold:    delivery.ParseHold(holdRecord), ReleaseHold: m.ReleaseHold.ValueBool(), RollbackSet: !m.Rollback.IsNull(),
		Window: windowConfig(ctx, m, diags), BreakGlassUsed: breakGlassUsed(ctx, private), Now: r.data.Now(),
		Move: move,
	}
	a.Planned.PullRequest = a.Resource.PullRequest != nil
	if d.stored != nil {
		a.Built = d.stored
	}
	if a.Rolling && d.known {
		a.Waves = applyWaves(ctx, m, rolledBack, diags)
	}
	if gitopsKnown(m.ChangesMarkdown) {
		a.Markdown = m.ChangesMarkdown.ValueString()
	}
	if prior != nil {
		from := r.settings(ctx, prior, diags)
		a.Prior = &delivery.AppliedBefore{Resource: from, CommitSHA: prior.CommitSHA.ValueString(), ContentHash: prior.ContentHash.ValueString(),
			DeletionReference: prior.DeletionReference.ValueString(), PromotedCommitID: prior.PromotedCommitID.ValueStringPointer(),
			Proposal: from.OpenProposal(wholeNumber(prior.PullRequestNumber), prior.PullRequestState.ValueString())}
	}
	return a
}

// appliedValues fills what the plan left unknown once the apply delivered.
func (m *gitopsCommitModel) appliedValues(v delivery.AppliedValues, summary *delivery.RenderSummary) {
	if m.DeletionReference.IsUnknown() { // the plan did not know the change set
		m.DeletionReference = types.StringValue(strconv.Itoa(v.DeletionReference))
	}
	m.ContentHash = types.StringValue(v.ContentHash)
	if m.BaseTreeID.IsUnknown() {
		m.BaseTreeID = types.StringValue(v.BaseTree)
	}
	if m.Changes.IsUnknown() || m.ChangesSummary.IsUnknown() || m.ChangesCounts.IsUnknown() || m.ChangesByDirectory.IsUnknown() || m.ChangesMarkdown.IsUnknown() {
		m.setChanges(&delivery.Plan{})
	}
	if m.RenderSummary.IsUnknown() {
		m.RenderSummary = renderSummaryValue(m, summary)
	}
	if m.LastKnownGood.IsUnknown() { // the plan could not tell (a create): the next plan reads it
		m.LastKnownGood = types.ObjectNull(gitopsLastKnownGoodTypes)
	}
}

// push performs req (direct or PR mode) and fills commit_sha and the pull-request attributes of m. The
// Git error is returned for the caller to classify.
func (r *GitopsCommitResource) push(ctx context.Context, m, prior *gitopsCommitModel, req delivery.DeliverRequest) (diag.Diagnostics, error) {
	m.ID = types.StringValue(delivery.ID(req.Apply.RepoURL, req.Apply.Path, req.Apply.Branch))
	start := time.Now()
	res, err := delivery.Deliver(ctx, r.client(m), r.data.GitHubClient, req)
	phaseLog(ctx, "delivered", start, err)
	if res.Git.CommitSHA != "" {
		m.CommitSHA = types.StringValue(res.Git.CommitSHA)
	}
	if err != nil {
		return diag.Diagnostics{deliveryDiag(m.ID.ValueString(), err)}, err
	}
	m.PullRequestNumber, m.PullRequestURL, m.PullRequestState = types.StringNull(), types.StringNull(), types.StringNull()
	if !m.PullRequest.IsNull() {
		var before delivery.PullRequestRecord
		if prior != nil {
			before = delivery.PullRequestRecord{Number: wholeNumber(prior.PullRequestNumber), URL: prior.PullRequestURL.ValueString(), State: prior.PullRequestState.ValueString()}
		}
		pr := delivery.PullRequestAfter(res.PullRequest, res.Closed, before)
		if pr.Number != 0 && pr.Number == before.Number {
			tflog.Info(ctx, "pull request reused", map[string]any{"pull_request_number": pr.Number})
		}
		if m.PullRequestState = types.StringValue(pr.State); pr.Number != 0 {
			m.PullRequestNumber, m.PullRequestURL = types.StringValue(strconv.Itoa(pr.Number)), types.StringValue(pr.URL)
		}
	}
	return nil, nil
}

func (r *GitopsCommitResource) client(m *gitopsCommitModel) *gitrepo.Client {
	return r.data.GitClient(WithSSHHostKeyFingerprint(m.SSHHostKeyFingerprint.ValueString()))
}
