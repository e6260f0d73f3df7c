// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package render is the Kalypso scheduling engine: it derives deployment targets, schedules them onto
// cluster types, composes platform config and renders the GitOps tree, byte for byte as upstream does.
//
// A render runs in the order of its files: render.go (Engine.Render, Options, Result) checks the input,
// targets.go derives the deployment targets, schedule.go places them on cluster types, assignment.go
// renders each assignment on parallel workers (validate, render each file, check its YAML), and tree.go
// lays the files out as <clusterType>/<deploymentTarget>/<file> and hashes them.
package render

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

const (
	ConfigValidationError = "error"
	ConfigValidationWarn  = "warn"
	// OptionConfigValidation is the Diagnostic.Option of a schema violation: ConfigValidation = "warn"
	// makes it a warning that skips the assignment.
	OptionConfigValidation = "config_validation"
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
	// SchemaMaxDepth and SchemaMaxBytes bound each config schema (platformconfig.Limits); 0 means the defaults.
	SchemaMaxDepth, SchemaMaxBytes int
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
	AttrSchemaMaxDepth    = "config_schema_max_depth"
	AttrSchemaMaxBytes    = "config_schema_max_bytes"
	// AttrOnlyClusterTypes narrows a render to some cluster types' folders (Result.Only).
	AttrOnlyClusterTypes = "only_cluster_types"
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

// Result is everything a render produces.
type Result struct {
	Environment string
	Assignments []Assignment
	// Files maps each path of the GitOps tree (laid out as tree.go says) to its content.
	Files        map[string]string
	Unscheduled  []string
	ClusterTypes []string
	// PromotedCommit is spec.commit of the BaseRepo named `main`; kalypso_gitops_commit writes it.
	PromotedCommit string
	ContentHash    string
}

// Engine renders environments; it caches parsed templates, the template functions' memos and compiled
// schemas across calls. Its owner builds it once (the provider's Caches) and keeps it; renders on
// different engines share nothing.
type Engine struct {
	templates *templating.Engine
	schemas   *platformconfig.SchemaCache
}

// NewEngine returns an engine with empty caches.
func NewEngine() *Engine {
	return &Engine{templates: templating.NewEngine(), schemas: platformconfig.NewSchemaCache()}
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
	if diags := checkInput(environment, set, opts); len(diags) > 0 {
		return nil, diags
	}
	targets, diags := DeriveTargets(environment, set)
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
	diags = append(diags, nonDeterministicWarnings(set)...)
	diags = append(diags, legacyTemplateWarnings(set)...)

	res := newTree(environment, set, len(assignments))
	res.Unscheduled = unscheduledTargets(targets, assignments)
	if len(res.Unscheduled) > 0 {
		diags = append(diags, unscheduledWarning(environment, res.Unscheduled))
	}

	rendered, ds := e.renderAssignments(environment, set, targets, assignments, opts)
	diags = append(diags, ds...)
	if diags.HasError() {
		return nil, diags
	}
	lay := layoutTree(res, assignments, rendered)
	// Both only read the tree, and at 86k assignments each walks 258k files on one core (sorting the paths,
	// summing the sizes by workload): side by side they take the time of the longer.
	var sizeWarning model.Diagnostic
	var tooLarge bool
	parallel.For(2, opts.Parallelism, func(i int) {
		if i == 0 {
			paths, contents := lay.sortedPaths(res.Files)
			res.ContentHash = contentHash(res.Files, paths, contents)
		} else {
			sizeWarning, tooLarge = treeSizeWarning(res, assignments, lay)
		}
	})
	if tooLarge {
		diags = append(diags, sizeWarning)
	}
	return res, diags
}

// checkInput rejects what no render can start from: no environment, an unknown config_validation, and
// cluster type names that cannot be folder names. Every diagnostic it returns is an error.
func checkInput(environment string, set *model.Set, opts Options) model.Diagnostics {
	if environment == "" {
		return model.Diagnostics{{Severity: model.SeverityError, Summary: "Missing environment", Source: model.NoSource, Detail: "set `environment` to the name of the environment to render, for example \"dev\""}}
	}
	switch opts.ConfigValidation {
	case "", ConfigValidationError, ConfigValidationWarn:
	default:
		return model.Diagnostics{{Severity: model.SeverityError, Summary: "Invalid config_validation", Source: model.NoSource, Detail: fmt.Sprintf("%q is not \"error\" or \"warn\"", opts.ConfigValidation)}}
	}
	// Cluster type names become folder names. The codec validates them, but a programmatically built set
	// may not have gone through it, and nothing may ever be written outside the tree.
	var diags model.Diagnostics
	for _, ct := range set.ClusterTypes {
		if msgs := validation.IsDNS1123Subdomain(ct.Metadata.Name); len(msgs) > 0 {
			diags = append(diags, model.Diagnostic{
				Severity: model.SeverityError, Summary: "Invalid object name", Source: set.Source(model.KindClusterType, ct.Metadata.Name),
				Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: "metadata.name",
				Detail: fmt.Sprintf("cluster type name %q is not a DNS-1123 subdomain, so it cannot be a folder of the GitOps tree: %s", ct.Metadata.Name, strings.Join(msgs, "; ")),
			})
		}
	}
	return diags
}
