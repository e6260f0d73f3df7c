# Stage 6: promotion gated by what Dev's clusters report.
#
# Stages 1 to 5 build every environment from resources. From stage 6 on, the content that moves from
# environment to environment is read from the control plane's `main` branch, as upstream keeps it: a
# registration merged there reaches Dev at once, and reaches Stage only once every expected Dev cluster
# reported the Dev commit that carries it as applied (commit statuses on the GitOps repository, as
# Flux's notification-controller posts them with a Provider of type github). Until then Stage's plan
# keeps Stage where it is and says why in a warning.
variable "control_plane_repo" {
  description = "Stage 6: the control-plane repository whose main branch holds the registrations promoted through the environments."
  type        = string
  default     = "https://github.com/microsoft/kalypso-control-plane"
}

variable "github_base_url" {
  description = "Stage 6: the GitHub REST API that holds the GitOps commits' statuses; null for github.com."
  type        = string
  default     = null
}

variable "gitops_github_repository" {
  description = "Stage 6: the GitOps repository as owner/name on GitHub, where Dev's clusters post their statuses."
  type        = string
  default     = "microsoft/kalypso-gitops"
}

variable "dev_min_clusters" {
  description = "Stage 6: how many Dev clusters must report a Dev commit as applied before Stage may move to it."
  type        = number
  default     = 1
}

locals {
  promotion_enabled = var.stage >= 6
}

# What is on main now: Dev renders it, and stamps its commit into Dev's Promoted_Commit_Id so that the
# rollout below knows which main commit each Dev GitOps commit carries.
data "kalypso_control_plane" "main" {
  count = local.promotion_enabled ? 1 : 0
  git = {
    repo   = var.control_plane_repo
    branch = "main"
  }
  resolve_workloads = true
}

# Where Dev is, and the main commit Stage may have: the newest one Dev rolled out on every expected
# cluster when that is ahead of Stage's Promoted_Commit_Id, Stage's own otherwise.
data "kalypso_rollout" "dev" {
  count          = local.promotion_enabled ? 1 : 0
  environment    = "dev"
  repository_url = var.gitops_repo
  branch         = "dev"
  expected       = { min_clusters = var.dev_min_clusters }
  github_statuses = {
    repository = var.gitops_github_repository
  }
  promotion = {
    to            = "stage"
    control_plane = { repo = var.control_plane_repo }
  }
}

# Main at the commit Stage renders.
data "kalypso_control_plane" "promoted" {
  count = local.promotion_enabled ? 1 : 0
  git = {
    repo   = var.control_plane_repo
    branch = "main"
    commit = data.kalypso_rollout.dev[0].promotion_commit
  }
  resolve_workloads = true

  lifecycle {
    precondition {
      condition     = data.kalypso_rollout.dev[0].promotion_commit != null
      error_message = "Stage has no control-plane commit yet: ${coalesce(data.kalypso_rollout.dev[0].promotion_reason, "no reason")}. Apply stage 3 first."
    }
  }
}

locals {
  # Main's content for each environment: empty before stage 6.
  dev_main_manifests   = flatten([for cp in data.kalypso_control_plane.main : cp.manifests])
  stage_main_manifests = flatten([for cp in data.kalypso_control_plane.promoted : cp.manifests])

  # The main commit each environment renders; before stage 6, Stage's is var.control_plane_commit and Dev has none.
  dev_promoted_commit   = one(data.kalypso_control_plane.main[*].commit)
  stage_promoted_commit = local.promotion_enabled ? data.kalypso_rollout.dev[0].promotion_commit : var.control_plane_commit
}

output "promotion" {
  description = "Stage 6: whether Stage moves, and why."
  value = local.promotion_enabled ? {
    moves  = data.kalypso_rollout.dev[0].promotion_moves
    commit = data.kalypso_rollout.dev[0].promotion_commit
    reason = data.kalypso_rollout.dev[0].promotion_reason
    dev    = data.kalypso_rollout.dev[0].summary
  } : null
}
