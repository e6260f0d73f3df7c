#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Shows why the environment_render function exists next to the data source: a kalypso_* resource
# changes, and both consume its manifest. Terraform reads the data source during apply, while the
# function's result is known in the plan. The excerpts in templates/guides/function-and-data-source.md.tmpl
# come from this script. Runs offline through a dev_overrides CLI config, like scripts/demo.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/config"

go build -o "$work/bin/terraform-provider-kalypso" .
cat > "$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/kalypso/kalypso" = "$work/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"
export CHECKPOINT_DISABLE=1
export TF_IN_AUTOMATION=1

cp examples/tutorial/kalypso/main/templates/*.yaml "$work/config/"
cat > "$work/config/main.tf" <<'HCL'
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "size" {
  type    = string
  default = "large"
}

resource "kalypso_cluster_type" "large" {
  name   = "large"
  labels = { size = var.size }
}

locals {
  # Templates from the tutorial, one policy and one workload: everything except the cluster type.
  fleet = concat(
    [for f in sort(fileset(path.module, "*.yaml")) : file("${path.module}/${f}")],
    [<<-YAML
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: SchedulingPolicy
      metadata:
        name: everything-on-large
      spec:
        deploymentTargetSelector: {}
        clusterTypeSelector:
          labelSelector:
            matchLabels:
              size: large
      ---
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: WorkloadRegistration
      metadata:
        name: hello-world-app
      spec:
        workload:
          repo: https://github.com/microsoft/kalypso-app-src
          branch: main
          path: workload/
        workspace: kaizen-app-team
      ---
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: Workload
      metadata:
        name: hello-world-app
      spec:
        deploymentTargets:
          - name: functional-test
            environment: dev
            manifests:
              repo: https://github.com/microsoft/kalypso-app-gitops
              branch: dev
              path: ./functional-test
      YAML
    ],
  )
}

# References the changing resource in its own arguments.
data "kalypso_environment_render" "dev" {
  environment = "dev"
  manifests   = concat(local.fleet, [kalypso_cluster_type.large.manifest])
}

output "assignments_from_data_source" {
  value = [for a in data.kalypso_environment_render.dev.assignments : "${a.cluster_type}/${a.deployment_target}"]
}

output "assignments_from_function" {
  value = [
    for a in provider::kalypso::environment_render("dev", concat(local.fleet, [kalypso_cluster_type.large.manifest])).assignments :
    "${a.cluster_type}/${a.deployment_target}"
  ]
}
HCL

cd "$work/config"
filter() { grep -v -e 'Provider development overrides' -e 'dev_overrides' -e 'kalypso/kalypso in' -e 'The behavior may' -e 'versions and checksums' -e 'published releases' -e '^│ *$' -e '^[╷╵]' || true; }
echo "==> first apply (size = large)"
terraform apply -input=false -auto-approve -no-color 2>&1 | tail -n 6
echo
echo "==> plan with the cluster type's label changing (size = medium)"
terraform plan -input=false -no-color -var size=medium 2>&1 | filter | sed '/^ *+ manifests *= \[/,/^ *\]$/c\      + manifests   = [ ... ] # elided by the script: the 7 input strings' 
