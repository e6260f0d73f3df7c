# Stage 1 onboards hello-world-app: the application team keeps its Workload (deployment targets per
# environment) in its own repository; the registration reads it at plan time.
#
# One resource per registration rather than one for_each: a test overrides each registration's
# `manifest` by its address, and OpenTofu's override_resource takes no instance key.

# The platform team's own observability service.
resource "kalypso_workload_registration" "platform_svc" {
  name      = "platform-svc"
  workspace = "platform-team"
  labels    = { type = "service" }
  source = {
    repo   = var.svc_source_repo
    branch = "main"
    path   = "./workloads"
  }
}

# Stage 1: the kaizen application team onboards hello-world-app.
resource "kalypso_workload_registration" "hello_world_app" {
  name      = "hello-world-app"
  workspace = "kaizen-app-team"
  labels    = { type = "application" }
  source = {
    repo   = var.app_source_repo
    branch = "main"
    path   = "workload/"
  }
}
