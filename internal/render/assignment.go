// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

type renderedAssignment struct {
	files      []renderedFile
	diags      []assignmentDiag
	yamlIssues []yamlIssue
	skipped    bool
}

func (e *Engine) renderAssignments(environment string, set *model.Set, targets []*DeploymentTarget, assignments []Assignment, opts Options) ([]renderedAssignment, model.Diagnostics) {
	job := e.newAssignmentJob(environment, set, targets, opts)
	defer job.cancel()
	return job.renderAll(assignments)
}

// renderAll renders the assignments on opts.Parallelism workers and merges their diagnostics.
func (j *assignmentJob) renderAll(assignments []Assignment) ([]renderedAssignment, model.Diagnostics) {
	out := make([]renderedAssignment, len(assignments))
	parallel.For(len(assignments), j.opts.Parallelism, func(i int) { out[i] = j.render(i, &assignments[i]) })
	if d, stopped := j.stopDiagnostic(); stopped {
		return nil, model.Diagnostics{d}
	}
	diags := mergeAssignmentDiags(out)
	diags = append(diags, mergeYAMLIssues(out)...)
	diags = append(diags, j.docDiagnostics()...)
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
	templates := make(map[string]*model.Template, len(builtins.ordered)+len(set.Templates))
	for _, b := range builtins.ordered {
		templates[b.template.Metadata.Name] = b.template
	}
	for _, t := range set.Templates {
		templates[t.Metadata.Name] = t
	}
	sources := platformconfig.NewSources(set.ConfigMaps)
	// Which sources a cluster type or a target satisfies on its own is worked out once for each, not per assignment.
	ctSides := make(map[string]platformconfig.Side, len(set.ClusterTypes))
	for _, ct := range set.ClusterTypes {
		ctSides[ct.Metadata.Name] = sources.ClusterTypeSide(ct.Metadata.Name, ct.Metadata.Labels)
	}
	targetSides := make(map[string]platformconfig.Side, len(targets))
	for _, t := range targets {
		targetSides[t.Name] = sources.TargetSide(t.Name, t.Labels)
	}
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	timeout, tmplTimeout, tmplMax, maxOut := opts.limits()
	ctx, cancel := context.WithTimeout(parent, timeout)
	return &assignmentJob{
		engine: e, environment: environment, set: set, clusterTypes: clusterTypes, targets: targetByName,
		templates: templates, sources: sources, ctSides: ctSides, targetSides: targetSides, opts: opts, yamlChecks: &yamlChecker{}, dataChecks: &configMapDataChecker{}, execMemo: templating.NewExecMemo(),
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
			Option: AttrRenderTimeout,
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

// raise names the limit to raise. Where it is set differs by entry point (a provider attribute for the
// data source and kalypso_gitops_commit, an option of the function, which cannot read the provider's
// configuration), so the diagnostic's Option names the limit and the entry point says where.
func raise(attr string) string {
	return fmt.Sprintf("raise the `%s` limit", attr)
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
		base.Option = AttrTemplateTimeout
	default:
		base.Detail = fmt.Sprintf("%s: %s. Fix the template or value; if it really needs more, %s (now %d bytes)", what, le.Detail, raise(AttrMaxTemplateOutput), j.tmplMax)
		base.Option = AttrMaxTemplateOutput
	}
	base.Summary = SummaryRenderLimit
	return base, true
}

// validationKey names the validation of one composed config against one compiled schema.
type validationKey struct {
	config string
	schema *jsonschema.Schema
}

// validation is the verdict of schema on config (platformconfig.Instance), computed once per render for each composed
// config (key) and schema: validation is a pure function of the two, and most assignments share their
// config with many others. The config's JSON form is computed once per config, for all its schemas: with
// a schema per Workload (spec.configSchemas) most pairs are validated once, and converting the config
// for each was most of the cost.
func (j *assignmentJob) validation(key string, schema *jsonschema.Schema, config map[string]interface{}) *platformconfig.Violation {
	k := validationKey{key, schema}
	if v, ok := j.validated.Load(k); ok {
		return v.(*platformconfig.Violation) //nolint:forcetypeassert // validated only ever holds *Violation
	}
	inst, ok := j.instances.Load(key)
	if !ok {
		inst, _ = j.instances.LoadOrStore(key, platformconfig.NewInstance(config))
	}
	v := inst.(*platformconfig.Instance).Validate(schema) //nolint:forcetypeassert // instances only ever holds *Instance
	j.validated.Store(k, v)
	return v
}

type assignmentJob struct {
	engine       *Engine
	yamlChecks   *yamlChecker
	dataChecks   *configMapDataChecker
	environment  string
	set          *model.Set
	clusterTypes map[string]*model.ClusterType
	targets      map[string]*DeploymentTarget
	templates    map[string]*model.Template
	sources      *platformconfig.Sources
	ctSides      map[string]platformconfig.Side // by cluster type name
	targetSides  map[string]platformconfig.Side // by deployment target name
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
	validated   sync.Map // validationKey -> *platformconfig.Violation
	instances   sync.Map // composed config key -> *platformconfig.Instance, converted once for all its schemas
	legacy      sync.Map // *model.Template -> its objects rewritten by legacyText (legacyObjects)
	holderCache sync.Map // holdersKey -> []platformconfig.Holder
	docIssues   sync.Map // docIssueKey -> *docIssueTally
	// nonStrings holds the reports of each ConfigMap data section (nonStringReports), at most
	// yamlMemoLimit of them.
	nonStrings     sync.Map // nonStringReportsKey -> []nonStringReport
	nonStringsSize atomic.Int64
	// noMemo turns the memos of checkDocuments off: a test compares the warnings with and without them.
	noMemo bool
	// execMemo holds template outputs by what the templates read (nil: every template is executed); the
	// targets' Labels and Manifests maps and the shared composed configs are not modified during a render.
	execMemo *templating.ExecMemo
	// docPlans are checkDocuments' plans by memo entry (a nil plan: the texts are read one by one).
	docPlansMu sync.RWMutex
	docPlans   map[templating.EntryID]*docPlan
}

// render renders one assignment in three steps: validate its platform config and deployability, render
// each of its files, and check the YAML of the files an input template wrote. An assignment that fails
// a step keeps its diagnostics and writes no file.
func (j *assignmentJob) render(index int, a *Assignment) renderedAssignment {
	if j.ctx.Err() != nil {
		j.cut.Store(true)
		return renderedAssignment{} // stopDiagnostic reports why
	}
	s := &assignmentRender{job: j, index: index, a: a, ct: j.clusterTypes[a.ClusterType], t: j.targets[a.DeploymentTarget]}
	s.src = j.set.Source(model.KindClusterType, s.ct.Metadata.Name)
	config, ok := s.validate()
	if !ok {
		return s.out
	}
	data := s.templateData(config)
	files := make([]renderedFile, 0, 3)
	for _, use := range s.fileTemplates() {
		f, write, ok := s.renderFile(use, data)
		if !ok {
			return s.out
		}
		if write {
			files = append(files, f)
		}
	}
	s.out.files = files
	return s.out
}

// assignmentRender is one assignment's render in progress: what its steps share and what they report.
type assignmentRender struct {
	job *assignmentJob
	a   *Assignment
	ct  *model.ClusterType
	t   *DeploymentTarget
	src model.Source // the cluster type's, which every diagnostic of the assignment names
	out renderedAssignment
	// configKey is the key of the assignment's composed config (platformconfig.Sources.ComposeSharedKey).
	configKey string
	// index is the assignment's place in the render, and docReports the number of checkDocuments reports
	// it made so far: together they order the reports (docOrder).
	index      int
	docReports uint32
	// masks are the assignment's names for the YAML check, made at its first text (checkYAML).
	masks      maskNames
	masksReady bool
}

// fail adds a diagnostic about the assignment's cluster type.
func (s *assignmentRender) fail(sev model.Severity, summary, field, detail string) {
	s.out.diags = append(s.out.diags, assignmentDiag{target: s.t.Name, clusterType: s.ct.Metadata.Name, diag: model.Diagnostic{
		Severity: sev, Summary: summary, Source: s.src, Kind: model.KindClusterType, Name: s.ct.Metadata.Name, Field: field, Detail: detail,
	}})
}

// validate composes the assignment's platform config and checks it against the config schemas that
// apply, then checks that a cluster can deploy the assignment; ok is false when rendering stops here.
func (s *assignmentRender) validate() (config map[string]interface{}, ok bool) {
	match := platformconfig.Target{ClusterTypeName: s.ct.Metadata.Name, ClusterTypeLabels: s.ct.Metadata.Labels, DeploymentTarget: s.t.Name, TargetLabels: s.t.Labels}
	// Shared with every assignment that matches the same sources; templating copies it before a template can modify it.
	config, key := s.job.sources.ComposeSharedKeySides(s.job.ctSides[s.ct.Metadata.Name], s.job.targetSides[s.t.Name], match)
	s.configKey = key
	if !s.validateConfig(match, config, key) {
		return nil, false
	}
	if ds := s.job.deployability(s.a, s.t, s.ct, config); len(ds) > 0 {
		s.out.diags = append(s.out.diags, ds...)
		for _, d := range ds {
			if d.diag.Severity == model.SeverityError {
				return nil, false
			}
		}
	}
	return config, true
}

// validateConfig checks the config against every ConfigSchema whose labels match the assignment and
// every schema of the deployment target. A violation is an error, or under config_validation = "warn"
// a warning that skips the assignment.
//
// key is the composed config's (platformconfig.Sources.ComposeSharedKey): a config is validated against a
// schema once per render, whatever the number of assignments that share it.
func (s *assignmentRender) validateConfig(match platformconfig.Target, config map[string]interface{}, key string) bool {
	type namedSchema struct {
		name, text string
		platform   string // the ConfigSchema's name; "" for a deployment target's (the Workload's) schema
	}
	var schemas []namedSchema
	for _, cs := range s.job.set.ConfigSchemas {
		if match.Matches(cs.Metadata.Labels) {
			schemas = append(schemas, namedSchema{"ConfigSchema " + cs.Metadata.Name, cs.Spec.Schema, cs.Metadata.Name})
		}
	}
	for i, text := range s.t.ConfigSchemas {
		schemas = append(schemas, namedSchema{fmt.Sprintf("deployment target configSchemas[%d]", i), text, ""})
	}
	limits := platformconfig.Limits{MaxDepth: s.job.opts.SchemaMaxDepth, MaxBytes: s.job.opts.SchemaMaxBytes}
	for _, schema := range schemas {
		compiled, err := s.job.engine.schemas.Compile(s.job.ctx, schema.text, limits)
		var le *platformconfig.LimitError
		switch {
		case s.job.ctx.Err() != nil:
			s.job.cut.Store(true) // canceled or past the deadline: stopDiagnostic reports it once
			return false
		case errors.As(err, &le):
			s.out.diags = append(s.out.diags, assignmentDiag{target: s.t.Name, clusterType: s.ct.Metadata.Name, diag: s.schemaLimit(schema.name, schema.platform, le)})
			return false
		case err != nil:
			s.fail(model.SeverityError, "Invalid config schema", "", fmt.Sprintf("%s: %v", schema.name, err))
			return false
		}
		if v := s.job.validation(key, compiled, config); v != nil {
			sev := model.SeverityError
			if s.job.opts.ConfigValidation == ConfigValidationWarn {
				sev = model.SeverityWarning
				s.out.skipped = true
			}
			s.out.diags = append(s.out.diags, assignmentDiag{target: s.t.Name, clusterType: s.ct.Metadata.Name, diag: s.violation(sev, match, schema.name, v)})
			return false
		}
	}
	return true
}

// schemaLimit is the diagnostic of a config schema over a limit: about the ConfigSchema (the platform's)
// or the Workload whose deployment target carries the schema (the application team's).
func (s *assignmentRender) schemaLimit(schemaName, platform string, le *platformconfig.LimitError) model.Diagnostic {
	d := model.Diagnostic{Severity: model.SeverityError, Summary: SummaryRenderLimit}
	attr, now := AttrSchemaMaxBytes, fmt.Sprintf("%d bytes", le.Limit)
	if le.Depth {
		attr, now = AttrSchemaMaxDepth, fmt.Sprintf("%d levels", le.Limit)
	}
	var who string
	if platform != "" {
		who = fmt.Sprintf("ConfigSchema %q (a platform schema)", platform)
		d.Kind, d.Name, d.Source = model.KindConfigSchema, platform, s.job.set.Source(model.KindConfigSchema, platform)
	} else {
		who = fmt.Sprintf("%s of deployment target %q, from Workload %q (an application team's schema)",
			strings.TrimPrefix(schemaName, "deployment target "), s.t.Name, s.t.Workload)
		d.Kind, d.Name, d.Source = model.KindWorkload, s.t.Workload, s.job.set.Source(model.KindWorkload, s.t.Workload)
	}
	d.Detail = fmt.Sprintf("%s: %v, so it was not compiled. Simplify the schema; if it really needs more, %s (now %s)", who, le, raise(attr), now)
	d.Option = attr
	return d
}

// violation is the diagnostic of a config that schema rejects. It is about the ConfigMap that holds the
// rejected value (the last one merged: it wins for a scalar), so that identical violations on several
// cluster types are one diagnostic pointing at the document to fix. A missing value is held by no
// ConfigMap: the diagnostic is then about the schema that requires it (or the cluster type, for a
// deployment target's own schema).
func (s *assignmentRender) violation(sev model.Severity, match platformconfig.Target, schemaName string, v *platformconfig.Violation) model.Diagnostic {
	d := model.Diagnostic{Severity: sev, Summary: "Platform config violates schema", Option: OptionConfigValidation}
	top, _, _ := strings.Cut(strings.TrimPrefix(v.Field, "/"), "/")
	var holders []platformconfig.Holder
	if top != "" {
		holders = s.job.sources.Holders(match, top)
	}
	if len(holders) == 0 {
		d.Detail = fmt.Sprintf("%s rejects field %s: %s. No platform ConfigMap that matches the assignment sets %q: add it to one, "+
			"or change the schema", schemaName, v.Field, v.Message, top)
		if name, ok := strings.CutPrefix(schemaName, "ConfigSchema "); ok {
			d.Kind, d.Name, d.Source = model.KindConfigSchema, name, s.job.set.Source(model.KindConfigSchema, name)
		} else {
			d.Kind, d.Name, d.Source = model.KindClusterType, s.ct.Metadata.Name, s.src
		}
		if top == "" {
			d.Detail = fmt.Sprintf("%s rejects the platform config: %s. Add the missing keys to a platform ConfigMap that matches the assignment, "+
				"or change the schema", schemaName, strings.TrimPrefix(v.Message, "at '': "))
		}
		return d
	}
	h := holders[len(holders)-1]
	d.Kind, d.Name, d.Field, d.Source = model.KindConfigMap, h.ConfigMap, "data."+h.DataKey, s.job.set.Source(model.KindConfigMap, h.ConfigMap)
	d.Detail = fmt.Sprintf("%s rejects field %s: %s. Fix %s in ConfigMap %q", schemaName, v.Field, v.Message, h.DataKey, h.ConfigMap)
	if len(holders) > 1 {
		others := make([]string, 0, len(holders)-1)
		for _, o := range holders[:len(holders)-1] {
			others = append(others, fmt.Sprintf("%q", o.ConfigMap))
		}
		d.Detail += fmt.Sprintf(" (also set by ConfigMap %s, merged first)", strings.Join(others, ", "))
	}
	return d
}

// templateData is what the assignment's templates see.
func (s *assignmentRender) templateData(config map[string]interface{}) *templating.Data {
	return &templating.Data{
		DeploymentTargetName: s.t.Name,
		Namespace:            s.a.Namespace,
		Environment:          s.job.environment,
		Workspace:            s.t.Workspace,
		Workload:             s.t.Workload,
		Labels:               s.t.Labels,
		Manifests:            s.t.Manifests,
		ClusterType:          s.ct.Metadata.Name,
		ConfigData:           config,
		ConfigFrozen:         true,
	}
}

// templateUse is one file of an assignment: the cluster type field that names its template, the
// template's name, the file's name (the platform config's without its extension) and the template type
// the field names.
type templateUse struct{ field, name, file, kind string }

// fileTemplates are the assignment's three files, in the order they are rendered.
func (s *assignmentRender) fileTemplates() [3]templateUse {
	configType := s.ct.Spec.ConfigType
	if configType == "" {
		configType = model.DefaultConfigType
	}
	return [3]templateUse{
		{"spec.reconciler", s.ct.Spec.Reconciler, model.ReconcilerFile, model.TemplateTypeReconciler},
		{"spec.namespaceService", s.ct.Spec.NamespaceService, model.NamespaceFile, model.TemplateTypeNamespace},
		{"spec.configType", configType, model.PlatformConfigFile, model.TemplateTypeConfig},
	}
}

// renderFile renders one file of the assignment within the render's limits. write is false for a file
// the tree leaves out (an empty platform config); ok is false when the assignment stops here.
func (s *assignmentRender) renderFile(use templateUse, data *templating.Data) (f renderedFile, write, ok bool) {
	tmpl, found := s.job.templates[use.name]
	if !found {
		s.fail(model.SeverityError, "Missing template", use.field, s.job.missingTemplate(use))
		s.out.diags[len(s.out.diags)-1].acrossClusterTypes = true
		return f, false, false
	}
	out, shapes, ok := s.execute(use, tmpl, data)
	if !ok {
		return f, false, false
	}
	content := fileContent(out)
	if !s.job.countOutput(content, s.a.Path, use.file) {
		return f, false, false
	}
	if !writesFile(use.file, content) {
		return f, false, true
	}
	file := fileName(use.file, tmpl.Spec.ContentType)
	s.checkYAML(use, tmpl, file, out, shapes)
	s.checkDocuments(use, tmpl, file, out, shapes)
	return renderedFile{filePath(s.a.Path, file), content}, true, true
}

// missingTemplate says that use names no template, and which names the field accepts: the templates of
// its type, from the input and built in, with the one its name is a likely typo of.
func (j *assignmentJob) missingTemplate(use templateUse) string {
	var names []string
	for n, t := range j.templates {
		if t.Spec.Type == use.kind || t.Spec.Type == "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	detail := fmt.Sprintf("template %q is not in the input and is not built in; the %s templates are %s", use.name, use.kind, abbreviate(quoted, 20))
	if near := nearestName(use.name, names); near != "" {
		detail += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return detail + fmt.Sprintf(". Add a Template named %q of type %s, or change %s to one of them", use.name, use.kind, use.field)
}

// nearestName is the one name within two edits of name (case ignored), or "" when none or several are.
func nearestName(name string, names []string) string {
	found := ""
	for _, n := range names {
		if editDistance(strings.ToLower(name), strings.ToLower(n)) <= 2 {
			if found != "" {
				return ""
			}
			found = n
		}
	}
	return found
}

// editDistance is the Levenshtein distance of a and b, in bytes (template names are DNS names, ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// execute runs the template within the template timeout (or the render's deadline, if sooner) and
// output limit. A limit stops the whole render; any other template error fails the assignment.
func (s *assignmentRender) execute(use templateUse, tmpl *model.Template, data *templating.Data) ([]string, []templating.Shape, bool) {
	j := s.job
	deadline := time.Now().Add(j.tmplTimeout)
	if d, ok := j.ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	lim := templating.Limits{Context: j.ctx, Deadline: deadline, MaxOutput: j.tmplMax}
	var out []string
	var shapes []templating.Shape
	var err error
	if len(tmpl.Spec.Objects) > 0 {
		out, err = executeObjects(j.engine.templates, j.execMemo, j.legacyObjects(tmpl), data, lim)
		shapes = make([]templating.Shape, len(out)) // no memo: each text is checked
	} else {
		out, shapes, err = j.engine.templates.ExecuteAllMemo(j.execMemo, tmpl.Spec.Manifests, data, lim)
	}
	if le, ok := templating.AsLimitError(err); ok {
		base := model.Diagnostic{Severity: model.SeverityError, Source: s.src, Kind: model.KindClusterType, Name: s.ct.Metadata.Name, Field: use.field}
		if d, ok := j.limitDiagnostic(le, base, use.name, s.t, s.ct.Metadata.Name); ok {
			d.Detail = fmt.Sprintf("%s (%s)", d.Detail, strings.SplitN(err.Error(), ":", 2)[0])
			j.stopWith(d)
		}
		return nil, nil, false
	}
	if err != nil {
		s.fail(model.SeverityError, "Template failed", use.field, fmt.Sprintf("Template %q %v", use.name, err))
		return nil, nil, false
	}
	return out, shapes, true
}

// countOutput adds a file's content to the size of the rendered tree; past the render's output limit
// it stops the whole render and returns false.
func (j *assignmentJob) countOutput(content, folder, file string) bool {
	if total := j.written.Add(int64(len(content))); total > j.maxOutput {
		j.stopWith(model.Diagnostic{Severity: model.SeverityError, Summary: SummaryRenderLimit, Source: model.NoSource, Option: AttrMaxOutput,
			Detail: fmt.Sprintf("the rendered tree of environment %q grew past %d bytes (at %s/%s); %s if the fleet really is that large",
				j.environment, j.maxOutput, folder, file, raise(AttrMaxOutput))})
		return false
	}
	return true
}

// checkYAML warns about each manifest of an input template that rendered text that is not YAML into a
// .yaml file. Built-in templates quote every value they insert, so they are not checked.
//
// shapes are the outputs' templating.Shapes: texts of one Shape parse alike, so a valid verdict is
// shared by them without reading the text (yamlChecker.invalid would mask the same names and hash it).
func (s *assignmentRender) checkYAML(use templateUse, tmpl *model.Template, file string, out []string, shapes []templating.Shape) {
	if !strings.HasSuffix(file, ".yaml") || builtins.is(use.name, tmpl) {
		return
	}
	for i, m := range out {
		if s.job.yamlChecks.validShape(shapes[i]) {
			continue
		}
		if !s.masksReady {
			// The names that vary between assignments. The environment is the same in every text of a
			// render, and the namespace is environment-clusterType-target (Schedule), whose varying parts
			// are masked here anyway: searching for either cost a pass over the text and masked nothing
			// more. They are prepared once for the assignment's texts.
			s.masks, s.masksReady = newMaskNames([]string{s.t.Name, s.ct.Metadata.Name, s.t.Workload}), true
		}
		err := s.job.yamlChecks.invalidMasked(m, &s.masks)
		if err == nil {
			s.job.yamlChecks.storeShape(shapes[i], m)
			continue
		}
		s.out.yamlIssues = append(s.out.yamlIssues, yamlIssue{key: fmt.Sprintf("%s\x00%d", use.name, i), diag: model.Diagnostic{
			Severity: model.SeverityWarning, Summary: SummaryInvalidYAML, Source: s.src, Kind: model.KindClusterType, Name: s.ct.Metadata.Name, Field: use.field,
			Detail: fmt.Sprintf("%s (deployment target %q on cluster type %q): manifests[%d] of Template %q rendered text that is not YAML: %v. "+
				"The file is written as rendered, as upstream Kalypso does, but Flux or Argo CD will fail to apply it; fix the template.",
				filePath(s.a.Path, file), s.t.Name, s.ct.Metadata.Name, i, use.name, err),
		}})
	}
}
