// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package resources builds the Kalypso model objects behind the provider's model resources
// (kalypso_cluster_type, kalypso_scheduling_policy, ...) and their canonical manifests. It has no
// Terraform dependency: internal/provider converts attributes to these plain inputs and back.
package resources

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// Requirement is one match expression of a label selector.
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// Selector is a label selector: match labels and match expressions, all of which must hold.
type Selector struct {
	MatchLabels      map[string]string
	MatchExpressions []Requirement
}

// LabelSelector converts a selector to the Kubernetes type; an empty selector is nil (matches everything).
func (s Selector) LabelSelector() *metav1.LabelSelector {
	if len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: nonEmpty(s.MatchLabels)}
	for _, r := range s.MatchExpressions {
		var values []string
		if len(r.Values) > 0 {
			values = append(values, r.Values...)
		}
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: values,
		})
	}
	return out
}

// nonEmpty returns nil for an empty map so that a marshalled object parses back to the same value.
func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func meta(name string, labels map[string]string) model.ObjectMeta {
	return model.ObjectMeta{Name: name, Labels: nonEmpty(labels)}
}

// ClusterType builds a ClusterType; empty template names take the defaults.
func ClusterType(name string, labels map[string]string, reconciler, namespaceService, configType string) *model.ClusterType {
	if reconciler == "" {
		reconciler = model.DefaultReconciler
	}
	if namespaceService == "" {
		namespaceService = model.DefaultNamespaceService
	}
	if configType == "" {
		configType = model.DefaultConfigType
	}
	return &model.ClusterType{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindClusterType},
		Metadata: meta(name, labels),
		Spec:     model.ClusterTypeSpec{Reconciler: reconciler, NamespaceService: namespaceService, ConfigType: configType},
	}
}

// SchedulingPolicy builds a SchedulingPolicy from its two selectors. Both labelSelectors are always
// written, `{}` when empty (it matches everything): upstream's CRD requires
// spec.deploymentTargetSelector.labelSelector and spec.clusterTypeSelector.labelSelector, so the API
// server rejects a policy without them.
func SchedulingPolicy(name, workspace string, deploymentTargets, clusterTypes Selector) *model.SchedulingPolicy {
	return &model.SchedulingPolicy{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindSchedulingPolicy},
		Metadata: meta(name, nil),
		Spec: model.SchedulingPolicySpec{
			DeploymentTargetSelector: model.DeploymentTargetSelector{Workspace: workspace, LabelSelector: deploymentTargets.requiredLabelSelector()},
			ClusterTypeSelector:      model.ClusterTypeSelector{LabelSelector: clusterTypes.requiredLabelSelector()},
		},
	}
}

// requiredLabelSelector is LabelSelector, with an empty selector instead of nil.
func (s Selector) requiredLabelSelector() *metav1.LabelSelector {
	if sel := s.LabelSelector(); sel != nil {
		return sel
	}
	return &metav1.LabelSelector{}
}

// Template builds a Template.
func Template(name, templateType, contentType string, manifests []string) *model.Template {
	m := append([]string{}, manifests...)
	return &model.Template{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindTemplate},
		Metadata: meta(name, nil),
		Spec:     model.TemplateSpec{Type: templateType, ContentType: contentType, Manifests: m},
	}
}

// PlatformConfig builds a platform ConfigMap. It always carries `platform-config: "true"` so that the
// scheduler reads it, except when its name starts with `azure-app-config`: the scheduler reads those
// anyway, with their own key syntax, and the label would make it read them twice.
func PlatformConfig(name string, labels, data map[string]string) *model.ConfigMap {
	lbls := nonEmpty(labels)
	if !strings.HasPrefix(name, model.AzureAppConfigPrefix) {
		if lbls == nil {
			lbls = map[string]string{}
		}
		lbls[model.PlatformConfigLabel] = "true"
	}
	return &model.ConfigMap{
		TypeMeta: model.TypeMeta{APIVersion: model.ConfigMapAPIVersion, Kind: model.KindConfigMap},
		Metadata: model.ObjectMeta{Name: name, Labels: lbls},
		Data:     nonEmpty(data),
	}
}

// ConfigSchema builds a ConfigSchema.
func ConfigSchema(name string, labels map[string]string, schema string) *model.ConfigSchema {
	return &model.ConfigSchema{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindConfigSchema},
		Metadata: meta(name, labels),
		Spec:     model.ConfigSchemaSpec{Schema: schema},
	}
}

// Registration builds a WorkloadRegistration. source is empty for an inline Workload.
func Registration(name, workspace string, labels map[string]string, source model.RepoRef) *model.WorkloadRegistration {
	return &model.WorkloadRegistration{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindWorkloadRegistration},
		Metadata: meta(name, labels),
		Spec:     model.WorkloadRegistrationSpec{Workload: source, Workspace: workspace},
	}
}

// Target is one deployment target of an inline Workload.
type Target struct {
	Name        string
	Environment string
	Labels      map[string]string
	Manifests   model.RepoRef
}

// InlineWorkload builds the Workload of a registration whose targets are given inline. It has the
// registration's name, so the scheduler links the two without an annotation.
func InlineWorkload(registration string, labels map[string]string, targets []Target) *model.Workload {
	w := &model.Workload{
		TypeMeta: model.TypeMeta{APIVersion: model.APIVersion, Kind: model.KindWorkload},
		Metadata: meta(registration, labels),
	}
	for _, t := range targets {
		w.Spec.DeploymentTargets = append(w.Spec.DeploymentTargets, model.DeploymentTargetSpec{
			Name: t.Name, Environment: t.Environment, Labels: nonEmpty(t.Labels),
			Manifests: map[string]string{"repo": t.Manifests.Repo, "branch": t.Manifests.Branch, "path": t.Manifests.Path},
		})
	}
	return w
}

// Manifest marshals objects as canonical YAML documents joined with `---\n`.
func Manifest(objs ...model.Object) (string, error) {
	var parts []string
	for _, o := range objs {
		s, err := model.Marshal(o)
		if err != nil {
			return "", fmt.Errorf("marshalling %s %q: %w", o.GetKind(), o.GetName(), err)
		}
		parts = append(parts, s)
	}
	return Join(parts...), nil
}

// Join joins YAML documents with `---\n`, adding a newline to a document that lacks one so that the
// separator stays on its own line.
func Join(docs ...string) string {
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.WriteString(d)
		if i < len(docs)-1 && !strings.HasSuffix(d, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// DeploymentTarget is a derived deployment target as the registration resource reports it.
type DeploymentTarget struct {
	// Name is the full name, `<workload>-<target>`.
	Name string
	// Target is the target's own name inside its Workload.
	Target      string
	Workload    string
	Workspace   string
	Environment string
	// Labels are the effective labels the scheduling policies see.
	Labels    map[string]string
	Manifests model.RepoRef
}

// DeploymentTargets derives the deployment targets of a registration's Workloads in every environment
// they name, with the engine's own derivation (full names and effective labels), sorted by name.
func DeploymentTargets(reg *model.WorkloadRegistration, workloads []*model.Workload) ([]DeploymentTarget, error) {
	set := &model.Set{WorkloadRegistrations: []*model.WorkloadRegistration{reg}, Workloads: workloads}
	envs := map[string]bool{}
	short := map[string]string{}
	for _, w := range workloads {
		for _, t := range w.Spec.DeploymentTargets {
			envs[t.Environment] = true
			short[w.Metadata.Name+"-"+t.Name] = t.Name
		}
	}
	names := make([]string, 0, len(envs))
	for e := range envs {
		names = append(names, e)
	}
	sort.Strings(names)
	var out []DeploymentTarget
	for _, env := range names {
		if env == "" {
			continue
		}
		targets, diags := render.DeriveTargets(env, set)
		if errs := diags.Errors(); len(errs) > 0 {
			return nil, &TargetsError{Diagnostics: errs}
		}
		for _, t := range targets {
			out = append(out, DeploymentTarget{
				Name: t.Name, Target: short[t.Name], Workload: t.Workload, Workspace: t.Workspace, Environment: t.Environment,
				Labels:    t.Labels,
				Manifests: model.RepoRef{Repo: t.Manifests["repo"], Branch: t.Manifests["branch"], Path: t.Manifests["path"]},
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// TargetsError is why a Workload's deployment targets cannot be derived. Each diagnostic's Field
// (`spec.deploymentTargets[N].name`) lets a caller point at the configuration that holds target N.
type TargetsError struct {
	Diagnostics model.Diagnostics
}

func (e *TargetsError) Error() string {
	msgs := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		msgs[i] = d.Error()
	}
	return strings.Join(msgs, "; ")
}

// diagError joins the error diagnostics of the model into one error, or returns nil.
func diagError(diags model.Diagnostics) error {
	errs := diags.Errors()
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, d := range errs {
		msgs[i] = d.Error()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
