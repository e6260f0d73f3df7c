# The Stage environment appears at stage 3, when hello-world-app is promoted.
locals {
  stage_enabled = var.stage >= 3

  stage_cluster_types = merge(
    local.stage_enabled ? {
      "drone" = { labels = { region = "east-us", restricted = "true", edge = "true" }, reconciler = "arc-flux" }
      "large" = { labels = { region = "west-us", size = "large" }, reconciler = "arc-flux" }
    } : {},
    # Stage 5: a new cluster type joins Stage; the UAT policy selects every cluster type, so it gets the app too.
    var.stage >= 5 ? {
      "small" = { labels = { region = "west-us", size = "small" }, reconciler = "argocd" }
    } : {},
  )

  stage_platform_configs = merge(
    local.stage_enabled ? {
      "stage-config"      = { labels = {}, data = { ENVIRONMENT = "stage", SOME_COMMON_ENVIRONMENT_VARIABLE = "false" } }
      "east-us-config"    = { labels = { region = "east-us" }, data = { REGION = "East US" } }
      "restricted-config" = { labels = { restricted = "true" }, data = { DATABASE_URL = "mysql://restricted-host:3306/mysqlrty123" } }
      "drone-config"      = { labels = { "cluster-type" = "drone" }, data = { CLUSTER_NAME = "Drone" } }
      "large-config"      = { labels = { "cluster-type" = "large" }, data = { CLUSTER_NAME = "Large" } }
      "west-us-config" = {
        labels = { region = "west-us" }
        data = {
          REGION = "West US"
          # Stage 4: west-us gets its own Stage database.
          DATABASE_URL = var.stage >= 4 ? "mysql://west-stage:8806/mysql-stage" : "mysql://west:8806/mysql2"
        }
      }
    } : {},
    var.stage >= 5 ? {
      "small-config" = { labels = { "cluster-type" = "small" }, data = { CLUSTER_NAME = "Small" } }
    } : {},
  )

  stage_policies = local.stage_enabled ? {
    "uat-test-policy" = { workspace = "kaizen-app-team", targets = { purpose = "uat-test" } }
  } : {}
}

resource "kalypso_cluster_type" "stage" {
  for_each          = local.stage_cluster_types
  name              = each.key
  labels            = each.value.labels
  reconciler        = each.value.reconciler
  namespace_service = "default"
  config_type       = "configmap"
}

resource "kalypso_platform_config" "stage" {
  for_each = local.stage_platform_configs
  name     = each.key
  labels   = each.value.labels
  data     = each.value.data
}

resource "kalypso_scheduling_policy" "stage" {
  for_each = local.stage_policies
  name     = each.key
  deployment_target_selector = {
    workspace    = each.value.workspace
    match_labels = each.value.targets
  }
  # An empty selector matches every cluster type.
  cluster_type_selector = {}
}

# Promotion: the Stage tree records which control-plane commit it was rendered from (from stage 6 on, the
# one the promotion gate in promotion.tf chose).
resource "kalypso_gitops_commit" "stage" {
  count          = local.stage_enabled ? 1 : 0
  repository_url = var.gitops_repo
  branch         = "stage"
  create_branch  = true
  render = {
    environment = "stage"
    manifests   = local.stage_manifests
  }
  promoted_commit_id = local.stage_promoted_commit
  commit_message     = "Kalypso: promote ${substr(local.stage_promoted_commit, 0, 12)} to stage, ${length(local.stage.assignments)} assignment(s), tree ${substr(local.stage.content_hash, 0, 12)}"
}
