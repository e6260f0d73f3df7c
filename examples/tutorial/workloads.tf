# Stage 1 onboards hello-world-app: the application team keeps its Workload (deployment targets per
# environment) in its own repository; the registration reads it at plan time.
locals {
  registrations = {
    # The platform team's own observability service.
    "platform-svc" = {
      workspace = "platform-team"
      labels    = { type = "service" }
      repo      = var.svc_source_repo
      path      = "./workloads"
    }
    # Stage 1: the kaizen application team onboards hello-world-app.
    "hello-world-app" = {
      workspace = "kaizen-app-team"
      labels    = { type = "application" }
      repo      = var.app_source_repo
      path      = "workload/"
    }
  }
}

resource "kalypso_workload_registration" "all" {
  for_each  = local.registrations
  name      = each.key
  workspace = each.value.workspace
  labels    = each.value.labels
  source = {
    repo   = each.value.repo
    branch = "main"
    path   = each.value.path
  }
}
