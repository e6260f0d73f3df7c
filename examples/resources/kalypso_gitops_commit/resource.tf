# Credentials come from the provider (git_token, or GIT_TOKEN / GITHUB_TOKEN; ssh_private_key or
# GIT_SSH_KEY) and are never stored in state.
provider "kalypso" {
  author = {
    name  = "Kalypso CI"
    email = "kalypso-ci@example.com"
  }
}

locals {
  manifests = [for f in fileset("${path.module}/control-plane", "**/*.yaml") : file("${path.module}/control-plane/${f}")]
}

# Render mode, for an environment of any size: the resource renders the environment itself, plans
# against the branch (every file it will create, update or delete is in `changes`) and pushes one
# commit per apply. No file content passes through the state.
resource "kalypso_gitops_commit" "dev" {
  repository_url = "https://github.com/example-org/fleet-gitops.git"
  branch         = "dev"
  render = {
    environment = "dev"
    manifests   = local.manifests
  }
  commit_message     = "Kalypso: render dev"
  promoted_commit_id = "4a5c2e1d0b9f8e7d6c5b4a392817161514131211"
}

# GitHub pull-request mode: the change is proposed from the stable head branch kalypso/stage as one
# pull request per environment, updated in place on later applies.
resource "kalypso_gitops_commit" "stage" {
  repository_url = "https://github.com/example-org/fleet-gitops.git"
  branch         = "stage"
  render = {
    environment = "stage"
    manifests   = local.manifests
  }

  pull_request = {
    labels = ["kalypso"]
  }
}

# Files mode, for hand-made or small trees: the map is the desired content of `path`. Paths of two
# resources on one branch may not contain one another (here the dev branch's root belongs to "dev").
resource "kalypso_gitops_commit" "platform" {
  repository_url = "https://github.com/example-org/fleet-gitops.git"
  branch         = "main"
  path           = "platform"
  files = {
    "namespaces/monitoring.yaml" = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n"
  }
}
