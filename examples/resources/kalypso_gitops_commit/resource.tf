# Credentials come from the provider (git_token, or GIT_TOKEN / GITHUB_TOKEN; ssh_private_key or
# GIT_SSH_KEY) and are never stored in state.
provider "kalypso" {
  author = {
    name  = "Kalypso CI"
    email = "kalypso-ci@example.com"
  }
}

data "kalypso_environment_render" "dev" {
  environment = "dev"
  manifests   = [for f in fileset("${path.module}/control-plane", "**/*.yaml") : file("${path.module}/control-plane/${f}")]
}

# Direct push: one commit per apply, none when nothing changed. Files under `path` that are no
# longer rendered are deleted; nothing outside `path` (nor .dot-entries at its root) is touched.
resource "kalypso_gitops_commit" "dev" {
  repository_url     = "https://github.com/example-org/fleet-gitops.git"
  branch             = "dev"
  path               = "."
  files              = data.kalypso_environment_render.dev.files
  commit_message     = "Kalypso: render dev"
  promoted_commit_id = "4a5c2e1d0b9f8e7d6c5b4a392817161514131211"
}

# GitHub pull-request mode: the change is proposed from the stable head branch kalypso/stage,
# and the open pull request is updated in place on later applies.
resource "kalypso_gitops_commit" "stage" {
  repository_url = "https://github.com/example-org/fleet-gitops.git"
  branch         = "stage"
  files          = data.kalypso_environment_render.dev.files

  pull_request = {
    labels = ["kalypso"]
  }
}

# Large fleets (thousands of cluster types, or more than a few thousand files): one instance per
# cluster type, each owning its cluster type's folder. The environment is rendered once per plan;
# each call only filters. A change touches only the instances whose folders change.
locals {
  manifests = [for f in fileset("${path.module}/control-plane", "**/*.yaml") : file("${path.module}/control-plane/${f}")]
  prod      = provider::kalypso::environment_render("prod", local.manifests, { only_cluster_types = [] })
}

resource "kalypso_gitops_commit" "prod" {
  for_each       = toset(local.prod.cluster_types)
  repository_url = "https://github.com/example-org/fleet-gitops.git"
  branch         = "prod"
  path           = each.key
  files = {
    for p, c in provider::kalypso::environment_render("prod", local.manifests, { only_cluster_types = [each.key] }).files :
    trimprefix(p, "${each.key}/") => c
  }
  commit_message = "Kalypso: render prod/${each.key}"
}
