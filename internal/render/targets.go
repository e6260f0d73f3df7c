// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

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

// DeriveTargets links every Workload to its registration and derives the deployment targets of the environment.
func DeriveTargets(environment string, set *model.Set) ([]*DeploymentTarget, model.Diagnostics) {
	var diags model.Diagnostics
	registrations := make(map[string]*model.WorkloadRegistration, len(set.WorkloadRegistrations))
	for _, r := range set.WorkloadRegistrations {
		registrations[r.Metadata.Name] = r
	}
	var targets []*DeploymentTarget
	seen := map[string]string{} // deployment target name → the workload it was derived from
	for _, w := range set.Workloads {
		src := set.Source(model.KindWorkload, w.Metadata.Name)
		workspace, d, ok := workloadWorkspace(w, registrations, src)
		if d != nil {
			diags = append(diags, *d)
		}
		if !ok {
			continue
		}
		for i, t := range w.Spec.DeploymentTargets {
			if t.Environment != environment {
				continue
			}
			target, d := deriveTarget(w, i, t, workspace, src, seen)
			if d != nil {
				diags = append(diags, *d)
				continue
			}
			targets = append(targets, target)
		}
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Name < targets[j].Name })
	return targets, diags
}

// workloadWorkspace is the workspace of the Workload's registration: the one its annotation names, else
// the one named like the Workload, else "" with a warning. ok is false when the annotation names a
// registration that is not in the input, which is an error and derives no target.
func workloadWorkspace(w *model.Workload, registrations map[string]*model.WorkloadRegistration, src model.Source) (string, *model.Diagnostic, bool) {
	if regName, ok := w.Metadata.Annotations[model.RegistrationAnnotation]; ok && regName != "" {
		reg, found := registrations[regName]
		if !found {
			return "", &model.Diagnostic{
				Severity: model.SeverityError, Summary: "Workload names a missing WorkloadRegistration", Source: src,
				Kind: model.KindWorkload, Name: w.Metadata.Name, Field: "metadata.annotations." + model.RegistrationAnnotation,
				Detail: fmt.Sprintf("no WorkloadRegistration named %q is in the input; add it or fix the annotation", regName),
			}, false
		}
		return reg.Spec.Workspace, nil, true
	}
	if reg, found := registrations[w.Metadata.Name]; found {
		return reg.Spec.Workspace, nil, true
	}
	return "", &model.Diagnostic{
		Severity: model.SeverityWarning, Summary: "Workload has no WorkloadRegistration", Source: src,
		Kind: model.KindWorkload, Name: w.Metadata.Name,
		Detail: fmt.Sprintf("no WorkloadRegistration is named %q and the Workload has no %s annotation, so its workspace is \"\"", w.Metadata.Name, model.RegistrationAnnotation),
	}, true
}

// deriveTarget derives the deployment target `<workload>-<target>` from the Workload's i-th target t:
// its labels are the target's, then the Workload's, then the workload and workspace labels, each
// overriding the one before. seen, the names derived so far, catches a name derived twice.
func deriveTarget(w *model.Workload, i int, t model.DeploymentTargetSpec, workspace string, src model.Source, seen map[string]string) (*DeploymentTarget, *model.Diagnostic) {
	name := w.Metadata.Name + "-" + t.Name
	field := fmt.Sprintf("spec.deploymentTargets[%d].name", i)
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return nil, &model.Diagnostic{
			Severity: model.SeverityError, Summary: "Invalid deployment target name", Source: src, Kind: model.KindWorkload, Name: w.Metadata.Name, Field: field,
			Detail: fmt.Sprintf("the deployment target name %q (<workload>-<target>) is not a DNS-1123 subdomain: %s", name, strings.Join(msgs, "; ")),
		}
	}
	if other, dup := seen[name]; dup {
		return nil, &model.Diagnostic{
			Severity: model.SeverityError, Summary: "Duplicate deployment target", Source: src, Kind: model.KindWorkload, Name: w.Metadata.Name, Field: field,
			Detail: fmt.Sprintf("deployment target %q is also derived from workload %q; rename one target", name, other),
		}
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
	return &DeploymentTarget{
		Name: name, Workload: w.Metadata.Name, Workspace: workspace, Environment: t.Environment,
		Labels: lbls, Manifests: t.Manifests, ConfigSchemas: schemas,
	}, nil
}
