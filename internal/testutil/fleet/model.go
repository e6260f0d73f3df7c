// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package fleet generates synthetic, deterministic Kalypso control planes for
// benchmarks and scale tests. It has no dependency on Terraform or on the
// scheduling engine, so the engine can be measured against inputs it did not
// help to produce, and the expected assignment count comes from an
// independent, deliberately naive implementation of the selection rules.
package fleet

// Label selector operators, as in Kubernetes' metav1.LabelSelectorRequirement.
const (
	OperatorIn           = "In"
	OperatorNotIn        = "NotIn"
	OperatorExists       = "Exists"
	OperatorDoesNotExist = "DoesNotExist"
)

// ClusterType is one generated cluster type. Every cluster type uses the
// fixture templates: reconciler arc-flux (or Reconciler), namespace default,
// config configmap.
type ClusterType struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	// Reconciler is the reconciler template when it is not arc-flux
	// (ShapeTutorial only; the HCL baseline knows only arc-flux).
	Reconciler string `json:"-"`
}

// Manifests says where a deployment target's application manifests live.
type Manifests struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

// DeploymentTarget is one entry of a Workload's spec.deploymentTargets.
type DeploymentTarget struct {
	Name        string            `json:"name"`
	Environment string            `json:"environment"`
	Labels      map[string]string `json:"labels"`
	Manifests   Manifests         `json:"manifests"`
}

// Workload is a Workload together with the WorkloadRegistration that links
// it to a workspace.
type Workload struct {
	Name string `json:"name"`
	// Registration is the WorkloadRegistration's name. When it differs from
	// Name the Workload carries the scheduler.kalypso.io/registration
	// annotation, which is how upstream links them.
	Registration      string             `json:"registration"`
	Workspace         string             `json:"workspace"`
	Labels            map[string]string  `json:"labels"`
	DeploymentTargets []DeploymentTarget `json:"deployment_targets"`
	// ConfigSchemas are the Workload's spec.configSchemas (Spec.WorkloadSchemas).
	ConfigSchemas []string `json:"-"`
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

// Selector is a Kubernetes label selector. The zero value matches everything.
type Selector struct {
	MatchLabels      map[string]string `json:"match_labels"`
	MatchExpressions []Requirement     `json:"match_expressions"`
}

// IsEmpty reports whether the selector has no terms, and so matches everything.
func (s Selector) IsEmpty() bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// SchedulingPolicy maps deployment targets to cluster types.
type SchedulingPolicy struct {
	Name string `json:"name"`
	// Workspace restricts the policy to deployment targets of one workspace
	// when it is not empty.
	Workspace                string   `json:"workspace"`
	DeploymentTargetSelector Selector `json:"deployment_target_selector"`
	ClusterTypeSelector      Selector `json:"cluster_type_selector"`
}

// ConfigValue is one value of a platform ConfigMap. In the ConfigMap it is
// always a string; Map and List values are written as YAML text, which the
// scheduler parses back into structure. Exactly one field is set.
type ConfigValue struct {
	Scalar string
	Map    map[string]string
	List   []string
}

// PlatformConfig is a ConfigMap labelled platform-config: "true".
type PlatformConfig struct {
	Name string `json:"name"`
	// Labels excludes the platform-config label itself, which every
	// generated config map carries.
	Labels map[string]string      `json:"labels"`
	Data   map[string]ConfigValue `json:"data"`
	// AzureAppConfig marks a map named azure-app-config*: written without the platform-config label, its
	// keys read `label.value.KEY` (Spec.AzureAppConfig). Labels is then empty.
	AzureAppConfig bool `json:"-"`
}
