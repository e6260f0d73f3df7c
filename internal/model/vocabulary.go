// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

// Kalypso's vocabulary: the names upstream's scheduler reads and writes outside the kinds' schemas.
// They are defined here once; the engine, the resources and the docs all use these constants.

// Labels.
const (
	// PlatformConfigLabel, set to "true", marks a ConfigMap as a platform config source.
	PlatformConfigLabel = "platform-config"
	// AzureAppConfigPrefix starts the names of ConfigMaps synced from Azure App Configuration: the
	// scheduler reads them whether or not they carry PlatformConfigLabel, and their keys carry labels.
	AzureAppConfigPrefix = "azure-app-config"

	// WorkloadLabel and WorkspaceLabel are added to every deployment target's labels.
	WorkloadLabel  = "workload"
	WorkspaceLabel = "workspace"
	// ClusterTypeLabel and DeploymentTargetLabel on a platform ConfigMap match the assignment's cluster
	// type and deployment target by name.
	ClusterTypeLabel      = "cluster-type"
	DeploymentTargetLabel = "deployment-target"
)

// Templates a ClusterType uses when it names none.
const (
	DefaultReconciler       = "arc-flux"
	DefaultNamespaceService = "default"
	DefaultConfigType       = "configmap"
)

// The GitOps tree: <cluster type>/README.md, and <cluster type>/<deployment target>/ holding the
// reconciler, namespace and platform-config files.
const (
	// ReadmeFile is written in every cluster type folder, with ReadmeText (no trailing newline) as upstream does.
	ReadmeFile = "README.md"
	ReadmeText = "This folder contains deployment targets scheduled on the cluster type"

	ReconcilerFile = "reconciler.yaml"
	NamespaceFile  = "namespace.yaml"
	// PlatformConfigFile is the platform config's name without its extension: ".yaml", or ".sh" for a
	// config template of content type sh.
	PlatformConfigFile = "platform-config"

	// BaseRepoMain is the name of the BaseRepo whose spec.commit pins the control plane's common content
	// for an environment (upstream's promotion); other BaseRepos are ignored.
	BaseRepoMain = "main"
	// PromotedCommitFile is where upstream records the promoted commit, relative to the repository root.
	PromotedCommitFile = ".github/tracking/Promoted_Commit_Id"
)
