// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"slices"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// Built-in templates give a new user a working tree without writing any template. They are used only
// when the input defines no template of the same name, and target the current APIs of their reconcilers.
//
// builtins is the one list of them (the registry): the render's template lookup, the deployability
// checks, the apiVersion warning's table of served kinds, the cluster_type schema's description, the
// templates guide's checks and the tests that validate every rendered document against the real CRDs
// all read it. Adding one is a file builtin_<name>.go that defines it, a line here, its CRD under
// testdata/crds and its section in templates/guides/templates.md.tmpl (the tests name what is missing).
var builtins = newBuiltinRegistry(
	arcFluxBuiltin,
	argoCDBuiltin,
	rancherFleetBuiltin,
	defaultNamespaceBuiltin,
	configMapBuiltin,
)

// A builtin is one built-in template and what the engine knows about what it writes.
type builtin struct {
	template *model.Template
	// reconciler is, for a template of type reconciler, the project it configures and the kinds its
	// documents have; nil for the namespace and config templates.
	reconciler *reconcilerProject
	// writesNamespace says where the template writes .Namespace into a field the API server validates
	// ("as the Namespace's name"); "" when the deployability check does not hold it to a namespace name.
	writesNamespace string
	// labels are the label values the template writes, by key; nil when it writes none from the input.
	labels func(environment string, t *DeploymentTarget) map[string]string
	// check reports the values the template copies where the cluster refuses them; nil when there are none
	// beyond the namespace and the labels.
	check func(t *DeploymentTarget, config map[string]interface{}) []builtinIssue
	// docClusterType is the cluster type that uses a reconciler in the templates guide's example model.
	docClusterType string
}

// A reconcilerProject is a GitOps reconciler whose objects a built-in reconciler template writes.
type reconcilerProject struct {
	// name is how warnings call it ("Flux").
	name string
	// kinds are the kinds of the documents the template writes, with the versions the project's current
	// CRDs serve (the copies under testdata/crds; TestServedVersionsMatchTheCRDs holds them equal).
	kinds []servedKind
}

// servedKind is one kind of a reconciler's API group and the versions its CRD serves.
type servedKind struct {
	group, kind string
	versions    []string
}

// builtinIssue is one value a built-in template writes that the cluster refuses: an error of the
// cluster type that uses the template, at field.
type builtinIssue struct{ summary, field, detail string }

// builtinRegistry indexes the built-in templates.
type builtinRegistry struct {
	ordered []*builtin
	byName  map[string]*builtin
	// served is, for each kind a reconciler template writes, the versions its CRD serves and the project
	// that serves it: the table of the apiVersion warning.
	served map[groupKind]servedBy
	// groups are the API groups of served, longest first: a document that names none of them has no
	// apiVersion to warn about (mentionsReconcilerGroup).
	groups []string
}

// servedBy is an entry of builtinRegistry.served.
type servedBy struct {
	versions []string
	project  string
}

// groupKind is a Kubernetes API group and kind.
type groupKind struct{ group, kind string }

// newBuiltinRegistry indexes bs; a name or a kind that two of them claim is a programming error.
func newBuiltinRegistry(bs ...*builtin) *builtinRegistry {
	r := &builtinRegistry{ordered: bs, byName: map[string]*builtin{}, served: map[groupKind]servedBy{}}
	for _, b := range bs {
		name := b.template.Metadata.Name
		if _, dup := r.byName[name]; dup {
			panic(fmt.Sprintf("render: built-in template %q is registered twice", name))
		}
		r.byName[name] = b
		if b.reconciler == nil {
			continue
		}
		if b.template.Spec.Type != model.TemplateTypeReconciler || b.docClusterType == "" {
			panic(fmt.Sprintf("render: built-in template %q has a reconciler project but is not a documented reconciler template", name))
		}
		for _, k := range b.reconciler.kinds {
			gk := groupKind{k.group, k.kind}
			if prev, dup := r.served[gk]; dup && prev.project != b.reconciler.name {
				panic(fmt.Sprintf("render: %s/%s is served by both %s and %s", k.group, k.kind, prev.project, b.reconciler.name))
			}
			r.served[gk] = servedBy{versions: k.versions, project: b.reconciler.name}
			if !slices.Contains(r.groups, k.group) {
				r.groups = append(r.groups, k.group)
			}
		}
	}
	slices.SortFunc(r.groups, func(a, b string) int { return len(b) - len(a) })
	return r
}

// is reports whether tmpl is the built-in template name (and not an input template of that name).
func (r *builtinRegistry) is(name string, tmpl *model.Template) bool {
	b, ok := r.byName[name]
	return ok && b.template == tmpl
}

// BuiltinReconciler is a built-in template of type reconciler and the project it configures.
type BuiltinReconciler struct {
	Name    string // the template's name, for example "arc-flux"
	Project string // the project, for example "Flux"
}

// BuiltinReconcilers lists the built-in templates of type reconciler in the registry's order, for the
// cluster_type schema's description and for the tests that name them all.
func BuiltinReconcilers() []BuiltinReconciler {
	var out []BuiltinReconciler
	for _, b := range builtins.ordered {
		if b.reconciler != nil {
			out = append(out, BuiltinReconciler{Name: b.template.Metadata.Name, Project: b.reconciler.name})
		}
	}
	return out
}

// scheduledLabels are the labels every built-in reconciler template writes on its objects, so that a
// cluster's objects can be traced to the workload and deployment target.
func scheduledLabels(_ string, t *DeploymentTarget) map[string]string {
	return map[string]string{
		"scheduler.kalypso.io/workload":          t.Workload,
		"scheduler.kalypso.io/deployment-target": t.Name,
	}
}

// reconcilerTemplate is a built-in reconciler template of manifests.
func reconcilerTemplate(name string, manifests ...string) *model.Template {
	return &model.Template{
		Metadata: model.ObjectMeta{Name: name},
		Spec:     model.TemplateSpec{Type: model.TemplateTypeReconciler, Manifests: manifests},
	}
}
