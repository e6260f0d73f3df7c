// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// Conversions of kalypso_gitops_commit: its model and the types of its nested attributes, the
// configuration into internal/delivery's inputs (settings, the desired files or the render), and
// delivery's and render's results into attribute values and diagnostics. The resource itself, its schema
// and its Terraform methods, is gitops_commit_resource.go.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

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
	DeletionProtection    types.Bool   `tfsdk:"deletion_protection"`
	Adopt                 types.Bool   `tfsdk:"adopt"`
	AdoptedFrom           types.String `tfsdk:"adopted_from"`
	MaxChanges            types.String `tfsdk:"max_changes"`
	MaxDeletePercent      types.String `tfsdk:"max_delete_percent"`
	Changes               types.Map    `tfsdk:"changes"`
	ChangesSummary        types.String `tfsdk:"changes_summary"`
	ChangesCounts         types.Object `tfsdk:"changes_counts"`
	ChangesByDirectory    types.Map    `tfsdk:"changes_by_directory"`
	ChangesMarkdown       types.String `tfsdk:"changes_markdown"`
	RenderSummary         types.Object `tfsdk:"render_summary"`
	BaseTreeID            types.String `tfsdk:"base_tree_id"`
	ContentHash           types.String `tfsdk:"content_hash"`
	CommitSHA             types.String `tfsdk:"commit_sha"`
	PullRequestNumber     types.String `tfsdk:"pull_request_number"`
	PullRequestURL        types.String `tfsdk:"pull_request_url"`
	PullRequestState      types.String `tfsdk:"pull_request_state"`
	DeletionReference     types.String `tfsdk:"deletion_reference"`
	Rollout               types.Object `tfsdk:"rollout"`
	RolloutStatus         types.List   `tfsdk:"rollout_status"`
	ChangeWindows         types.Object `tfsdk:"change_windows"`
	BreakGlass            types.Object `tfsdk:"break_glass"`
	Rollback              types.Object `tfsdk:"rollback"`
	ReleaseHold           types.Bool   `tfsdk:"release_hold"`
	LastKnownGood         types.Object `tfsdk:"last_known_good"`
}

type gitopsPullRequestModel struct {
	HeadBranch types.String `tfsdk:"head_branch"`
	Title      types.String `tfsdk:"title"`
	Labels     types.List   `tfsdk:"labels"`
}

type gitopsRenderModel struct {
	Environment      types.String   `tfsdk:"environment"`
	Manifests        []types.String `tfsdk:"manifests"`
	ManifestsWO      []types.String `tfsdk:"manifests_wo"`
	ConfigValidation types.String   `tfsdk:"config_validation"`
}

// withoutWriteOnlyManifests nulls render.manifests_wo again before m is a plan or a state: Terraform
// refuses a write-only value read back from the provider.
func (m *gitopsCommitModel) withoutWriteOnlyManifests() {
	if m.Render.IsNull() || m.Render.IsUnknown() {
		return
	}
	attrs := m.Render.Attributes()
	attrs["manifests_wo"] = types.ListNull(types.StringType)
	if v, d := types.ObjectValue(gitopsRenderAttrTypes, attrs); !d.HasError() {
		m.Render = v
	}
}

// withWriteOnlyManifests copies render.manifests_wo from the configuration into m's render: Terraform
// sends a write-only value only in the configuration, never in the plan or state, and the framework nulls
// it again in every response.
func withWriteOnlyManifests(ctx context.Context, cfg tfsdk.Config, m *gitopsCommitModel, diags *diag.Diagnostics) {
	if cfg.Raw.IsNull() || m.Render.IsNull() || m.Render.IsUnknown() {
		return
	}
	var wo types.List
	if diags.Append(cfg.GetAttribute(ctx, path.Root("render").AtName("manifests_wo"), &wo)...); diags.HasError() || wo.IsNull() {
		return
	}
	attrs := m.Render.Attributes()
	attrs["manifests_wo"] = wo
	v, d := types.ObjectValue(gitopsRenderAttrTypes, attrs)
	if diags.Append(d...); !d.HasError() {
		m.Render = v
	}
}

var (
	gitopsAuthorAttrTypes      = map[string]attr.Type{"name": types.StringType, "email": types.StringType}
	gitopsPullRequestAttrTypes = map[string]attr.Type{"head_branch": types.StringType, "title": types.StringType, "labels": types.ListType{ElemType: types.StringType}}
	gitopsRenderAttrTypes      = map[string]attr.Type{"environment": types.StringType, "manifests": types.ListType{ElemType: types.StringType}, "manifests_wo": types.ListType{ElemType: types.StringType}, "config_validation": types.StringType}
	gitopsChangeType           = types.ObjectType{AttrTypes: map[string]attr.Type{"action": types.StringType, "diff": types.StringType}}
	gitopsCountsTypes          = map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType}
	// Counts are strings: a number anywhere in the state makes `terraform plan -refresh-only -detailed-exitcode`
	// exit 2 without any drift (hashicorp/terraform#36403), which breaks drift detection.
	gitopsRenderSummaryTypes = map[string]attr.Type{
		"assignments":                    types.StringType,
		"assignments_by_cluster_type":    types.MapType{ElemType: types.StringType},
		"unscheduled_deployment_targets": types.ListType{ElemType: types.StringType},
		"promoted_commit_id":             types.StringType,
	}
)

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

// countsValue is changes_counts: one count per attribute, so that a policy parses no sentence. The counts
// are decimal strings for the reason given at gitopsRenderSummaryTypes.
func countsValue(c delivery.Counts) types.Object {
	return types.ObjectValueMust(gitopsCountsTypes, map[string]attr.Value{
		"create": types.StringValue(strconv.Itoa(c.Create)), "update": types.StringValue(strconv.Itoa(c.Update)), "delete": types.StringValue(strconv.Itoa(c.Delete)),
	})
}

// setChanges fills changes, changes_summary, changes_counts and changes_by_directory from a change set.
func (m *gitopsCommitModel) setChanges(cs *delivery.Plan) {
	m.Changes, m.ChangesSummary, m.ChangesCounts, m.ChangesByDirectory = changesValue(cs), types.StringValue(cs.Counts.String(cs.Omitted)), countsValue(cs.Counts), byDirectoryValue(cs)
	m.ChangesMarkdown = types.StringValue(delivery.MarkdownSummary{Plan: cs}.Markdown())
}

// changesUnknown marks the change set unknown: an input is not known yet.
func (m *gitopsCommitModel) changesUnknown() {
	m.Changes, m.ChangesSummary, m.ChangesCounts, m.ChangesByDirectory = types.MapUnknown(gitopsChangeType), types.StringUnknown(), types.ObjectUnknown(gitopsCountsTypes), types.MapUnknown(types.StringType)
	m.ChangesMarkdown = types.StringUnknown()
}

// changesFrom copies the change set attributes of another model (the state's).
func (m *gitopsCommitModel) changesFrom(o *gitopsCommitModel) {
	m.Changes, m.ChangesSummary, m.ChangesCounts, m.ChangesByDirectory = o.Changes, o.ChangesSummary, o.ChangesCounts, o.ChangesByDirectory
	m.ChangesMarkdown = o.ChangesMarkdown
}

func renderSummaryValue(m *gitopsCommitModel, sum *delivery.RenderSummary) types.Object {
	if m.Render.IsNull() {
		return types.ObjectNull(gitopsRenderSummaryTypes)
	}
	if sum == nil {
		return types.ObjectUnknown(gitopsRenderSummaryTypes)
	}
	by := map[string]attr.Value{}
	for _, ct := range sum.ClusterTypes {
		by[ct] = types.StringValue(strconv.Itoa(sum.ByClusterType[ct]))
	}
	return types.ObjectValueMust(gitopsRenderSummaryTypes, map[string]attr.Value{
		"assignments":                    types.StringValue(strconv.Itoa(sum.Assignments)),
		"assignments_by_cluster_type":    types.MapValueMust(types.StringType, by),
		"unscheduled_deployment_targets": stringList(sum.Unscheduled),
		"promoted_commit_id":             types.StringValue(sum.PromotedCommit),
	})
}

// deliveryDiag reports a delivery.Error (or a bare Git error) at its attribute, with what to do.
func deliveryDiag(id string, err error) diag.Diagnostic {
	return refusalDiag(delivery.Explain(id, err))
}

// refusalDiag reports a step's refusal at its attribute.
func refusalDiag(rf *delivery.Refusal) diag.Diagnostic {
	return attributeDiag(rf.Attribute, rf.Summary, rf.Detail)
}

// attributeDiag is an error at a root attribute, or at none when attribute is "".
func attributeDiag(attribute, summary, detail string) diag.Diagnostic {
	if attribute == "" {
		return diag.NewErrorDiagnostic(summary, detail)
	}
	return diag.NewAttributeErrorDiagnostic(attributePath(attribute), summary, detail)
}

// attributePath is the path of a dotted attribute name from internal/delivery ("pull_request.head_branch").
func attributePath(attribute string) path.Path {
	names := strings.Split(attribute, ".")
	p := path.Root(names[0])
	for _, n := range names[1:] {
		p = p.AtName(n)
	}
	return p
}

func gitopsKnown(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }

// settings converts m's configuration (values not known yet convert as empty).
func (r *GitopsCommitResource) settings(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) delivery.Resource {
	dir, _ := gitrepo.CleanPath(m.Path.ValueString())
	s := delivery.Resource{
		RepoURL: m.RepositoryURL.ValueString(), Branch: m.Branch.ValueString(), Path: dir, CreateBranch: m.CreateBranch.ValueBool(),
		PromotedCommitID: m.PromotedCommitID.ValueStringPointer(), Message: m.CommitMessage.ValueString(), Render: !m.Render.IsNull(),
		MaxChanges: wholeNumber(m.MaxChanges), MaxDeletePercent: delivery.DefaultMaxDeletePercent,
		Adopt: m.Adopt.ValueBool(), AdoptedFrom: m.AdoptedFrom.ValueString(),
	}
	if !m.MaxDeletePercent.IsNull() {
		s.MaxDeletePercent = wholeNumber(m.MaxDeletePercent)
	}
	if r.data != nil {
		s.Author.Name, s.Author.Email = r.data.AuthorName, r.data.AuthorEmail
	}
	if !m.Author.IsNull() && !m.Author.IsUnknown() {
		var a AuthorModel
		diags.Append(m.Author.As(ctx, &a, objectAsOptions)...)
		if v := a.Name.ValueString(); v != "" {
			s.Author.Name = v
		}
		if v := a.Email.ValueString(); v != "" {
			s.Author.Email = v
		}
	}
	if !m.PullRequest.IsNull() {
		var prm gitopsPullRequestModel
		if !m.PullRequest.IsUnknown() {
			diags.Append(m.PullRequest.As(ctx, &prm, objectAsOptions)...)
		}
		s.PullRequest = &delivery.PullRequest{HeadBranch: prm.HeadBranch.ValueString(), Title: prm.Title.ValueString()}
		// Labels matter only to the apply, where they are known; a plan may not know them yet.
		if l := prm.Labels; !l.IsNull() && !l.IsUnknown() && !slices.ContainsFunc(l.Elements(), attr.Value.IsUnknown) {
			diags.Append(l.ElementsAs(ctx, &s.PullRequest.Labels, false)...)
		}
	}
	return s
}

// desired is what a plan or an apply delivers, built from the configuration.
type desired struct {
	files map[string][]byte
	// summary and cached are the render's summary and the cached render (render mode, unless reused or
	// stored).
	summary *delivery.RenderSummary
	cached  *cachedRender
	known   bool
	// record holds the render's inputs and warnings (render mode); the apply adds the tree it delivered.
	record delivery.RenderRecord
	// reused is the managed tree id that the last apply of the same inputs recorded: the render was skipped
	// and files is nil (delivery.Desired.RecordedTree).
	reused string
	// stored is the desired tree an earlier plan of the same inputs kept in the local render store: the
	// render was skipped and files is nil (delivery.Desired.Built).
	stored *gitrepo.Tree
	// configKey fingerprints the render inputs without the provider build (render mode), for delivery.StampKey.
	configKey string
	// labels are the labels of the rendered cluster types, read when a rollout selects waves by them.
	labels map[string]map[string]string
}

// desiredFiles reads files or renders; known is false when an input is not known yet. With last (render
// mode), inputs equal to those of the last apply are not rendered again: see delivery.RenderRecord. Nor
// are inputs that this process rendered already, or whose tree an earlier plan kept in the local render
// store (delivery.RenderStore).
func (r *GitopsCommitResource) desiredFiles(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics, last *delivery.RenderRecord) desired {
	if !m.Render.IsNull() {
		if m.Render.IsUnknown() {
			return desired{}
		}
		var rm gitopsRenderModel
		diags.Append(m.Render.As(ctx, &rm, objectAsOptions)...)
		manifestsPath, given := path.Root("render").AtName("manifests"), rm.Manifests
		if given == nil && rm.ManifestsWO != nil {
			manifestsPath, given = path.Root("render").AtName("manifests_wo"), rm.ManifestsWO
		}
		manifests, known := manifestStrings(given)
		if diags.HasError() || !known || !gitopsKnown(rm.Environment) || rm.ConfigValidation.IsUnknown() {
			return desired{}
		}
		opts := r.data.RenderOptions(ctx, rm.ConfigValidation.ValueString())
		key := renderCacheKey(rm.Environment.ValueString(), manifests, opts)
		inputs := delivery.RenderInputs(render.BuildID(), key[:])
		configKey := fmt.Sprintf("%x", key[:])
		// A rollout writes only some cluster types' folders, so the tree an apply records is not the render's:
		// it needs the rendered files every time, and keeps no record a later plan could reuse.
		fresh := !m.Rollout.IsNull()
		if fresh {
			last = nil
		}
		if last.Reusable(inputs) {
			diags.Append(engineDiagnostics(last.Warnings, manifestsPath, nil)...)
			return desired{known: true, record: delivery.RenderRecord{Inputs: inputs, Warnings: last.Warnings}, reused: last.Tree, configKey: configKey}
		}
		if !r.data.cachesOrNil().renderCache().has(key) && !fresh {
			if rec, tree, ok := r.storedRender(ctx, inputs); ok {
				diags.Append(engineDiagnostics(rec.Warnings, manifestsPath, nil)...)
				return desired{known: true, record: delivery.RenderRecord{Inputs: inputs, Warnings: rec.Warnings}, summary: rec.Summary, stored: tree, configKey: configKey}
			}
		}
		e := r.data.cachesOrNil().renderCache().render(rm.Environment.ValueString(), manifests, opts)
		diags.Append(engineDiagnostics(e.diags, manifestsPath, map[string]string{render.OptionConfigValidation: "render.config_validation"})...)
		if diags.HasError() {
			return desired{}
		}
		files := e.deliveryFiles()
		if len(files) == 0 {
			// An apply would delete everything under path, and below MassDeletionMinFiles nothing else stops it.
			diags.AddAttributeError(manifestsPath, "The render produced no files", fmt.Sprintf(
				"kalypso_gitops_commit: render.manifests (%d strings) hold no cluster type, so environment %q renders no file, and an apply would "+
					"delete every file under path. Pass the environment's Kalypso objects in render.manifests (empty strings and null elements hold none); "+
					"to remove the files, destroy the resource instead.", len(manifests), rm.Environment.ValueString()))
			return desired{}
		}
		d := desired{files: files, summary: delivery.SummaryOf(e.res), cached: e, known: true, record: delivery.RenderRecord{Inputs: inputs, Warnings: e.diags.Warnings()}, configKey: configKey}
		if fresh {
			d.record.Inputs, d.labels = "", clusterTypeLabels(manifests)
		}
		return d
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

// storedRender loads the record and desired tree of inputs from the local render store, and logs what it
// found (TF_LOG=debug). ok is false when the store does not hold them: the caller renders.
func (r *GitopsCommitResource) storedRender(ctx context.Context, inputs string) (*delivery.RenderRecord, *gitrepo.Tree, bool) {
	store := r.data.RenderStore()
	if store == nil {
		return nil, nil, false
	}
	start := time.Now()
	rec, tree, err := store.Load(inputs)
	fields := map[string]any{"store": store.Dir(), "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		fields["reason"] = err.Error()
		tflog.Debug(ctx, "no stored tree of these render inputs; rendering", fields)
		return nil, nil, false
	}
	fields["tree"], fields["files"] = rec.Tree, tree.Len()
	tflog.Debug(ctx, "desired tree loaded from the local render store instead of rendering", fields)
	return rec, tree, true
}

// keepRender saves what d rendered, with its desired tree t, in the local render store for the next
// process with the same inputs (the apply of this plan). A failure is logged: the next process renders.
func (r *GitopsCommitResource) keepRender(ctx context.Context, d desired, t *gitrepo.Tree) {
	store := r.data.RenderStore()
	if store == nil || d.cached == nil || t == nil || d.record.Inputs == "" {
		return
	}
	start := time.Now()
	rec := d.record
	rec.Tree, rec.Summary = t.ID(), d.summary
	err := store.Save(rec, t)
	fields := map[string]any{"store": store.Dir(), "tree": rec.Tree, "files": t.Len(), "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		fields["error"] = err.Error()
		tflog.Debug(ctx, "cannot keep the desired tree in the local render store; the apply will render again", fields)
		return
	}
	tflog.Debug(ctx, "desired tree kept in the local render store", fields)
}

// wholeNumber is the value of a whole number kept as a decimal string (validators.WholeNumberString has
// checked a configured one); 0 when null or unknown.
func wholeNumber(v types.String) int {
	n, _ := strconv.Atoi(v.ValueString())
	return n
}
