# The reverse direction: a control-plane repository written from the model resources' `manifest`s,
# in the upstream layout (templates and registrations on `main`, the environment on `dev`), so the
# upstream operator, or kalypso_control_plane, can read it. Reading it back renders the same tree.
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "control_plane_repo" {
  description = "Control-plane repository to write (file://, https:// or ssh://)."
  type        = string
}

provider "kalypso" {
  author = {
    name  = "Platform Team"
    email = "platform@example.com"
  }
}

# --- The model, as resources ---------------------------------------------------------------------

resource "kalypso_template" "reconciler" {
  name = "arc-flux"
  type = "reconciler"
  manifests = [<<-YAML
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata:
      name: "{{ .DeploymentTargetName }}"
      namespace: flux-system
    spec:
      interval: 1m
      url: "{{ .Manifests.repo }}"
      ref:
        branch: "{{ .Manifests.branch }}"
    YAML
  ]
}

resource "kalypso_template" "namespace" {
  name = "default"
  type = "namespace"
  manifests = [<<-YAML
    apiVersion: v1
    kind: Namespace
    metadata:
      name: "{{ .Namespace }}"
    YAML
  ]
}

resource "kalypso_template" "config" {
  name = "configmap"
  type = "config"
  manifests = [<<-YAML
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: platform-config
      namespace: "{{ .Namespace }}"
    data: {{ toYaml .ConfigData | nindent 2 }}
    YAML
  ]
}

resource "kalypso_cluster_type" "large" {
  name   = "large"
  labels = { size = "large" }
}

resource "kalypso_platform_config" "dev" {
  name   = "dev-config"
  labels = { "platform-config" = "true" }
  data   = { ENVIRONMENT = "Dev" }
}

resource "kalypso_scheduling_policy" "services_on_large" {
  name = "services-on-large"
  deployment_target_selector = {
    workspace    = "platform-team"
    match_labels = { type = "service" }
  }
  cluster_type_selector = {
    match_labels = { size = "large" }
  }
}

resource "kalypso_workload_registration" "observability" {
  name      = "observability"
  workspace = "platform-team"
  workload = {
    labels = { type = "service" }
    deployment_targets = [{
      name        = "prometheus"
      environment = "dev"
      manifests = {
        repo   = "https://github.com/example/observability-gitops"
        branch = "dev"
        path   = "./prometheus"
      }
    }]
  }
}

locals {
  main_files = {
    "templates/arc-flux.yaml"      = kalypso_template.reconciler.manifest
    "templates/namespace.yaml"     = kalypso_template.namespace.manifest
    "templates/configmap.yaml"     = kalypso_template.config.manifest
    "workloads/observability.yaml" = kalypso_workload_registration.observability.manifest
  }
  dev_files = {
    "cluster-types/large.yaml"          = kalypso_cluster_type.large.manifest
    "configs/dev-config.yaml"           = kalypso_platform_config.dev.manifest
    "scheduling/services-on-large.yaml" = kalypso_scheduling_policy.services_on_large.manifest
  }

  # The render straight from the resources. The function keeps it in the plan while they change.
  direct = provider::kalypso::environment_render("dev", concat(values(local.main_files), values(local.dev_files)))
}

# --- Write the control plane ---------------------------------------------------------------------

resource "kalypso_gitops_commit" "main" {
  repository_url = var.control_plane_repo
  branch         = "main"
  create_branch  = true # the control-plane repository starts empty
  files          = local.main_files
  commit_message = "Kalypso control plane: templates and registrations"
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = var.control_plane_repo
  branch         = "dev"
  create_branch  = true
  files          = local.dev_files
  commit_message = "Kalypso control plane: dev environment"
}

# --- Read it back as the operator would ------------------------------------------------------------

# These read after the commits (they depend on them), so they are read at apply time.
data "kalypso_control_plane" "main" {
  git = {
    repo   = var.control_plane_repo
    branch = "main"
  }
  depends_on = [kalypso_gitops_commit.main]
}

data "kalypso_control_plane" "dev" {
  git = {
    repo   = var.control_plane_repo
    branch = "dev"
  }
  depends_on = [kalypso_gitops_commit.dev]
}

data "kalypso_environment_render" "read_back" {
  environment = "dev"
  manifests   = concat(data.kalypso_control_plane.main.manifests, data.kalypso_control_plane.dev.manifests)
}

output "same_render" {
  description = "True when the repository read back renders exactly what the resources render."
  value       = data.kalypso_environment_render.read_back.content_hash == local.direct.content_hash
}

output "files" {
  value = local.direct.files
}
