# The public Kalypso tutorial (https://github.com/microsoft/kalypso), Dev and Stage environments,
# rendered from the same YAML the upstream operator reads. `make demo` runs it offline.
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

provider "kalypso" {}

locals {
  # The control plane: templates and registrations on `main`, one branch per environment.
  main_manifests  = [for f in sort(fileset("${path.module}/kalypso/main", "**/*.yaml")) : file("${path.module}/kalypso/main/${f}")]
  dev_manifests   = [for f in sort(fileset("${path.module}/kalypso/dev", "**/*.yaml")) : file("${path.module}/kalypso/dev/${f}")]
  stage_manifests = [for f in sort(fileset("${path.module}/kalypso/stage", "**/*.yaml")) : file("${path.module}/kalypso/stage/${f}")]
  # The application teams' Workload files, as the WorkloadRegistrations would fetch them.
  workloads = [for f in sort(fileset("${path.module}/kalypso/workloads", "*.yaml")) : file("${path.module}/kalypso/workloads/${f}")]

  dev   = provider::kalypso::environment_render("dev", concat(local.main_manifests, local.dev_manifests, local.workloads))
  stage = provider::kalypso::environment_render("stage", concat(local.main_manifests, local.stage_manifests, local.workloads))
}

output "dev_assignments" {
  description = "Which deployment target lands on which cluster type in Dev, and why."
  value       = { for a in local.dev.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies }
}

output "stage_assignments" {
  description = "Which deployment target lands on which cluster type in Stage, and why."
  value       = { for a in local.stage.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies }
}

output "dev_files" {
  value = local.dev.files
}

output "stage_files" {
  value = local.stage.files
}
