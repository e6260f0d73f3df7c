# The Dev environment: four cluster types in two regions, their platform config, and the policies
# that place deployment targets on them.
locals {
  dev_cluster_types = {
    "command-center" = { labels = { region = "east-us", restricted = "true" }, reconciler = "arc-flux" }
    "drone"          = { labels = { region = "east-us", restricted = "true", edge = "true" }, reconciler = "arc-flux" }
    "large"          = { labels = { region = "west-us", size = "large" }, reconciler = "arc-flux" }
    "small"          = { labels = { region = "west-us", size = "small" }, reconciler = "argocd" }
  }

  dev_platform_configs = {
    "dev-config"        = { labels = {}, data = { ENVIRONMENT = "Dev", SOME_COMMON_ENVIRONMENT_VARIABLE = "false" } }
    "east-us-config"    = { labels = { region = "east-us" }, data = { REGION = "East US" } }
    "west-us-config"    = { labels = { region = "west-us" }, data = { REGION = "West US", DATABASE_URL = "mysql://west:8806/mysql2" } }
    "restricted-config" = { labels = { restricted = "true" }, data = { DATABASE_URL = "mysql://restricted-host:3306/mysqlrty123" } }
    "center-config"     = { labels = { "cluster-type" = "command-center" }, data = { CLUSTER_NAME = "Command Center" } }
    "drone-config"      = { labels = { "cluster-type" = "drone" }, data = { CLUSTER_NAME = "Drone" } }
    "large-config"      = { labels = { "cluster-type" = "large" }, data = { CLUSTER_NAME = "Large" } }
    "small-config"      = { labels = { "cluster-type" = "small" }, data = { CLUSTER_NAME = "Small" } }
  }

  dev_policies = merge(
    {
      "observability-policy" = {
        workspace = "platform-team", targets = { stack = "observability" }, cluster_types = { size = "large" }
      }
    },
    # Stage 2: the kaizen team's Dev policies.
    var.stage >= 2 ? {
      "functional-test-policy" = {
        workspace = "kaizen-app-team", targets = { purpose = "functional-test", edge = "true" }, cluster_types = { restricted = "true", edge = "true" }
      }
      "performance-test-policy" = {
        workspace = "kaizen-app-team", targets = { purpose = "performance-test", edge = "false" }, cluster_types = { size = "large" }
      }
    } : {},
  )
}

resource "kalypso_cluster_type" "dev" {
  for_each          = local.dev_cluster_types
  name              = each.key
  labels            = each.value.labels
  reconciler        = each.value.reconciler
  namespace_service = "default"
  config_type       = "configmap"
}

resource "kalypso_platform_config" "dev" {
  for_each = local.dev_platform_configs
  name     = each.key
  labels   = each.value.labels
  data     = each.value.data
}

resource "kalypso_scheduling_policy" "dev" {
  for_each = local.dev_policies
  name     = each.key
  deployment_target_selector = {
    workspace    = each.value.workspace
    match_labels = each.value.targets
  }
  cluster_type_selector = {
    match_labels = each.value.cluster_types
  }
}

# Render mode: the resource renders the Dev environment itself and plans against the dev branch, so the
# plan lists every file it will create, update (with a unified diff) or delete there.
resource "kalypso_gitops_commit" "dev" {
  repository_url = var.gitops_repo
  branch         = "dev"
  create_branch  = true
  render = {
    environment = "dev"
    manifests   = local.dev_manifests
  }
  # Stage 6: the main commit Dev renders, for the promotion gate (null before).
  promoted_commit_id = local.dev_promoted_commit
  # A message per tree: it changes exactly when the tree does, so a no-op plan stays a no-op.
  commit_message = "Kalypso: schedule dev, ${length(local.dev.assignments)} assignment(s), tree ${substr(local.dev.content_hash, 0, 12)}"
}
