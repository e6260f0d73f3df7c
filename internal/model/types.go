// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// APIVersion is the apiVersion of every Kalypso kind.
	APIVersion = "scheduler.kalypso.io/v1alpha1"
	// ConfigMapAPIVersion is the apiVersion of platform ConfigMaps.
	ConfigMapAPIVersion = "v1"

	KindClusterType          = "ClusterType"
	KindSchedulingPolicy     = "SchedulingPolicy"
	KindWorkload             = "Workload"
	KindWorkloadRegistration = "WorkloadRegistration"
	KindTemplate             = "Template"
	KindConfigMap            = "ConfigMap"
	KindConfigSchema         = "ConfigSchema"
	KindBaseRepo             = "BaseRepo"
	KindGitOpsRepo           = "GitOpsRepo"
	KindEnvironment          = "Environment"

	// RegistrationAnnotation links a Workload to the WorkloadRegistration that delivered it.
	RegistrationAnnotation = "scheduler.kalypso.io/registration"

	TemplateTypeReconciler = "reconciler"
	TemplateTypeNamespace  = "namespace"
	TemplateTypeConfig     = "config"

	ContentTypeYAML = "yaml"
	ContentTypeSh   = "sh"
)

// TypeMeta is the apiVersion/kind header.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ObjectMeta is the subset of Kubernetes metadata that Kalypso reads.
type ObjectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Object is implemented by every decoded kind.
type Object interface {
	GetKind() string
	GetName() string
	GetLabels() map[string]string
}

func (t *TypeMeta) setTypeMeta(v TypeMeta) { *t = v }

func (t TypeMeta) GetKind() string                { return t.Kind }
func (m ObjectMeta) GetName() string              { return m.Name }
func (m ObjectMeta) GetLabels() map[string]string { return m.Labels }

// ClusterType is a group of clusters sharing labels, a reconciler and platform config.
type ClusterType struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta      `json:"metadata"`
	Spec     ClusterTypeSpec `json:"spec"`
}

type ClusterTypeSpec struct {
	Reconciler       string `json:"reconciler"`
	NamespaceService string `json:"namespaceService"`
	ConfigType       string `json:"configType,omitempty"`
}

// SchedulingPolicy maps deployment targets to cluster types with label selectors.
type SchedulingPolicy struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta           `json:"metadata"`
	Spec     SchedulingPolicySpec `json:"spec"`
}

type SchedulingPolicySpec struct {
	DeploymentTargetSelector DeploymentTargetSelector `json:"deploymentTargetSelector"`
	ClusterTypeSelector      ClusterTypeSelector      `json:"clusterTypeSelector"`
}

type DeploymentTargetSelector struct {
	Workspace     string                `json:"workspace,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

type ClusterTypeSelector struct {
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// Workload lists the deployment targets of one application or service.
type Workload struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta   `json:"metadata"`
	Spec     WorkloadSpec `json:"spec"`
}

type WorkloadSpec struct {
	DeploymentTargets []DeploymentTargetSpec `json:"deploymentTargets,omitempty"`
	// ConfigSchemas are JSON Schema texts appended to every target's own.
	ConfigSchemas []string `json:"configSchemas,omitempty"`
}

type DeploymentTargetSpec struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Environment string            `json:"environment"`
	Manifests   map[string]string `json:"manifests"`
	// ConfigSchemas are JSON Schema texts that validate this target's platform config.
	ConfigSchemas []string `json:"configSchemas,omitempty"`
}

// WorkloadRegistration points at the repository that holds a Workload, and gives it a workspace.
type WorkloadRegistration struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta               `json:"metadata"`
	Spec     WorkloadRegistrationSpec `json:"spec"`
}

type WorkloadRegistrationSpec struct {
	Workload  RepoRef `json:"workload"`
	Workspace string  `json:"workspace"`
}

// RepoRef is a repository, branch and path.
type RepoRef struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

// Template is a list of Go-template manifests.
type Template struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta   `json:"metadata"`
	Spec     TemplateSpec `json:"spec"`
}

type TemplateSpec struct {
	Type        string   `json:"type"`
	ContentType string   `json:"contentType,omitempty"`
	Manifests   []string `json:"manifests"`
	// Objects holds the manifests of a Template in the format kalypso-scheduler read until March 2023
	// (its commit f7fefe0 made them strings): each manifest a YAML object whose string values are templates.
	// Manifests is empty then. The render reads them as that operator did, with a deprecation warning;
	// control-plane branches pinned to 2023 commits of main hold such Templates.
	Objects []map[string]interface{} `json:"-"`
}

// ConfigMap is a v1 ConfigMap holding platform configuration.
type ConfigMap struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta        `json:"metadata"`
	Data     map[string]string `json:"data,omitempty"`
}

// ConfigSchema is a JSON Schema that validates the platform config of matching assignments.
type ConfigSchema struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta       `json:"metadata"`
	Spec     ConfigSchemaSpec `json:"spec"`
}

type ConfigSchemaSpec struct {
	Schema string `json:"schema"`
}

// BaseRepo names the control-plane commit being promoted; only the one named `main` counts.
type BaseRepo struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta   `json:"metadata"`
	Spec     BaseRepoSpec `json:"spec"`
}

type BaseRepoSpec struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Path   string `json:"path"`
	Commit string `json:"commit,omitempty"`
}

// GitOpsRepo is where the rendered tree of an environment goes.
type GitOpsRepo struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta `json:"metadata"`
	Spec     RepoRef    `json:"spec"`
}

// Environment names an environment and its control-plane branch.
type Environment struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta      `json:"metadata"`
	Spec     EnvironmentSpec `json:"spec"`
}

type EnvironmentSpec struct {
	ControlPlane RepoRef `json:"controlPlane"`
}

func (o *ClusterType) GetName() string                       { return o.Metadata.Name }
func (o *ClusterType) GetLabels() map[string]string          { return o.Metadata.Labels }
func (o *SchedulingPolicy) GetName() string                  { return o.Metadata.Name }
func (o *SchedulingPolicy) GetLabels() map[string]string     { return o.Metadata.Labels }
func (o *Workload) GetName() string                          { return o.Metadata.Name }
func (o *Workload) GetLabels() map[string]string             { return o.Metadata.Labels }
func (o *WorkloadRegistration) GetName() string              { return o.Metadata.Name }
func (o *WorkloadRegistration) GetLabels() map[string]string { return o.Metadata.Labels }
func (o *Template) GetName() string                          { return o.Metadata.Name }
func (o *Template) GetLabels() map[string]string             { return o.Metadata.Labels }
func (o *ConfigMap) GetName() string                         { return o.Metadata.Name }
func (o *ConfigMap) GetLabels() map[string]string            { return o.Metadata.Labels }
func (o *ConfigSchema) GetName() string                      { return o.Metadata.Name }
func (o *ConfigSchema) GetLabels() map[string]string         { return o.Metadata.Labels }
func (o *BaseRepo) GetName() string                          { return o.Metadata.Name }
func (o *BaseRepo) GetLabels() map[string]string             { return o.Metadata.Labels }
func (o *GitOpsRepo) GetName() string                        { return o.Metadata.Name }
func (o *GitOpsRepo) GetLabels() map[string]string           { return o.Metadata.Labels }
func (o *Environment) GetName() string                       { return o.Metadata.Name }
func (o *Environment) GetLabels() map[string]string          { return o.Metadata.Labels }
