# The stage workspace of a promotion chain (one workspace per environment, for example in HCP
# Terraform). It shares no state with the dev workspace: it reads dev's GitOps branch and the
# statuses dev's clusters posted, moves stage to the control-plane commit dev rolled out on every
# expected cluster, and otherwise keeps stage where it is, with a warning that says why.
# A run trigger on the dev workspace, or a schedule, moves the chain.
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
  description = "The GitOps repository: one branch per environment, each written by its workspace."
  type        = string
  default     = "https://github.com/microsoft/kalypso-gitops"
}

variable "dev_clusters" {
  description = "How many dev clusters must report success before stage moves."
  type        = number
  default     = 2
}

variable "soak_time" {
  description = "How long dev's clusters must have been healthy (a Go duration)."
  type        = string
  default     = "15m"
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

variable "gitops_github_repository" {
  description = "owner/name of the GitOps repository on GitHub, whose commit statuses dev's clusters post; null reads it from gitops_repo (set it when gitops_repo is a file:// or mirror URL)."
  type        = string
  default     = null
}

provider "kalypso" {
  # GIT_TOKEN (or GITHUB_TOKEN) reads the repositories, pushes stage's branch and reads commit statuses.
  git_url_rewrites = var.git_mirror == null ? {} : { "https://github.com/" = var.git_mirror }
  github_base_url  = var.github_base_url
}

# Where dev is: its GitOps branch, the Promoted_Commit_Id of each commit, and what Flux reported.
data "kalypso_rollout" "dev" {
  environment    = "dev"
  repository_url = var.gitops_repo
  branch         = "dev"
  expected       = { min_clusters = var.dev_clusters }
  soak_time      = var.soak_time

  github_statuses = { repository = var.gitops_github_repository }

  # Stage's current commit is the Promoted_Commit_Id on stage's GitOps branch; before stage's first
  # promotion the branch does not exist, and stage moves to what dev rolled out.
  promotion = {
    to            = "stage"
    control_plane = { repo = var.control_plane_repo }
  }
}

# Main at the commit stage gets: dev's rolled-out commit when it moves, stage's own otherwise.
data "kalypso_control_plane" "main" {
  git = {
    repo   = var.control_plane_repo
    branch = "main"
    commit = data.kalypso_rollout.dev.promotion_commit
  }
  resolve_workloads = true
}

data "kalypso_control_plane" "stage" {
  git = {
    repo   = var.control_plane_repo
    branch = "stage"
  }
}

data "kalypso_environment_render" "stage" {
  environment = "stage"
  manifests   = concat(data.kalypso_control_plane.main.manifests, data.kalypso_control_plane.stage.manifests)
}

resource "kalypso_gitops_commit" "stage" {
  repository_url     = var.gitops_repo
  branch             = "stage"
  create_branch      = true # stage's first promotion creates its GitOps branch
  path               = "."
  files              = data.kalypso_environment_render.stage.files
  promoted_commit_id = data.kalypso_rollout.dev.promotion_commit

  author = {
    name  = "Kalypso Scheduler"
    email = "kalypso@example.com"
  }

  lifecycle {
    # Before stage's first promotion and dev's first rollout there is no commit to render: main's head
    # was never rolled out anywhere.
    precondition {
      condition     = data.kalypso_rollout.dev.promotion_commit != null
      error_message = "Nothing to promote to stage yet: ${data.kalypso_rollout.dev.promotion_reason}"
    }
  }
}

output "promotion" {
  description = "Why stage is where it is."
  value       = data.kalypso_rollout.dev.promotion_reason
}
