# The public Kalypso tutorial (https://github.com/microsoft/kalypso/tree/main/docs/tutorial), as
# Terraform resources, in five stages, and a sixth for promotion. Apply them in order against the same state:
#
#   terraform apply -var stage=1   # onboard an application
#   terraform apply -var stage=2   # Dev scheduling policies
#   terraform apply -var stage=3   # promote to Stage with promoted_commit_id
#   terraform apply -var stage=4   # a platform config change: DATABASE_URL for west-us on Stage
#   terraform apply -var stage=5   # add a cluster type to Stage
#   terraform apply -var stage=6   # promotion: main's registrations reach Stage once Dev's clusters report them applied
#
# `make demo` runs all six offline against local bare repositories and a mock of GitHub's REST API.
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "stage" {
  description = "Tutorial stage to apply, 1 to 6."
  type        = number
  default     = 5
  validation {
    condition     = var.stage >= 1 && var.stage <= 6
    error_message = "The tutorial has stages 1 to 6."
  }
}

variable "gitops_repo" {
  description = "GitOps repository the rendered trees are committed to, one branch per environment."
  type        = string
  default     = "https://github.com/microsoft/kalypso-gitops"
}

variable "app_source_repo" {
  description = "The application team's repository holding the hello-world-app Workload."
  type        = string
  default     = "https://github.com/microsoft/kalypso-app-src"
}

variable "svc_source_repo" {
  description = "The platform team's services repository holding the observability Workload."
  type        = string
  default     = "https://github.com/microsoft/kalypso-svc-src"
}

variable "git_url_rewrites" {
  description = "URL prefix rewrites (git insteadOf), for example to serve the repositories from local mirrors."
  type        = map(string)
  default     = {}
}

variable "control_plane_commit" {
  description = "Commit of the control plane promoted to Stage at stages 3 to 5; it lands in .github/tracking/Promoted_Commit_Id. From stage 6 on, the promotion gate decides it, starting from this one."
  type        = string
  default     = "42f2c201b96055faead8da72a126ec3e8fe30296"
}

provider "kalypso" {
  author = {
    name  = "Kalypso Tutorial"
    email = "kalypso-tutorial@example.com"
  }
  git_url_rewrites = var.git_url_rewrites
  github_base_url  = var.github_base_url
}

locals {
  # What every environment shares: the templates and the workload registrations (the `main` branch upstream).
  shared_manifests = concat(
    [for t in kalypso_template.all : t.manifest],
    [kalypso_workload_registration.hello_world_app.manifest, kalypso_workload_registration.platform_svc.manifest],
  )

  # Each environment's model: what kalypso_gitops_commit renders (render mode) and the outputs summarise.
  # From stage 6 on, each also renders the control plane's main at its own commit (promotion.tf).
  dev_manifests = concat(
    local.shared_manifests,
    local.dev_main_manifests,
    [for c in kalypso_cluster_type.dev : c.manifest],
    [for c in kalypso_platform_config.dev : c.manifest],
    [for p in kalypso_scheduling_policy.dev : p.manifest],
  )
  stage_manifests = concat(
    local.shared_manifests,
    local.stage_main_manifests,
    [for c in kalypso_cluster_type.stage : c.manifest],
    [for c in kalypso_platform_config.stage : c.manifest],
    [for p in kalypso_scheduling_policy.stage : p.manifest],
  )

  # The function gives the outputs the assignments at plan time; the resources render the same engine themselves.
  dev   = provider::kalypso::environment_render("dev", local.dev_manifests)
  stage = provider::kalypso::environment_render("stage", local.stage_manifests)
}
