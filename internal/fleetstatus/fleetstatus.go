// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package fleetstatus tells what runs where across environments, from Git and the clusters' reports, as
// upstream's Deployment Observability Hub does with a database: one row per environment, cluster type and
// deployment target (the commit that last changed the folder, the control-plane commit it came from, the
// workload's version, how the cluster type's clusters stand with it, and since when), environments
// compared, clusters that drift, and delivery metrics from the branches' history. It has no Terraform
// dependency; cluster reports come through internal/rollout's sources and are judged by its gate rules.
package fleetstatus

import (
	"context"
	"errors"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// Defaults.
const (
	// DefaultHistory is how many commits of each environment's branch are read: enough for the metrics
	// window of a busy environment, one status request each with commit statuses.
	DefaultHistory = 100
	// DefaultWindow is the metrics window.
	DefaultWindow = 30 * 24 * time.Hour
	// MarkdownLimit bounds the Markdown summary: a GitHub pull-request comment holds 65,536 characters.
	MarkdownLimit = 60000
)

// Environment is one environment: its GitOps branch and where its clusters report.
type Environment struct {
	Name, Branch string
	// Source lists what the clusters reported; nil when the environment has none (every row is unknown).
	Source rollout.Source
	// Clusters names, per cluster type, the clusters that read its folder (by name or full identity), for
	// sources that do not say; they count even when silent. Clusters a source places in a cluster type
	// (a context pattern's cluster_type group) need no entry.
	Clusters map[string][]string
	// Soak is how long a success must hold before it counts.
	Soak time.Duration
}

// ControlPlane is the control-plane repository the environments were promoted from; its commits' times
// start the lead time.
type ControlPlane struct {
	Repo, Branch string
	// History is how many of its commits are read (DefaultHistory when zero).
	History int
}

// Comparison asks for the deployment targets whose content differs between two environments.
type Comparison struct{ From, To string }

// Request is one fleet status read.
type Request struct {
	Repo string
	// Path is the folder of the GitOps tree in the repository ("" for the root).
	Path         string
	Environments []Environment
	// History is how many first-parent commits of each branch are read (DefaultHistory when zero).
	History int
	// MaxClusters bounds the clusters one environment's source may report (rollout.DefaultMaxClusters when zero).
	MaxClusters  int
	ControlPlane *ControlPlane
	// Compare lists the comparisons; nil compares each environment with the next.
	Compare []Comparison
	// Window is the metrics window, ending at Now (DefaultWindow when zero).
	Window time.Duration
	Now    time.Time
}

// Git is what the read needs of internal/gitrepo's client.
type Git interface {
	LogFolders(ctx context.Context, repoURL, branch, dir string, limit int, file string) (*gitrepo.FolderLog, error)
	ListTrees(repoURL string, ids []string) (map[string][]gitrepo.TreeFile, error)
	ReadBlobs(repoURL string, ids []string) (map[string][]byte, error)
	Log(ctx context.Context, repoURL, branch string, limit int, file string) ([]gitrepo.LogEntry, error)
}

// Errors the caller words at the attribute to fix.
var (
	// ErrNoPromoted means an environment's head carries no .github/tracking/Promoted_Commit_Id.
	ErrNoPromoted = errors.New("no Promoted_Commit_Id")
	// ErrSource means an environment's report source failed.
	ErrSource = errors.New("the report source failed")
	// ErrInput means the request itself is wrong (an environment named twice, a comparison of an unknown one).
	ErrInput = errors.New("invalid fleet status request")
)

// EnvError is a failure of one environment's read: Index is its position in Request.Environments.
type EnvError struct {
	Index int
	Env   string
	Err   error
}

func (e *EnvError) Error() string { return "environment " + e.Env + ": " + e.Err.Error() }
func (e *EnvError) Unwrap() error { return e.Err }

// State of a row or an environment: internal/rollout's states.
type State = rollout.State

// Status is the fleet status.
type Status struct {
	Environments []EnvironmentStatus
	Rows         []Row
	Clusters     []Cluster
	Comparisons  []EnvironmentDiff
	// Drift counts the clusters that report a commit older than their cluster type folder's newest change.
	Drift   int
	Metrics []Metrics
	// Now is the time the ages are measured from.
	Now time.Time
}

// EnvironmentStatus is one environment at a glance.
type EnvironmentStatus struct {
	Name, Branch string
	// Head is the branch head; Promoted its Promoted_Commit_Id.
	Head, Promoted string
	HeadTime       time.Time
	State          State
	// Summary is rollout's one line about the clusters: "9/12 clusters succeeded, 1 failed (…)".
	Summary  string
	Rows     int
	Clusters int
	Drift    int
}

// Row is one deployment target on one cluster type in one environment.
type Row struct {
	Environment, ClusterType, DeploymentTarget string
	// DesiredCommit is the commit that last changed the folder ("" when older than the history read).
	DesiredCommit string
	// Promoted is the control-plane commit DesiredCommit came from (its Promoted_Commit_Id).
	Promoted string
	// Version is the workload's version where the reconciler manifests name one (a Flux GitRepository's
	// spec.ref, an Argo CD Application's targetRevision); VersionFrom says which ("flux:tag", "argocd").
	Version, VersionFrom string
	// ChangedAt is DesiredCommit's time (zero when unknown); Age is Now minus it.
	ChangedAt time.Time
	Age       time.Duration
	// State is how the cluster type's clusters stand with the folder: succeeded when every one succeeded
	// with DesiredCommit or newer, failed when one failed with it, unknown when none reports, and
	// progressing otherwise (a missing or older report is pending).
	State                                           State
	Clusters, Succeeded, Failed, Pending, Reporting int
}

// Cluster is one cluster of one environment.
type Cluster struct {
	Environment, ClusterType string
	Name, ID                 string
	// Commit is the newest commit it reported about, State and Message its state there, ReportedAt when.
	Commit     string
	State      State
	Message    string
	ReportedAt time.Time
	// FolderCommit is the newest change of its cluster type's folder; Drift is true when Commit is older.
	FolderCommit string
	Drift        bool
}

// EnvironmentDiff is one comparison.
type EnvironmentDiff struct {
	From, To string
	// Same counts the deployment targets both hold alike; Differing lists the others.
	Same      int
	Differing []FolderDiff
}

// FolderDiff is a deployment target whose content differs between two environments.
type FolderDiff struct {
	ClusterType, DeploymentTarget string
	// Only is "from" or "to" when only one environment holds the folder.
	Only  string
	Files []FileDiff
	// FromVersion and ToVersion are the workload's versions, when the manifests name them.
	FromVersion, ToVersion string
}

// FileDiff is a file of a differing folder: "added" (only in To), "removed" (only in From) or "changed".
type FileDiff struct{ Path, Change string }
