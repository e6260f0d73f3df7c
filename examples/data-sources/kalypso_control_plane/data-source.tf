# Read the upstream control plane as-is: templates and workload registrations on `main`,
# cluster types, configs, policies, BaseRepo and GitOpsRepo on one branch per environment.
data "kalypso_control_plane" "main" {
  git = {
    repo   = "https://github.com/microsoft/kalypso-control-plane"
    branch = "main"
  }

  # Fetch each WorkloadRegistration's Workload from its repository, as the operator does.
  resolve_workloads = true
}

data "kalypso_control_plane" "dev" {
  git = {
    repo   = "https://github.com/microsoft/kalypso-control-plane"
    branch = "dev"
  }
}

# A local checkout works too; `.sourceignore` is honoured in both modes.
data "kalypso_control_plane" "stage_checkout" {
  dir = "${path.module}/control-plane-stage"
}

data "kalypso_environment_render" "dev" {
  environment = "dev"
  manifests   = concat(data.kalypso_control_plane.main.manifests, data.kalypso_control_plane.dev.manifests)
}

output "dev_cluster_types" {
  value = data.kalypso_control_plane.dev.cluster_types
}

output "dev_promoted_commit" {
  value = data.kalypso_control_plane.dev.base_repo_commit
}

# Documents that are not Kalypso objects (CI files, app manifests, ...) are listed here and in a warning.
output "main_skipped" {
  value = data.kalypso_control_plane.main.skipped
}
