// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// change_windows and break_glass of kalypso_gitops_commit: their schema, their conversion into
// internal/windows and internal/delivery, and the step's diagnostics at plan and at apply. The decision
// itself is delivery.CheckWindow over windows.Calendar.

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/windows"
)

// breakGlassKey is the private-state key of the delivery.BreakGlassRecord of the last apply that a
// break-glass let through.
const breakGlassKey = "break_glass"

type gitopsChangeWindowsModel struct {
	TimeZone             types.String        `tfsdk:"time_zone"`
	Allow                []gitopsWindowModel `tfsdk:"allow"`
	Deny                 []gitopsWindowModel `tfsdk:"deny"`
	RollbackDuringFreeze types.Bool          `tfsdk:"rollback_during_freeze"`
}

type gitopsWindowModel struct {
	Schedule    types.String `tfsdk:"schedule"`
	Duration    types.String `tfsdk:"duration"`
	Description types.String `tfsdk:"description"`
}

type gitopsBreakGlassModel struct {
	Reason types.String `tfsdk:"reason"`
	Ticket types.String `tfsdk:"ticket"`
}

var (
	gitopsWindowType         = types.ObjectType{AttrTypes: map[string]attr.Type{"schedule": types.StringType, "duration": types.StringType, "description": types.StringType}}
	gitopsChangeWindowsTypes = map[string]attr.Type{"time_zone": types.StringType, "allow": types.ListType{ElemType: gitopsWindowType}, "deny": types.ListType{ElemType: gitopsWindowType},
		"rollback_during_freeze": types.BoolType}
	gitopsBreakGlassTypes = map[string]attr.Type{"reason": types.StringType, "ticket": types.StringType}
)

func windowListSchema(kind, what string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: what,
		Optional:            true,
		Validators:          []validator.List{listvalidator.SizeAtMost(100)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"schedule": schema.StringAttribute{Required: true, MarkdownDescription: "When the " + kind + " window opens: a 5-field cron expression " +
				"(minute hour day-of-month month day-of-week, for example `0 8 * * 1-5`; names, ranges, lists, steps and `@daily`-style descriptors work) " +
				"read in `time_zone`."},
			"duration": schema.StringAttribute{Required: true, MarkdownDescription: "How long it stays open, as elapsed time: `9h`, `90m`, `336h` " +
				"(days are written in hours), at most 366 days."},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: "What the window is, for example `year-end freeze`; " +
				"the error of a refused change names it."},
		}},
	}
}

// changeWindowsSchema is the change_windows attribute.
func changeWindowsSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "When changes may be written. A change (a plan that writes anything) is allowed while an `allow` window is open " +
			"(any time, without `allow` windows) and no `deny` window is: a deny window wins. Outside, the plan fails naming the window " +
			"that blocks and when the next one opens, and nothing is written. The apply checks again, so a plan made at 16:59 inside a window " +
			"cannot be applied at 17:01. A plan that writes nothing is never blocked, and neither is a destroy (`deletion_protection` guards that). " +
			"`break_glass` lets one change through. A start that a DST change skips opens at the same distance past the change " +
			"(02:30 on the spring-forward night opens at 03:30 summer time); a start in an hour that a DST change repeats opens once, at its first occurrence. " +
			"See the guide \"Recovery and change windows\".",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"time_zone": schema.StringAttribute{Optional: true, MarkdownDescription: "IANA time zone the schedules are read in, for example " +
				"`Europe/Berlin`; defaults to `UTC`. The provider carries its own time zone database, so every machine decides alike; " +
				"`Local` is refused for the same reason."},
			"allow": windowListSchema("allow", "Windows in which changes may be written (at most 100)."),
			"deny":  windowListSchema("deny", "Windows in which no change may be written, such as a freeze (at most 100); a deny window wins over an allow window."),
			"rollback_during_freeze": schema.BoolAttribute{Optional: true, MarkdownDescription: "Let a rollback (`rollback`, or the one " +
				"`rollout.on_failure = \"rollback\"` proposes) through an open deny window, with a warning; outside every allow window it waits like any change. Defaults to `false`."},
		},
	}
}

// breakGlassSchema is the break_glass attribute.
func breakGlassSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Lets one change through a closed change window, on record. The plan warns that it is used, `terraform show -json` " +
			"carries it for a policy (the example OPA policy denies a break-glass without a ticket), and the commit carries the trailers `" +
			delivery.BreakGlassTrailer + ": <reason>` and `" + delivery.TicketTrailer + ": <ticket>`. It lets one change through: once applied, a " +
			"different change in a closed window needs another `reason` or `ticket`. While the window is open it does nothing.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"reason": schema.StringAttribute{Required: true, MarkdownDescription: "Why the change must pass now; one line, at most 500 bytes."},
			"ticket": schema.StringAttribute{Optional: true, MarkdownDescription: "The incident or change ticket, for example `INC-4711`; one line, at most 500 bytes."},
		},
	}
}

// validateWindows reports what ValidateConfig can tell of change_windows and break_glass.
func validateWindows(ctx context.Context, cfg *gitopsCommitModel, diags *diag.Diagnostics) {
	if cal, known := changeWindowsSpec(ctx, cfg, diags); known && cal != nil {
		_, problems := windows.Parse(*cal)
		for _, p := range problems {
			diags.AddAttributeError(windowProblemPath(p.Attribute), "Invalid change window", "kalypso_gitops_commit: change_windows."+p.Attribute+": "+p.Detail+".")
		}
	}
	if bg, known := breakGlass(ctx, cfg, diags); known && bg != nil {
		for _, f := range []struct {
			name, value string
			required    bool
		}{{"reason", bg.Reason, true}, {"ticket", bg.Ticket, false}} {
			if err := delivery.CheckBreakGlassText(f.name, f.value, f.required); err != nil {
				diags.AddAttributeError(path.Root("break_glass").AtName(f.name), "Invalid break-glass", "kalypso_gitops_commit: "+err.Error()+".")
			}
		}
	}
}

// windowProblemPath is the path of a windows.Problem's attribute ("allow[0].schedule") under change_windows.
func windowProblemPath(attribute string) path.Path {
	p := path.Root("change_windows")
	for _, part := range strings.Split(attribute, ".") {
		name, index, indexed := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		p = p.AtName(name)
		if i, err := strconv.Atoi(index); indexed && err == nil {
			p = p.AtListIndex(i)
		}
	}
	return p
}

// changeWindowsSpec converts change_windows; known is false while a part of it is unknown, and the spec
// is nil when it is not configured.
func changeWindowsSpec(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) (*windows.Spec, bool) {
	if m.ChangeWindows.IsNull() {
		return nil, true
	}
	if !fullyKnown(m.ChangeWindows) {
		return nil, false
	}
	var cw gitopsChangeWindowsModel
	if diags.Append(m.ChangeWindows.As(ctx, &cw, objectAsOptions)...); diags.HasError() {
		return nil, false
	}
	spec := &windows.Spec{TimeZone: cw.TimeZone.ValueString(), RollbackDuringFreeze: cw.RollbackDuringFreeze.ValueBool()}
	for _, w := range cw.Allow {
		spec.Allow = append(spec.Allow, windows.RuleSpec{Schedule: w.Schedule.ValueString(), Duration: w.Duration.ValueString(), Description: w.Description.ValueString()})
	}
	for _, w := range cw.Deny {
		spec.Deny = append(spec.Deny, windows.RuleSpec{Schedule: w.Schedule.ValueString(), Duration: w.Duration.ValueString(), Description: w.Description.ValueString()})
	}
	return spec, true
}

// breakGlass converts break_glass; known is false while it is unknown, and nil means not configured.
func breakGlass(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) (*delivery.BreakGlass, bool) {
	if m.BreakGlass.IsNull() {
		return nil, true
	}
	if !fullyKnown(m.BreakGlass) {
		return nil, false
	}
	var bg gitopsBreakGlassModel
	if diags.Append(m.BreakGlass.As(ctx, &bg, objectAsOptions)...); diags.HasError() {
		return nil, false
	}
	return &delivery.BreakGlass{Reason: bg.Reason.ValueString(), Ticket: bg.Ticket.ValueString()}, true
}

// fullyKnown reports whether v and everything inside it is known.
func fullyKnown(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	switch x := v.(type) {
	case types.Object:
		for _, e := range x.Attributes() {
			if !fullyKnown(e) {
				return false
			}
		}
	case types.List:
		for _, e := range x.Elements() {
			if !fullyKnown(e) {
				return false
			}
		}
	}
	return true
}

// windowConfig converts change_windows and break_glass for the engine; Known is false while either is
// unknown, or when change_windows is invalid (ValidateConfig reported it).
func windowConfig(ctx context.Context, m *gitopsCommitModel, diags *diag.Diagnostics) delivery.WindowConfig {
	spec, known := changeWindowsSpec(ctx, m, diags)
	if !known {
		return delivery.WindowConfig{}
	}
	bg, known := breakGlass(ctx, m, diags)
	if !known {
		return delivery.WindowConfig{}
	}
	w := delivery.WindowConfig{Known: true, BreakGlass: bg}
	if spec != nil {
		var problems []windows.Problem
		if w.Calendar, problems = windows.Parse(*spec); len(problems) > 0 {
			return delivery.WindowConfig{}
		}
	}
	return w
}

// breakGlassUsed is the record of the last apply that a break-glass let through (nil for none).
func breakGlassUsed(ctx context.Context, private privateGetter) *delivery.BreakGlassRecord {
	b, _ := private.GetKey(ctx, breakGlassKey)
	return delivery.ParseBreakGlassRecord(b)
}

// recordBreakGlass keeps, after an apply that bg let through, which tree it let through and when.
func (r *GitopsCommitResource) recordBreakGlass(ctx context.Context, bg *delivery.BreakGlass, tree string, private privateSetter, diags *diag.Diagnostics) {
	if bg == nil {
		return
	}
	rec := delivery.BreakGlassRecord{BreakGlass: *bg, Tree: tree, At: r.data.Now().UTC().Format(time.RFC3339)}
	diags.Append(private.SetKey(ctx, breakGlassKey, rec.Marshal())...)
}
