# What runs where in dev, stage and prod, from the GitOps branches and the commit statuses the clusters'
# Flux posts (a notification-controller Provider of type github and an Alert for the Kustomizations).
data "kalypso_fleet_status" "fleet" {
  repository_url = "https://github.com/org/gitops"

  environments = [
    { name = "dev", github_statuses = {} },
    { name = "stage", github_statuses = {} },
    {
      name            = "prod"
      branch          = "production"
      github_statuses = { creators = ["flux-bot"] }
      # The default context pattern does not say the cluster type: name the clusters per cluster type.
      clusters = {
        large = ["4f0c2a11", "9b3e7d20"]
        small = ["c81d0e57"]
      }
    },
  ]

  # The control-plane commits' times start the lead time for changes.
  control_plane = { repo = "https://github.com/org/control-plane" }

  compare        = [{ from = "stage", to = "prod" }]
  metrics_window = "720h"
}

# For a job summary or a pull-request comment: at most 60,000 characters.
output "fleet_markdown" {
  value = data.kalypso_fleet_status.fleet.markdown
}

output "drifting_clusters" {
  value = [for c in data.kalypso_fleet_status.fleet.clusters : "${c.environment}/${c.name}" if c.drift]
}
