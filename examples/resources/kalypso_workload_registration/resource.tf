# The app team's Workload is read from its repository at plan time and on every refresh:
# a deployment target they push shows up in the next plan.
resource "kalypso_workload_registration" "hello_world_app" {
  name      = "hello-world-app"
  workspace = "kaizen-app-team"
  labels    = { type = "application" }
  source = {
    repo   = "https://github.com/microsoft/kalypso-app-src"
    branch = "main"
    path   = "workload/"
  }
}

# An inline Workload, named like the registration.
resource "kalypso_workload_registration" "inline" {
  name      = "billing"
  workspace = "payments-team"
  workload = {
    labels = { tier = "backend" }
    deployment_targets = [
      {
        name        = "qa"
        environment = "dev"
        labels      = { purpose = "functional-test", edge = "false" }
        manifests   = { repo = "https://github.com/example/billing-gitops", branch = "dev", path = "./qa" }
      },
    ]
  }
}

output "deployment_targets" {
  value = [for t in kalypso_workload_registration.hello_world_app.deployment_targets : t.name]
}
