# Render the dev environment from Kalypso YAML kept next to the configuration.
data "kalypso_environment_render" "dev" {
  environment = "dev"
  manifests = [
    for f in sort(fileset("${path.module}/kalypso", "**/*.yaml")) : file("${path.module}/kalypso/${f}")
  ]

  # Skip, with a warning, assignments whose platform config violates a config schema.
  config_validation = "warn"
}

output "dev_assignments" {
  value = {
    for a in data.kalypso_environment_render.dev.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies
  }
}

output "dev_unscheduled" {
  value = data.kalypso_environment_render.dev.unscheduled_deployment_targets
}

# The data source reports its warnings in the plan itself, and lists them in `warnings` as well, for
# checks and tests.
output "dev_warnings" {
  value = data.kalypso_environment_render.dev.warnings
}
