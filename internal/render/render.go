// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package render is the Kalypso scheduling engine: it derives deployment targets, schedules them onto
// cluster types, composes platform config and renders the GitOps tree, byte for byte as upstream does.
package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

const (
	ConfigValidationError = "error"
	ConfigValidationWarn  = "warn"
)

// Options tune a render.
type Options struct {
	// ConfigValidation is "error" (default) or "warn": a warning skips the failing assignment.
	ConfigValidation string
	// Parallelism bounds the workers that render assignments; 0 means GOMAXPROCS.
	Parallelism int

	// Context cancels the render, for example Terraform's on Ctrl-C; nil never cancels.
	Context context.Context
	// Timeout bounds the whole render; 0 means DefaultTimeout.
	Timeout time.Duration
	// TemplateTimeout bounds one template execution (one manifest for one assignment, re-renders
	// included); 0 means templating.DefaultTemplateTimeout.
	TemplateTimeout time.Duration
	// MaxTemplateOutput bounds, in bytes, one manifest's output and any value a template function
	// builds; 0 means templating.DefaultMaxOutput.
	MaxTemplateOutput int
	// MaxOutput bounds, in bytes, the content of the whole rendered tree; 0 means DefaultMaxOutput.
	MaxOutput int64
}

const (
	// DefaultTimeout bounds a whole render when Options.Timeout is 0.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxOutput bounds the rendered tree when Options.MaxOutput is 0. A 100k-assignment tree is
	// about 200 MB.
	DefaultMaxOutput int64 = 2 << 30

	// The provider attributes that raise each limit, named by the diagnostics.
	AttrRenderTimeout     = "render_timeout"
	AttrTemplateTimeout   = "template_timeout"
	AttrMaxTemplateOutput = "template_max_output_bytes"
	AttrMaxOutput         = "render_max_output_bytes"
)

// limits resolves the options' limits to their defaults.
func (o Options) limits() (time.Duration, time.Duration, int, int64) {
	timeout, tmplTimeout, tmplMax, maxOut := o.Timeout, o.TemplateTimeout, o.MaxTemplateOutput, o.MaxOutput
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if tmplTimeout <= 0 {
		tmplTimeout = templating.DefaultTemplateTimeout
	}
	if tmplMax <= 0 {
		tmplMax = templating.DefaultMaxOutput
	}
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	return timeout, tmplTimeout, tmplMax, maxOut
}

// DeploymentTarget is a workload target in the rendered environment.
type DeploymentTarget struct {
	Name          string
	Workload      string
	Workspace     string
	Environment   string
	Labels        map[string]string
	Manifests     map[string]string
	ConfigSchemas []string
}

// Assignment places one deployment target on one cluster type.
type Assignment struct {
	ClusterType        string
	DeploymentTarget   string
	Workload           string
	Workspace          string
	SchedulingPolicies []string
	Namespace          string
	// Path is the assignment's folder relative to the GitOps root.
	Path string
}

// Result is everything a render produces.
type Result struct {
	Environment  string
	Assignments  []Assignment
	Files        map[string]string
	Unscheduled  []string
	ClusterTypes []string
	// PromotedCommit is spec.commit of the BaseRepo named `main`; kalypso_gitops_commit writes it.
	PromotedCommit string
	ContentHash    string
}

// Engine renders environments; it caches parsed templates and compiled schemas across calls.
type Engine struct {
	templates *templating.Engine
	schemas   *platformconfig.SchemaCache
}

// NewEngine returns an engine with empty caches.
func NewEngine() *Engine {
	return &Engine{templates: templating.NewEngine(), schemas: platformconfig.NewSchemaCache()}
}

var defaultEngine = NewEngine()

// Render parses the manifests and renders one environment with the shared default engine.
func Render(environment string, manifests []string, opts Options) (*Result, model.Diagnostics) {
	return defaultEngine.Render(environment, manifests, opts)
}

// Render parses the manifests and renders one environment.
func (e *Engine) Render(environment string, manifests []string, opts Options) (*Result, model.Diagnostics) {
	set, diags := model.Parse(manifests)
	if diags.HasError() {
		return nil, diags
	}
	res, more := e.RenderSet(environment, set, opts)
	return res, append(diags, more...)
}

// RenderSet renders one environment from an already parsed set.
func (e *Engine) RenderSet(environment string, set *model.Set, opts Options) (*Result, model.Diagnostics) {
	var diags model.Diagnostics
	if environment == "" {
		return nil, model.Diagnostics{{Severity: model.SeverityError, Summary: "Missing environment", Source: model.NoSource, Detail: "set `environment` to the name of the environment to render, for example \"dev\""}}
	}
	switch opts.ConfigValidation {
	case "", ConfigValidationError, ConfigValidationWarn:
	default:
		return nil, model.Diagnostics{{Severity: model.SeverityError, Summary: "Invalid config_validation", Source: model.NoSource, Detail: fmt.Sprintf("%q is not \"error\" or \"warn\"", opts.ConfigValidation)}}
	}

	// Cluster type names become folder names. The codec validates them, but a programmatically built set
	// may not have gone through it, and nothing may ever be written outside the tree.
	for _, ct := range set.ClusterTypes {
		if msgs := validation.IsDNS1123Subdomain(ct.Metadata.Name); len(msgs) > 0 {
			diags = append(diags, model.Diagnostic{
				Severity: model.SeverityError, Summary: "Invalid object name", Source: set.Source(model.KindClusterType, ct.Metadata.Name),
				Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: "metadata.name",
				Detail: fmt.Sprintf("cluster type name %q is not a DNS-1123 subdomain, so it cannot be a folder of the GitOps tree: %s", ct.Metadata.Name, strings.Join(msgs, "; ")),
			})
		}
	}
	if diags.HasError() {
		return nil, diags
	}

	targets, ds := DeriveTargets(environment, set)
	diags = append(diags, ds...)
	// An environment without deployment targets renders no namespace (a typo is a warning below); one
	// with targets starts every namespace, so it must be able to.
	if len(targets) > 0 {
		if ds := checkEnvironment(environment); ds.HasError() {
			return nil, append(diags, ds...)
		}
	}
	diags = append(diags, environmentWarnings(environment, set, targets)...)
	assignments, ds := Schedule(environment, set, targets)
	diags = append(diags, ds...)
	if diags.HasError() {
		return nil, diags
	}
	diags = append(diags, policyWarnings(set, targets, assignments)...)

	// Three files per assignment and a README per cluster type: sized once, the map never grows.
	res := &Result{Environment: environment, Files: make(map[string]string, 3*len(assignments)+len(set.ClusterTypes)), PromotedCommit: set.PromotedCommit()}
	for _, ct := range set.ClusterTypes {
		res.ClusterTypes = append(res.ClusterTypes, ct.Metadata.Name)
		res.Files[ct.Metadata.Name+"/"+model.ReadmeFile] = model.ReadmeText
	}

	scheduled := map[string]bool{}
	for _, a := range assignments {
		scheduled[a.DeploymentTarget] = true
	}
	for _, t := range targets {
		if !scheduled[t.Name] {
			res.Unscheduled = append(res.Unscheduled, t.Name)
		}
	}
	if len(res.Unscheduled) > 0 {
		diags = append(diags, model.Diagnostic{
			Severity: model.SeverityWarning, Summary: "Unscheduled deployment targets", Source: model.NoSource,
			Detail: fmt.Sprintf("%d deployment target(s) in environment %q match no scheduling policy and are not placed on any cluster type: %s",
				len(res.Unscheduled), environment, abbreviate(res.Unscheduled, 20)),
		})
	}

	rendered, ds := e.renderAssignments(environment, set, targets, assignments, opts)
	diags = append(diags, ds...)
	if diags.HasError() {
		return nil, diags
	}
	layoutTree(res, assignments, rendered)
	res.ContentHash = ContentHash(res.Files)
	return res, diags
}

// layoutTree adds every rendered, unskipped assignment and its files to the result's GitOps tree.
func layoutTree(res *Result, assignments []Assignment, rendered []renderedAssignment) {
	kept := 0
	for _, r := range rendered {
		if !r.skipped {
			kept++
		}
	}
	// Sized once (the slice grows from nil as before, so that no assignments stays nil).
	res.Assignments = slices.Grow(res.Assignments, kept)
	for i, r := range rendered {
		if r.skipped {
			continue
		}
		res.Assignments = append(res.Assignments, assignments[i])
		for _, f := range r.files {
			res.Files[f.path] = f.content
		}
	}
}

func abbreviate(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:limit], ", ") + fmt.Sprintf(" and %d more", len(names)-limit)
}

// DeriveTargets links every Workload to its registration and derives the deployment targets of the environment.
func DeriveTargets(environment string, set *model.Set) ([]*DeploymentTarget, model.Diagnostics) {
	var diags model.Diagnostics
	registrations := make(map[string]*model.WorkloadRegistration, len(set.WorkloadRegistrations))
	for _, r := range set.WorkloadRegistrations {
		registrations[r.Metadata.Name] = r
	}
	var targets []*DeploymentTarget
	seen := map[string]string{}
	for _, w := range set.Workloads {
		src := set.Source(model.KindWorkload, w.Metadata.Name)
		workspace := ""
		if regName, ok := w.Metadata.Annotations[model.RegistrationAnnotation]; ok && regName != "" {
			reg, found := registrations[regName]
			if !found {
				diags = append(diags, model.Diagnostic{
					Severity: model.SeverityError, Summary: "Workload names a missing WorkloadRegistration", Source: src,
					Kind: model.KindWorkload, Name: w.Metadata.Name, Field: "metadata.annotations." + model.RegistrationAnnotation,
					Detail: fmt.Sprintf("no WorkloadRegistration named %q is in the input; add it or fix the annotation", regName),
				})
				continue
			}
			workspace = reg.Spec.Workspace
		} else if reg, found := registrations[w.Metadata.Name]; found {
			workspace = reg.Spec.Workspace
		} else {
			diags = append(diags, model.Diagnostic{
				Severity: model.SeverityWarning, Summary: "Workload has no WorkloadRegistration", Source: src,
				Kind: model.KindWorkload, Name: w.Metadata.Name,
				Detail: fmt.Sprintf("no WorkloadRegistration is named %q and the Workload has no %s annotation, so its workspace is \"\"", w.Metadata.Name, model.RegistrationAnnotation),
			})
		}
		for i, t := range w.Spec.DeploymentTargets {
			if t.Environment != environment {
				continue
			}
			name := w.Metadata.Name + "-" + t.Name
			field := fmt.Sprintf("spec.deploymentTargets[%d].name", i)
			if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
				diags = append(diags, model.Diagnostic{
					Severity: model.SeverityError, Summary: "Invalid deployment target name", Source: src, Kind: model.KindWorkload, Name: w.Metadata.Name, Field: field,
					Detail: fmt.Sprintf("the deployment target name %q (<workload>-<target>) is not a DNS-1123 subdomain: %s", name, strings.Join(msgs, "; ")),
				})
				continue
			}
			if other, dup := seen[name]; dup {
				diags = append(diags, model.Diagnostic{
					Severity: model.SeverityError, Summary: "Duplicate deployment target", Source: src, Kind: model.KindWorkload, Name: w.Metadata.Name, Field: field,
					Detail: fmt.Sprintf("deployment target %q is also derived from workload %q; rename one target", name, other),
				})
				continue
			}
			seen[name] = w.Metadata.Name
			lbls := make(map[string]string, len(t.Labels)+len(w.Metadata.Labels)+2)
			for k, v := range t.Labels {
				lbls[k] = v
			}
			for k, v := range w.Metadata.Labels {
				lbls[k] = v
			}
			lbls[model.WorkloadLabel] = w.Metadata.Name
			lbls[model.WorkspaceLabel] = workspace
			schemas := append(append([]string{}, t.ConfigSchemas...), w.Spec.ConfigSchemas...)
			targets = append(targets, &DeploymentTarget{
				Name: name, Workload: w.Metadata.Name, Workspace: workspace, Environment: t.Environment,
				Labels: lbls, Manifests: t.Manifests, ConfigSchemas: schemas,
			})
		}
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Name < targets[j].Name })
	return targets, diags
}

// Schedule applies every policy. Two policies selecting the same pair give one assignment listing both
// (upstream fails instead).
func Schedule(environment string, set *model.Set, targets []*DeploymentTarget) ([]Assignment, model.Diagnostics) {
	var diags model.Diagnostics
	// A pair is keyed by the ranks of its names, not the names: at 100k assignments, hashing string
	// pairs and sorting by string comparison was most of scheduling. Equal names share a rank, so pairs
	// merge exactly as they would by name, and ordering by rank is ordering by name.
	ctRank := nameRanks(len(set.ClusterTypes), func(i int) string { return set.ClusterTypes[i].Metadata.Name })
	targetRank := nameRanks(len(targets), func(i int) string { return targets[i].Name })
	index := newPairIndex(ctRank, targetRank)
	// The pairs are collected small (indices and policies) and become Assignments once, in order: growing
	// a slice of 120-byte Assignments, then copying it into order, was a third of scheduling.
	type pair struct {
		ct, target int
		policies   []string
	}
	var out []pair
	for _, p := range set.SchedulingPolicies {
		src := set.Source(model.KindSchedulingPolicy, p.Metadata.Name)
		dtSel, err := model.CompileSelector(p.Spec.DeploymentTargetSelector.LabelSelector)
		if err != nil {
			diags = append(diags, selectorDiag(src, p.Metadata.Name, "spec.deploymentTargetSelector.labelSelector", err))
			continue
		}
		ctSel, err := model.CompileSelector(p.Spec.ClusterTypeSelector.LabelSelector)
		if err != nil {
			diags = append(diags, selectorDiag(src, p.Metadata.Name, "spec.clusterTypeSelector.labelSelector", err))
			continue
		}
		var cts []int
		for i, ct := range set.ClusterTypes {
			if ctSel.Matches(labels.Set(ct.Metadata.Labels)) {
				cts = append(cts, i)
			}
		}
		if len(cts) == 0 {
			continue
		}
		ws := p.Spec.DeploymentTargetSelector.Workspace
		for ti, t := range targets {
			if ws != "" && ws != t.Labels[model.WorkspaceLabel] {
				continue
			}
			if !dtSel.Matches(labels.Set(t.Labels)) {
				continue
			}
			for _, ci := range cts {
				if i, ok := index.get(ctRank[ci], targetRank[ti]); ok {
					out[i].policies = append(out[i].policies, p.Metadata.Name)
					continue
				}
				index.put(ctRank[ci], targetRank[ti], len(out))
				out = append(out, pair{ct: ci, target: ti, policies: []string{p.Metadata.Name}})
			}
		}
	}
	sorted := make([]Assignment, 0, len(out))
	for _, i := range index.ordered(len(out)) {
		ct, t := set.ClusterTypes[out[i].ct].Metadata.Name, targets[out[i].target]
		sorted = append(sorted, Assignment{
			ClusterType: ct, DeploymentTarget: t.Name, Workload: t.Workload, Workspace: t.Workspace,
			SchedulingPolicies: out[i].policies,
			Namespace:          environment + "-" + ct + "-" + t.Name,
			Path:               ct + "/" + t.Name,
		})
	}
	return sorted, diags
}

// pairIndex maps a (cluster type rank, target rank) pair to the index of its assignment. When the grid
// of all pairs is small enough (300 cluster types x 500 targets is 150k cells) it is a dense array,
// which is both faster than a map and already in (cluster type, target) order, so ordering the
// assignments needs no sort; otherwise a map whose keys are sorted at the end.
type pairIndex struct {
	targets uint64
	dense   []int32 // assignment index + 1; 0 means none
	sparse  map[uint64]int
}

// denseIndexLimit bounds the dense grid to 16 MiB.
const denseIndexLimit = 1 << 22

func newPairIndex(ctRank, targetRank []uint32) *pairIndex {
	cts, targets := uint64(maxRank(ctRank)), uint64(maxRank(targetRank))
	if cts*targets <= denseIndexLimit {
		return &pairIndex{targets: targets, dense: make([]int32, cts*targets)}
	}
	return &pairIndex{sparse: map[uint64]int{}}
}

func maxRank(ranks []uint32) uint32 {
	var n uint32
	for _, r := range ranks {
		n = max(n, r+1)
	}
	return n
}

func (x *pairIndex) get(ct, target uint32) (int, bool) {
	if x.dense != nil {
		i := x.dense[uint64(ct)*x.targets+uint64(target)]
		return int(i) - 1, i != 0
	}
	i, ok := x.sparse[uint64(ct)<<32|uint64(target)]
	return i, ok
}

func (x *pairIndex) put(ct, target uint32, i int) {
	if x.dense != nil {
		x.dense[uint64(ct)*x.targets+uint64(target)] = int32(i + 1)
		return
	}
	x.sparse[uint64(ct)<<32|uint64(target)] = i
}

// ordered returns the n assignment indices by cluster type name, then target name.
func (x *pairIndex) ordered(n int) []int {
	out := make([]int, 0, n)
	if x.dense != nil {
		for _, i := range x.dense {
			if i != 0 {
				out = append(out, int(i)-1)
			}
		}
		return out
	}
	keys := make([]uint64, 0, len(x.sparse))
	for k := range x.sparse {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, x.sparse[k])
	}
	return out
}

// nameRanks returns, for each of n named items, the rank of its name among the distinct names.
func nameRanks(n int, name func(int) string) []uint32 {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return name(order[a]) < name(order[b]) })
	ranks := make([]uint32, n)
	var rank uint32
	for k, i := range order {
		if k > 0 && name(i) != name(order[k-1]) {
			rank++
		}
		ranks[i] = rank
	}
	return ranks
}

func selectorDiag(src model.Source, name, field string, err error) model.Diagnostic {
	return model.Diagnostic{
		Severity: model.SeverityError, Summary: "Invalid label selector", Source: src, Kind: model.KindSchedulingPolicy, Name: name, Field: field,
		Detail: err.Error() + "; operators are In, NotIn (both need values), Exists and DoesNotExist (no values)",
	}
}

type renderedAssignment struct {
	files      []renderedFile
	diags      []assignmentDiag
	yamlIssues []yamlIssue
	skipped    bool
}

func (e *Engine) renderAssignments(environment string, set *model.Set, targets []*DeploymentTarget, assignments []Assignment, opts Options) ([]renderedAssignment, model.Diagnostics) {
	job := e.newAssignmentJob(environment, set, targets, opts)
	defer job.cancel()
	out := make([]renderedAssignment, len(assignments))
	parallelFor(len(assignments), opts.Parallelism, func(i int) { out[i] = job.render(&assignments[i]) })
	if d, stopped := job.stopDiagnostic(); stopped {
		return nil, model.Diagnostics{d}
	}
	diags := mergeAssignmentDiags(out)
	diags = append(diags, mergeYAMLIssues(out)...)
	return out, diags
}

// renderedFile is one file of an assignment's folder; an assignment has at most three, so a slice
// costs less than a map per assignment.
type renderedFile struct{ path, content string }

// newAssignmentJob indexes what every assignment's render looks up: cluster types, targets, templates, config sources.
func (e *Engine) newAssignmentJob(environment string, set *model.Set, targets []*DeploymentTarget, opts Options) *assignmentJob {
	clusterTypes := make(map[string]*model.ClusterType, len(set.ClusterTypes))
	for _, ct := range set.ClusterTypes {
		clusterTypes[ct.Metadata.Name] = ct
	}
	targetByName := make(map[string]*DeploymentTarget, len(targets))
	for _, t := range targets {
		targetByName[t.Name] = t
	}
	templates := make(map[string]*model.Template, len(builtinTemplates)+len(set.Templates))
	for n, t := range builtinTemplates {
		templates[n] = t
	}
	for _, t := range set.Templates {
		templates[t.Metadata.Name] = t
	}
	sources := platformconfig.NewSources(set.ConfigMaps)
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	timeout, tmplTimeout, tmplMax, maxOut := opts.limits()
	ctx, cancel := context.WithTimeout(parent, timeout)
	return &assignmentJob{
		engine: e, environment: environment, set: set, clusterTypes: clusterTypes, targets: targetByName,
		templates: templates, sources: sources, opts: opts, yamlChecks: &yamlChecker{},
		parent: parent, ctx: ctx, cancel: cancel, timeout: timeout, tmplTimeout: tmplTimeout, tmplMax: tmplMax, maxOutput: maxOut,
	}
}

// stopDiagnostic is the one diagnostic of a render that stopped as a whole: canceled, past its deadline,
// or stopped by the first template that hit a limit (which the other workers then stop for too).
func (j *assignmentJob) stopDiagnostic() (model.Diagnostic, bool) {
	j.stopMu.Lock()
	defer j.stopMu.Unlock()
	if j.stop != nil {
		return *j.stop, true
	}
	if !j.cut.Load() {
		return model.Diagnostic{}, false
	}
	if j.parent.Err() != nil {
		return model.Diagnostic{Severity: model.SeverityError, Summary: SummaryRenderCanceled, Source: model.NoSource,
			Detail: fmt.Sprintf("the render of environment %q was canceled (Terraform was interrupted) before every assignment was rendered", j.environment)}, true
	}
	{
		return model.Diagnostic{Severity: model.SeverityError, Summary: SummaryRenderLimit, Source: model.NoSource,
			Detail: fmt.Sprintf("the render of environment %q took longer than %s; %s if the fleet really needs longer", j.environment, j.timeout, raise(AttrRenderTimeout))}, true
	}
}

const (
	// SummaryRenderLimit is the summary of a render or template stopped by a limit.
	SummaryRenderLimit = "Render limit exceeded"
	// SummaryRenderCanceled is the summary of a render that Terraform canceled.
	SummaryRenderCanceled = "Render canceled"
)

// stopWith records the first diagnostic that stops the whole render and stops the other workers.
func (j *assignmentJob) stopWith(d model.Diagnostic) {
	j.stopMu.Lock()
	if j.stop == nil {
		j.stop = &d
	}
	j.stopMu.Unlock()
	j.cancel()
}

// raise says where a limit is set.
func raise(attr string) string {
	return fmt.Sprintf("raise `%s` (a provider attribute; an option of provider::kalypso::environment_render)", attr)
}

// limitDiagnostic turns a template's limit error into a diagnostic naming the template, the deployment
// target, the cluster type and the provider attribute to raise; ok is false for canceled renders, which
// stopDiagnostic reports once.
func (j *assignmentJob) limitDiagnostic(le *templating.LimitError, base model.Diagnostic, tmplName string, t *DeploymentTarget, ct string) (model.Diagnostic, bool) {
	what := fmt.Sprintf("Template %q (deployment target %q of Workload %q on cluster type %q)", tmplName, t.Name, t.Workload, ct)
	if le.Rerender > 0 {
		what += fmt.Sprintf(", in text it inserted and re-rendered (render %d: a value from the Workload's manifests or from platform config that holds `{{`)", le.Rerender+1)
	}
	switch le.Kind {
	case templating.LimitCanceled:
		j.cut.Store(true)
		return model.Diagnostic{}, false // canceled by Terraform or by another template's limit: reported once
	case templating.LimitDeadline:
		if d, ok := j.ctx.Deadline(); ok && !time.Now().Before(d) {
			j.cut.Store(true)
			return model.Diagnostic{}, false // the whole render's deadline: reported once
		}
		base.Detail = fmt.Sprintf("%s ran longer than %s: %s. Fix the template or value; if it really needs longer, %s", what, j.tmplTimeout, le.Detail, raise(AttrTemplateTimeout))
	default:
		base.Detail = fmt.Sprintf("%s: %s. Fix the template or value; if it really needs more, %s (now %d bytes)", what, le.Detail, raise(AttrMaxTemplateOutput), j.tmplMax)
	}
	base.Summary = SummaryRenderLimit
	return base, true
}

type assignmentJob struct {
	engine       *Engine
	yamlChecks   *yamlChecker
	environment  string
	set          *model.Set
	clusterTypes map[string]*model.ClusterType
	targets      map[string]*DeploymentTarget
	templates    map[string]*model.Template
	sources      *platformconfig.Sources
	opts         Options

	parent, ctx context.Context
	cancel      context.CancelFunc
	timeout     time.Duration
	tmplTimeout time.Duration
	tmplMax     int
	maxOutput   int64
	written     atomic.Int64
	cut         atomic.Bool // an assignment was skipped or stopped because the render was canceled or timed out
	stopMu      sync.Mutex
	stop        *model.Diagnostic
}

func (j *assignmentJob) render(a *Assignment) (r renderedAssignment) {
	if j.ctx.Err() != nil {
		j.cut.Store(true)
		return r // stopDiagnostic reports why
	}
	ct := j.clusterTypes[a.ClusterType]
	t := j.targets[a.DeploymentTarget]
	ctSrc := j.set.Source(model.KindClusterType, ct.Metadata.Name)
	fail := func(sev model.Severity, summary, field, detail string) renderedAssignment {
		r.diags = append(r.diags, assignmentDiag{target: t.Name, diag: model.Diagnostic{
			Severity: sev, Summary: summary, Source: ctSrc, Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: field, Detail: detail,
		}})
		return r
	}

	match := platformconfig.Target{ClusterTypeName: ct.Metadata.Name, ClusterTypeLabels: ct.Metadata.Labels, DeploymentTarget: t.Name, TargetLabels: t.Labels}
	// Shared with every assignment that matches the same sources; templating copies it before a template can modify it.
	config := j.sources.ComposeShared(match)

	type namedSchema struct{ name, text string }
	var schemas []namedSchema
	for _, s := range j.set.ConfigSchemas {
		if match.Matches(s.Metadata.Labels) {
			schemas = append(schemas, namedSchema{"ConfigSchema " + s.Metadata.Name, s.Spec.Schema})
		}
	}
	for i, s := range t.ConfigSchemas {
		schemas = append(schemas, namedSchema{fmt.Sprintf("deployment target configSchemas[%d]", i), s})
	}
	for _, s := range schemas {
		compiled, err := j.engine.schemas.Compile(s.text)
		if err != nil {
			return fail(model.SeverityError, "Invalid config schema", "", fmt.Sprintf("%s: %v", s.name, err))
		}
		if v := platformconfig.Validate(compiled, config); v != nil {
			sev := model.SeverityError
			if j.opts.ConfigValidation == ConfigValidationWarn {
				sev = model.SeverityWarning
				r.skipped = true
			}
			return fail(sev, "Platform config violates schema", "",
				fmt.Sprintf("%s rejects field %s: %s. Fix the platform ConfigMaps, or set config_validation = \"warn\" to skip this assignment", s.name, v.Field, v.Message))
		}
	}

	if ds := j.deployability(a, t, ct, config); len(ds) > 0 {
		r.diags = append(r.diags, ds...)
		for _, d := range ds {
			if d.diag.Severity == model.SeverityError {
				return r
			}
		}
	}

	data := &templating.Data{
		DeploymentTargetName: t.Name,
		Namespace:            a.Namespace,
		Environment:          j.environment,
		Workspace:            t.Workspace,
		Workload:             t.Workload,
		Labels:               t.Labels,
		Manifests:            t.Manifests,
		ClusterType:          ct.Metadata.Name,
		ConfigData:           config,
		ConfigFrozen:         true,
	}
	configType := ct.Spec.ConfigType
	if configType == "" {
		configType = model.DefaultConfigType
	}
	files := make([]renderedFile, 0, 3)
	for _, use := range []struct{ field, name, file string }{
		{"spec.reconciler", ct.Spec.Reconciler, model.ReconcilerFile},
		{"spec.namespaceService", ct.Spec.NamespaceService, model.NamespaceFile},
		{"spec.configType", configType, model.PlatformConfigFile},
	} {
		tmpl, ok := j.templates[use.name]
		if !ok {
			return fail(model.SeverityError, "Missing template", use.field,
				fmt.Sprintf("template %q is not in the input and is not built in (%s); add a Template named %q or change %s", use.name, strings.Join(BuiltinTemplateNames(), ", "), use.name, use.field))
		}
		deadline := time.Now().Add(j.tmplTimeout)
		if d, ok := j.ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		out, err := j.engine.templates.ExecuteAllLimited(tmpl.Spec.Manifests, data, templating.Limits{Context: j.ctx, Deadline: deadline, MaxOutput: j.tmplMax})
		if le, ok := templating.AsLimitError(err); ok {
			if d, ok := j.limitDiagnostic(le, model.Diagnostic{Severity: model.SeverityError, Source: ctSrc, Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: use.field}, use.name, t, ct.Metadata.Name); ok {
				d.Detail = fmt.Sprintf("%s (%s)", d.Detail, strings.SplitN(err.Error(), ":", 2)[0])
				j.stopWith(d)
			}
			return r
		}
		if err != nil {
			return fail(model.SeverityError, "Template failed", use.field, fmt.Sprintf("Template %q %v", use.name, err))
		}
		content := strings.Join(out, "---\n")
		if total := j.written.Add(int64(len(content))); total > j.maxOutput {
			j.stopWith(model.Diagnostic{Severity: model.SeverityError, Summary: SummaryRenderLimit, Source: model.NoSource,
				Detail: fmt.Sprintf("the rendered tree of environment %q grew past %d bytes (at %s/%s); %s if the fleet really is that large",
					j.environment, j.maxOutput, a.Path, use.file, raise(AttrMaxOutput))})
			return r
		}
		file := use.file
		if file == model.PlatformConfigFile {
			if tmpl.Spec.ContentType == model.ContentTypeSh {
				file += ".sh"
			} else {
				file += ".yaml"
			}
			if content == "" {
				continue
			}
		}
		// Built-in templates quote every value they insert; only input templates are checked.
		if strings.HasSuffix(file, ".yaml") && tmpl != builtinTemplates[use.name] {
			for i, m := range out {
				if err := j.yamlChecks.invalid(m, a.Namespace, t.Name, ct.Metadata.Name, t.Workload, j.environment); err != nil {
					r.yamlIssues = append(r.yamlIssues, yamlIssue{key: fmt.Sprintf("%s\x00%d", use.name, i), diag: model.Diagnostic{
						Severity: model.SeverityWarning, Summary: SummaryInvalidYAML, Source: ctSrc, Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: use.field,
						Detail: fmt.Sprintf("%s (deployment target %q on cluster type %q): manifests[%d] of Template %q rendered text that is not YAML: %v. "+
							"The file is written as rendered, as upstream Kalypso does, but Flux or Argo CD will fail to apply it; fix the template.",
							a.Path+"/"+file, t.Name, ct.Metadata.Name, i, use.name, err),
					}})
				}
			}
		}
		files = append(files, renderedFile{a.Path + "/" + file, content})
	}
	r.files = files
	return r
}

// ContentHash is a SHA-256 over the sorted paths of a file map, each followed by the SHA-256 of its
// content. Hashing each file on its own lets every core take a share: at 100k assignments the tree is
// about 200 MB, and one sequential SHA-256 over it was the longest single-threaded step of a render.
func ContentHash(files map[string]string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	sums := make([][sha256.Size]byte, len(paths))
	const chunk = 256
	parallelFor((len(paths)+chunk-1)/chunk, 0, func(c int) {
		for i := c * chunk; i < len(paths) && i < (c+1)*chunk; i++ {
			sums[i] = sha256.Sum256(stringBytes(files[paths[i]]))
		}
	})
	h := sha256.New()
	for i, p := range paths {
		h.Write(stringBytes(p))
		h.Write([]byte{0})
		h.Write(sums[i][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// stringBytes views s as bytes without copying, for writers that only read (io.Writer must neither
// modify nor retain p): hashing a 100k-assignment tree would otherwise copy its 200 MB of content.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
