// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// rolloutSources is the one list of the places clusters report to about the GitOps commits (the rollout
// sources): kalypso_rollout, kalypso_gitops_commit's rollout and each environment of
// kalypso_fleet_status take exactly one of them, each as a block named after it. The block's schema,
// which block is configured, how its source is built, which errors of a read are its own to explain
// (and how), and what to check when no cluster reported all come from here, so a read that fails is
// explained by the source that was configured, never by another.
//
// Adding a source is: a rolloutSourceKind in a file of its own (rollout_source_<attr>.go: its schema,
// model, build and errors), a line here, its field in rolloutSourceBlocks, its test, and its docs.
// The three consumers loop over this list for their schemas and read the block through the one
// embedded struct.
var rolloutSources = []*rolloutSourceKind{githubStatusesSource, azureResourceGraphSource}

// rolloutSourceBlocks holds one field per rollout source, named by its block. kalypso_rollout's model,
// kalypso_gitops_commit's rollout and kalypso_fleet_status's environments embed it by value (the
// framework promotes an embedded struct's tfsdk fields), so a new source's field is added once, here.
type rolloutSourceBlocks struct {
	GitHubStatuses types.Object `tfsdk:"github_statuses"`
	AzureGraph     types.Object `tfsdk:"azure_resource_graph"`
}

// rolloutSourceUse says where a source's block is shown, for its descriptions: in kalypso_rollout
// (kalypso_fleet_status's environments show the same) or in kalypso_gitops_commit's rollout, whose
// descriptions point at kalypso_rollout's.
type rolloutSourceUse int

const (
	inRolloutDataSource rolloutSourceUse = iota
	inGitopsCommit
)

// rolloutSourceKind is one kind of rollout source.
type rolloutSourceKind struct {
	// attr names the block, in kalypso_rollout and in kalypso_gitops_commit's rollout.
	attr string
	// block returns the source's field of the consumers' embedded rolloutSourceBlocks.
	block func(*rolloutSourceBlocks) types.Object
	// schema is the block, as shown where use says, in the data source schema package; the resource's
	// form is derived from it (sourceResourceAttribute). exactlyOne is the sentence that says exactly one
	// source's block is required, for its description.
	schema func(use rolloutSourceUse, exactlyOne string) dsschema.SingleNestedAttribute
	// build makes the source of the block obj (at: its attribute path) for branch of the GitOps
	// repository repoURL, refusing more than limit clusters.
	build func(ctx context.Context, pd *ProviderData, obj types.Object, at path.Path, repoURL, branch string, limit int, diags diag.Diagnostics) (rollout.Source, diag.Diagnostics)
	// explain adds the diagnostic of an error of a read from this source that is its own (at: the
	// block's path) and reports true, or reports false for an error it does not know.
	explain func(err error, env string, at path.Path, diags *diag.Diagnostics) bool
	// fallback is the diagnostic's detail for any other error of a read from this source.
	fallback func(err error) string
	// noReportHint says what to check when no expected cluster reported through src.
	noReportHint func(src rollout.Source) string
}

// rolloutSourceNames is "`a` and `b`" (or "`a`, `b` and `c`") of the sources' blocks, for descriptions.
func rolloutSourceNames() string {
	names := make([]string, len(rolloutSources))
	for i, s := range rolloutSources {
		names[i] = "`" + s.attr + "`"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// exactlyOneSentence says, in a block's description, that exactly one source's block is required.
func exactlyOneSentence() string { return "Exactly one of " + rolloutSourceNames() + " is required." }

// isRolloutSource reports whether name is a source's block.
func isRolloutSource(name string) bool {
	for _, s := range rolloutSources {
		if s.attr == name {
			return true
		}
	}
	return false
}

// source returns the source whose block b sets, the first one when none is (the configuration
// validators refuse that before a read), and its block.
func (b *rolloutSourceBlocks) source() (*rolloutSourceKind, types.Object) {
	for _, s := range rolloutSources {
		if obj := s.block(b); !obj.IsNull() {
			return s, obj
		}
	}
	return rolloutSources[0], rolloutSources[0].block(b)
}

// exactlyOneSource is the validator of the first source's block where a configuration validator
// cannot reach (inside kalypso_gitops_commit's rollout, inside each of kalypso_fleet_status's
// environments): exactly one of the sibling blocks is set.
func exactlyOneSource(s *rolloutSourceKind) []validator.Object {
	if s != rolloutSources[0] || len(rolloutSources) == 1 {
		return nil
	}
	others := make([]path.Expression, 0, len(rolloutSources)-1)
	for _, o := range rolloutSources[1:] {
		others = append(others, path.MatchRelative().AtParent().AtName(o.attr))
	}
	return []validator.Object{objectvalidator.ExactlyOneOf(others...)}
}

// rolloutSourceDataSourceAttributes are the sources' blocks of a data source: kalypso_rollout's at the
// root (nested is false: its configuration validator says exactly one), kalypso_fleet_status's inside
// each environment (nested: the first block's validator says it).
func rolloutSourceDataSourceAttributes(nested bool) map[string]dsschema.Attribute {
	out := make(map[string]dsschema.Attribute, len(rolloutSources))
	for _, s := range rolloutSources {
		a := s.schema(inRolloutDataSource, exactlyOneSentence())
		if nested {
			a.Validators = exactlyOneSource(s)
		}
		out[s.attr] = a
	}
	return out
}

// rolloutSourceResourceAttributes are the sources' blocks inside kalypso_gitops_commit's rollout.
func rolloutSourceResourceAttributes() map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(rolloutSources))
	for _, s := range rolloutSources {
		a := s.schema(inGitopsCommit, exactlyOneSentence())
		a.Validators = exactlyOneSource(s)
		out[s.attr] = sourceResourceAttribute(a)
	}
	return out
}

// sourceResourceAttribute is the resource schema's form of a source block's attribute a, written in the data
// source schema package: the two packages have a type per attribute kind with the same fields. It
// knows the kinds the sources' blocks use; another kind is a bug in a new source, caught by every test
// that builds a schema.
func sourceResourceAttribute(a dsschema.Attribute) rschema.Attribute {
	switch a := a.(type) {
	case dsschema.StringAttribute:
		return rschema.StringAttribute{Optional: a.Optional, Required: a.Required, Computed: a.Computed, Sensitive: a.Sensitive,
			Description: a.Description, MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage,
			CustomType: a.CustomType, Validators: a.Validators}
	case dsschema.ListAttribute:
		return rschema.ListAttribute{ElementType: a.ElementType, Optional: a.Optional, Required: a.Required, Computed: a.Computed, Sensitive: a.Sensitive,
			Description: a.Description, MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage,
			CustomType: a.CustomType, Validators: a.Validators}
	case dsschema.SingleNestedAttribute:
		attrs := make(map[string]rschema.Attribute, len(a.Attributes))
		for name, inner := range a.Attributes {
			attrs[name] = sourceResourceAttribute(inner)
		}
		return rschema.SingleNestedAttribute{Attributes: attrs, Optional: a.Optional, Required: a.Required, Computed: a.Computed, Sensitive: a.Sensitive,
			Description: a.Description, MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage,
			CustomType: a.CustomType, Validators: a.Validators}
	}
	panic(fmt.Sprintf("a rollout source's block uses a %T: teach sourceResourceAttribute that kind", a)) // a bug caught by every test
}

// rolloutError words an error of a read from src at the attribute to fix: the errors of the GitOps
// branch and of the expectations first, then the source's own, then the source's fallback.
func rolloutError(err error, env string, src *rolloutSourceKind) diag.Diagnostics {
	var diags diag.Diagnostics
	at := path.Root(src.attr)
	if rolloutCommonError(err, env, at, &diags) || src.explain(err, env, at, &diags) {
		return diags
	}
	diags.AddAttributeError(at, "Cannot read the rollout of "+env, src.fallback(err))
	return diags
}
