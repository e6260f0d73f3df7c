# The dev workspace, rolled out progressively: a change reaches dev's clusters wave by wave, a canary
# first, then the west-us cluster types, then the rest, each wave only once the clusters of the earlier
# ones reported it healthy for long enough. Each plan shows the waves (rollout_status) and writes at most
# one of them; run it in CI or on a schedule (one run per wave advance). See the guide "Progressive rollout".
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "control_plane_repo" {
  description = "The control-plane repository: templates and registrations on main, one branch per environment."
  type        = string
  default     = "https://github.com/microsoft/kalypso-control-plane"
}

variable "gitops_repo" {
  description = "The GitOps repository: dev's branch holds one folder per cluster type."
  type        = string
  default     = "https://github.com/microsoft/kalypso-gitops"
}

variable "git_mirror" {
  description = "Optional mirror prefix for https://github.com/ (for example file:///srv/mirror/), for air-gapped runs."
  type        = string
  default     = null
}

variable "github_base_url" {
  description = "GitHub API base URL; null for github.com (for a local trial, the URL tools/mockgithub prints)."
  type        = string
  default     = null
}

variable "allow_loopback_http" {
  description = "Send the token over plain http to a loopback host: only for a local trial against tools/mockgithub."
  type        = bool
  default     = false
}

variable "gitops_github_repository" {
  description = "owner/name of the GitOps repository on GitHub, whose commit statuses the clusters post; null reads it from gitops_repo."
  type        = string
  default     = null
}

variable "canary_soak_time" {
  description = "How long the canary's clusters must have been healthy before the next wave (a Go duration)."
  type        = string
  default     = "30m"
}

variable "paused" {
  description = "Hold the rollout where it is: the plan writes nothing and says so."
  type        = bool
  default     = false
}

provider "kalypso" {
  # GIT_TOKEN (or GITHUB_TOKEN) reads the repositories, pushes dev's branch and reads commit statuses.
  git_url_rewrites    = var.git_mirror == null ? {} : { "https://github.com/" = var.git_mirror }
  github_base_url     = var.github_base_url
  allow_loopback_http = var.allow_loopback_http
}

# Dev's branch of the control plane, with main at the commit dev's BaseRepo pins.
data "kalypso_control_plane" "dev" {
  git = {
    repo   = var.control_plane_repo
    branch = "dev"
  }
  follow_base_repo  = true
  resolve_workloads = true
}

resource "kalypso_gitops_commit" "dev" {
  repository_url     = var.gitops_repo
  branch             = "dev"
  create_branch      = true
  path               = "."
  render             = { environment = "dev", manifests = data.kalypso_control_plane.dev.manifests }
  promoted_commit_id = data.kalypso_control_plane.dev.base_repo_commit

  rollout = {
    waves = [
      # One cluster type first, watched for half an hour.
      { name = "canary", cluster_types = ["drone"], soak_time = var.canary_soak_time },
      # Then every cluster type labelled region=west-us; one failed cluster is tolerated.
      { name = "west", cluster_type_labels = { region = "west-us" }, max_failures = 1 },
      # Then the rest: a wave without a selector takes every cluster type no earlier wave took.
      { name = "rest" },
    ]
    # Each cluster's Flux Kustomization that reads its cluster type's folder is named after the cluster
    # type, so its commit statuses (kustomization/<name>/<Provider UID>) say both; at least one cluster of
    # each cluster type must report, and every one that reports must succeed.
    expected = { min_clusters_per_cluster_type = 1 }
    github_statuses = {
      repository       = var.gitops_github_repository
      context_patterns = ["^kustomization/(?P<cluster_type>[^/]+)/(?P<cluster>[0-9a-f]{8})$"]
    }
    progress_deadline = "2h"
    paused            = var.paused
  }

  author = {
    name  = "Kalypso Scheduler"
    email = "kalypso@example.com"
  }
}

output "rollout" {
  description = "Each wave as it stands once this apply is done."
  value       = [for w in kalypso_gitops_commit.dev.rollout_status : "${w.name} (${join(", ", w.cluster_types)}): ${w.state}, ${w.reason}"]
}

output "last_known_good" {
  description = "Per wave, the last commit its clusters reported healthy (null while none); a rollback to last_known_good restores the environment's."
  value       = try({ for w in kalypso_gitops_commit.dev.last_known_good.waves : w.name => w.commit }, {})
}
