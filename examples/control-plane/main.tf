# Adopt an existing upstream Kalypso control plane without rewriting it.
#
# The public sample keeps templates and workload registrations on `main`, and the cluster types,
# platform configs, scheduling policies, BaseRepo and GitOpsRepo of each environment on a branch
# named after it. An environment branch's BaseRepo `main` pins the commit of `main` that was promoted
# to it. This configuration reads the environment's branch and, through that BaseRepo, `main` at the
# pinned commit (not at its head, exactly as the operator makes Flux fetch it), renders the
# environment's GitOps tree in the plan, and pushes it where the environment's GitOpsRepo points, with
# the promoted commit that upstream writes to `.github/tracking/Promoted_Commit_Id`.
#
# The sample's dev and stage pin 2023 commits of main, whose Templates list their manifests as YAML
# objects, the format kalypso-scheduler read until March 2023. The provider renders them as that
# operator did, and the plan warns "Deprecated Template format" once per Template, saying how to move
# the pin to a commit of main in today's format.
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "control_plane_repo" {
  description = "The control-plane repository (the public sample by default)."
  type        = string
  default     = "https://github.com/microsoft/kalypso-control-plane"
}

variable "environment" {
  description = "The environment: its branch of the control plane is read and its tree rendered (the sample has dev and stage)."
  type        = string
  default     = "dev"
}

variable "git_mirror" {
  description = "Optional mirror prefix for https://github.com/ (for example file:///srv/mirror/), for air-gapped runs."
  type        = string
  default     = null
}

provider "kalypso" {
  # Every Git read and write goes through these rewrites (git's insteadOf), including the
  # Workload repositories that resolve_workloads fetches and the GitOps repository.
  git_url_rewrites = var.git_mirror == null ? {} : { "https://github.com/" = var.git_mirror }

  author = {
    name  = "Kalypso Scheduler"
    email = "kalypso@example.com"
  }
}

# Reads the environment's branch, then main at its BaseRepo spec.commit: templates and registrations
# that reached main after that commit stay out of the environment until they are promoted.
data "kalypso_control_plane" "env" {
  git = {
    repo   = var.control_plane_repo
    branch = var.environment
  }
  follow_base_repo  = true
  resolve_workloads = true
}

# Both inputs are data sources, so the render data source is read during plan. When the manifests
# come from kalypso_* resources with pending changes, use provider::kalypso::environment_render instead.
data "kalypso_environment_render" "env" {
  environment = var.environment
  manifests   = data.kalypso_control_plane.env.manifests
}

resource "kalypso_gitops_commit" "env" {
  repository_url = data.kalypso_control_plane.env.gitops_repo.repo
  branch         = data.kalypso_control_plane.env.gitops_repo.branch
  path           = data.kalypso_control_plane.env.gitops_repo.path
  files          = data.kalypso_environment_render.env.files
  commit_message = "Kalypso: ${var.environment} from control plane ${data.kalypso_control_plane.env.commit}, main at ${data.kalypso_control_plane.env.base_repo.commit}"

  author = {
    name  = "Kalypso Scheduler"
    email = "kalypso@example.com"
  }

  # Writes .github/tracking/Promoted_Commit_Id, as the upstream operator does.
  promoted_commit_id = data.kalypso_control_plane.env.base_repo_commit
}

output "assignments" {
  description = "Which deployment target lands on which cluster type in the environment, and why."
  value = {
    for a in data.kalypso_environment_render.env.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies
  }
}

output "skipped_documents" {
  description = "Documents of the control plane that are not Kalypso objects."
  value       = data.kalypso_control_plane.env.skipped
}

output "gitops_commit" {
  value = kalypso_gitops_commit.env.commit_sha
}
