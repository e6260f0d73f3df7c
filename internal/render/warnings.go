// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// Warnings about a model that renders but probably not as meant. A render cannot tell a typo from an
// intention, so these never stop it; they are what the data source shows as plan warnings and what
// the function returns as `warnings`, so a `check` block can assert that there are none.
const (
	SummaryEmptyEnvironment = "Environment has no deployment targets"
	SummaryPolicyIdle       = "Scheduling policy selects nothing"
)

// environmentWarnings warns when the rendered environment has no deployment target while Workloads
// have targets in other environments: the signature of a mistyped environment ("Dev" for "dev").
func environmentWarnings(environment string, set *model.Set, targets []*DeploymentTarget) model.Diagnostics {
	if len(targets) > 0 {
		return nil
	}
	envs := map[string]bool{}
	for _, w := range set.Workloads {
		for _, t := range w.Spec.DeploymentTargets {
			envs[t.Environment] = true
		}
	}
	if len(envs) == 0 {
		return nil
	}
	names := make([]string, 0, len(envs))
	var near []string
	for e := range envs {
		names = append(names, e)
		if strings.EqualFold(strings.TrimSpace(e), strings.TrimSpace(environment)) {
			near = append(near, e)
		}
	}
	sort.Strings(names)
	sort.Strings(near)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	detail := fmt.Sprintf("no Workload has a deployment target in environment %q, so nothing is scheduled and every cluster type folder stays empty. "+
		"The environments that have deployment targets are: %s.", environment, abbreviate(quoted, 20))
	if len(near) > 0 {
		detail += fmt.Sprintf(" Environment names are case-sensitive: did you mean %q?", near[0])
	} else {
		detail += " Check `environment`, or the `environment` of the Workloads' deployment targets."
	}
	return model.Diagnostics{{Severity: model.SeverityWarning, Summary: SummaryEmptyEnvironment, Source: model.NoSource, Detail: detail}}
}

// policyWarnings warns about every scheduling policy that places nothing, saying whether its cluster
// type selector or its deployment target selector (with its workspace) comes up empty. It says
// nothing when the environment has no deployment targets: environmentWarnings covers that.
func policyWarnings(set *model.Set, targets []*DeploymentTarget, assignments []Assignment) model.Diagnostics {
	if len(targets) == 0 {
		return nil
	}
	used := make(map[string]bool, len(set.SchedulingPolicies))
	for _, a := range assignments {
		for _, p := range a.SchedulingPolicies {
			used[p] = true
		}
	}
	var diags model.Diagnostics
	for _, p := range set.SchedulingPolicies {
		if used[p.Metadata.Name] {
			continue
		}
		dtSel, err1 := model.CompileSelector(p.Spec.DeploymentTargetSelector.LabelSelector)
		ctSel, err2 := model.CompileSelector(p.Spec.ClusterTypeSelector.LabelSelector)
		if err1 != nil || err2 != nil {
			continue // Schedule reported the invalid selector as an error
		}
		var why []string
		cts := 0
		for _, ct := range set.ClusterTypes {
			if ctSel.Matches(labels.Set(ct.Metadata.Labels)) {
				cts++
			}
		}
		if cts == 0 {
			why = append(why, fmt.Sprintf("its clusterTypeSelector matches none of the %d cluster type(s) of the environment", len(set.ClusterTypes)))
		}
		ws := p.Spec.DeploymentTargetSelector.Workspace
		inWorkspace, matched := 0, 0
		for _, t := range targets {
			if ws != "" && ws != t.Labels[model.WorkspaceLabel] {
				continue
			}
			inWorkspace++
			if dtSel.Matches(labels.Set(t.Labels)) {
				matched++
			}
		}
		switch {
		case inWorkspace == 0:
			why = append(why, fmt.Sprintf("no deployment target of the environment is in workspace %q", ws))
		case matched == 0 && ws != "":
			why = append(why, fmt.Sprintf("its deploymentTargetSelector matches none of the %d deployment target(s) of workspace %q", inWorkspace, ws))
		case matched == 0:
			why = append(why, fmt.Sprintf("its deploymentTargetSelector matches none of the %d deployment target(s)", inWorkspace))
		}
		diags = append(diags, model.Diagnostic{
			Severity: model.SeverityWarning, Summary: SummaryPolicyIdle, Source: set.Source(model.KindSchedulingPolicy, p.Metadata.Name),
			Kind: model.KindSchedulingPolicy, Name: p.Metadata.Name,
			Detail: fmt.Sprintf("scheduling policy %q places no deployment target on any cluster type: %s. Check its selectors and workspace, or remove it.",
				p.Metadata.Name, strings.Join(why, ", and ")),
		})
	}
	return diags
}

// assignmentDiag is a diagnostic of one assignment's render, before identical ones are merged.
// acrossClusterTypes merges it with the same diagnostic about other cluster types too: a template name
// that several cluster types mistype alike is one error naming them all.
type assignmentDiag struct {
	target, clusterType string
	diag                model.Diagnostic
	acrossClusterTypes  bool
}

// mergeAssignmentDiags reports each distinct problem once, listing the assignments it affects: a broken
// template on a cluster type with 300 targets is one error, not 300, and a bad value in a ConfigMap that
// every cluster type reads is one error about that ConfigMap.
func mergeAssignmentDiags(rendered []renderedAssignment) model.Diagnostics {
	type key struct {
		sev                              model.Severity
		summary, kind, name, field, text string
	}
	var order []key
	first := map[key]model.Diagnostic{}
	affected := map[key][]assignmentDiag{}
	for _, r := range rendered {
		for _, ad := range r.diags {
			d := ad.diag
			k := key{d.Severity, d.Summary, d.Kind, d.Name, d.Field, d.Detail}
			if ad.acrossClusterTypes {
				k.kind, k.name = "", ""
			}
			if _, ok := first[k]; !ok {
				order = append(order, k)
				first[k] = d
			}
			affected[k] = append(affected[k], ad)
		}
	}
	out := make(model.Diagnostics, 0, len(order))
	for _, k := range order {
		d := first[k]
		d.Detail = affectedPrefix(affected[k]) + d.Detail
		if k.kind == "" && d.Kind == model.KindClusterType {
			if cts := clusterTypesOf(affected[k]); len(cts) > 1 {
				d.Detail += fmt.Sprintf(" (%s of cluster types %s)", d.Field, abbreviate(cts, 10))
			}
		}
		out = append(out, d)
	}
	return out
}

// clusterTypesOf lists the distinct cluster types of ads, quoted, in order.
func clusterTypesOf(ads []assignmentDiag) []string {
	var out []string
	seen := map[string]bool{}
	for _, ad := range ads {
		if !seen[ad.clusterType] {
			seen[ad.clusterType] = true
			out = append(out, fmt.Sprintf("%q", ad.clusterType))
		}
	}
	return out
}

// affectedPrefix names the assignments a merged diagnostic is about.
func affectedPrefix(ads []assignmentDiag) string {
	ct := ads[0].clusterType
	for _, ad := range ads[1:] {
		if ad.clusterType != ct {
			ct = ""
			break
		}
	}
	switch {
	case len(ads) == 1:
		return fmt.Sprintf("deployment target %q on cluster type %q: ", ads[0].target, ct)
	case ct != "":
		quoted := make([]string, len(ads))
		for i, ad := range ads {
			quoted[i] = fmt.Sprintf("%q", ad.target)
		}
		return fmt.Sprintf("%d deployment targets on cluster type %q (%s): ", len(ads), ct, abbreviate(quoted, 10))
	default:
		quoted := make([]string, len(ads))
		for i, ad := range ads {
			quoted[i] = fmt.Sprintf("%q", ad.clusterType+"/"+ad.target)
		}
		return fmt.Sprintf("%d assignments (%s): ", len(ads), abbreviate(quoted, 10))
	}
}

// unscheduledWarning names the deployment targets that no scheduling policy places.
// nonDeterministicWarnings names each template that calls a function whose result differs on every
// render (templating.NonDeterministicCall): its files change on every plan, so a delivered branch never
// converges, and a plan's tree is never the one a later render gives.
func nonDeterministicWarnings(set *model.Set) model.Diagnostics {
	var out model.Diagnostics
	for _, t := range set.Templates {
		for i, texts := range manifestTemplates(t) {
			fn := ""
			for _, m := range texts {
				if fn = templating.NonDeterministicCall(m); fn != "" {
					break
				}
			}
			if fn == "" {
				continue
			}
			out = append(out, model.Diagnostic{
				Severity: model.SeverityWarning, Summary: "Template output differs on every render", Source: model.NoSource,
				Kind: model.KindTemplate, Name: t.Metadata.Name,
				Detail: fmt.Sprintf("template %q (manifests[%d]) calls %s, whose result differs on every render: the files it renders change on every plan, "+
					"so the branch never converges. Compute the value once outside the template, for example as a platform config value", t.Metadata.Name, i, fn),
			})
			break
		}
	}
	return out
}

func unscheduledWarning(environment string, unscheduled []string) model.Diagnostic {
	return model.Diagnostic{
		Severity: model.SeverityWarning, Summary: "Unscheduled deployment targets", Source: model.NoSource,
		Detail: fmt.Sprintf("%d deployment target(s) in environment %q match no scheduling policy and are not placed on any cluster type: %s",
			len(unscheduled), environment, abbreviate(unscheduled, 20)),
	}
}

// abbreviate lists the names, the first limit of them and how many more.
func abbreviate(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:limit], ", ") + fmt.Sprintf(" and %d more", len(names)-limit)
}

// A tree past these sizes still renders and delivers (render_max_output_bytes is the hard limit), but
// every cluster's Flux or Argo CD fetches it and every reviewer reads its plan: an application team can
// grow it to hundreds of MB within the limits, so the plan says so and names who.
const (
	// TreeWarnBytes is the content size of a rendered tree past which the render warns.
	TreeWarnBytes = 64 << 20
	// TreeWarnFiles is the number of files of a rendered tree past which the render warns.
	TreeWarnFiles = 100_000
)

// treeSizeWarning warns about a tree over TreeWarnBytes or TreeWarnFiles, naming the workloads whose
// folders hold the most bytes. The sizes are the layout's (layoutTree) unless it is irregular.
func treeSizeWarning(res *Result, assignments []Assignment, lay *treeLayout) (model.Diagnostic, bool) {
	var total int64
	var shares map[string]*workloadShare
	if lay != nil && !lay.irregular && len(lay.paths) == len(res.Files) {
		total, shares = lay.bytes, lay.shares
	} else {
		for _, content := range res.Files {
			total += int64(len(content))
		}
	}
	if total <= TreeWarnBytes && len(res.Files) <= TreeWarnFiles {
		return model.Diagnostic{}, false
	}
	if shares == nil {
		shares = workloadShares(res, assignments)
	}
	list := make([]*workloadShare, 0, len(shares))
	for _, sh := range shares {
		list = append(list, sh)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].bytes != list[j].bytes {
			return list[i].bytes > list[j].bytes
		}
		return list[i].name < list[j].name
	})
	top := make([]string, 0, 5)
	for _, sh := range list[:min(5, len(list))] {
		top = append(top, fmt.Sprintf("Workload %q %s in %d files", sh.name, mib(sh.bytes), sh.files))
	}
	return model.Diagnostic{Severity: model.SeverityWarning, Summary: "Large GitOps tree", Source: model.NoSource,
		Detail: fmt.Sprintf("the rendered tree of environment %q holds %d files, %s, more than %s or %d files. Every cluster fetches "+
			"it and every plan compares it; check that this is intended. The largest by workload: %s. The hard limit is render_max_output_bytes",
			res.Environment, len(res.Files), mib(total), mib(TreeWarnBytes), TreeWarnFiles, strings.Join(top, ", "))}, true
}

// workloadShares sums the files of the tree by the workload whose folder holds them.
func workloadShares(res *Result, assignments []Assignment) map[string]*workloadShare {
	workloadOf := make(map[string]string, len(assignments))
	for _, a := range assignments {
		workloadOf[a.Path] = a.Workload
	}
	shares := map[string]*workloadShare{}
	for name, content := range res.Files {
		w, ok := workloadOf[folderOf(name)]
		if !ok {
			continue // a cluster type's README.md
		}
		sh := shares[w]
		if sh == nil {
			sh = &workloadShare{name: w}
			shares[w] = sh
		}
		sh.bytes += int64(len(content))
		sh.files++
	}
	return shares
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
