#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# README's "Install from source", checked end to end: clone HEAD into a temporary directory, `make install`
# into a temporary HOME, then `terraform init` and `terraform plan` of a user's own configuration with no
# CLI configuration file, no dev_overrides and no network. The provider must come from the implicit local
# mirror (~/.terraform.d/plugins), init must write a lock file, and plan must show the render.
# TERRAFORM=/path/to/tofu checks OpenTofu instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tf="${TERRAFORM:-terraform}"
tf=$(command -v "$tf")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The Go caches stay where they are (the module proxy may be unreachable); everything Terraform reads
# from HOME starts empty.
export GOPATH GOMODCACHE GOCACHE
GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export HOME="$work/home"
mkdir -p "$HOME"
unset TF_CLI_CONFIG_FILE TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_plan
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

echo "==> git clone (HEAD of $root)"
git clone -q --no-hardlinks "$root" "$work/clone"
echo "==> make install"
make -C "$work/clone" --no-print-directory install

mkdir -p "$work/user"
cd "$work/user"
cat > main.tf <<'HCL'
terraform {
  required_providers {
    kalypso = {
      source  = "kalypso/kalypso"
      version = "~> 0.1"
    }
  }
}

resource "kalypso_cluster_type" "large" {
  name   = "large"
  labels = { size = "large" }
}

resource "kalypso_workload_registration" "app" {
  name      = "app"
  workspace = "team"
  workload = {
    deployment_targets = [{
      name        = "web"
      environment = "dev"
      labels      = { tier = "web" }
      manifests   = { repo = "https://example.com/app-gitops", branch = "dev", path = "./web" }
    }]
  }
}

resource "kalypso_scheduling_policy" "web" {
  name                       = "web-on-large"
  deployment_target_selector = { match_labels = { tier = "web" } }
  cluster_type_selector      = { match_labels = { size = "large" } }
}

locals {
  dev = provider::kalypso::environment_render("dev", [
    kalypso_cluster_type.large.manifest,
    kalypso_workload_registration.app.manifest,
    kalypso_scheduling_policy.web.manifest,
  ])
}

check "dev_render" {
  assert {
    condition     = length(local.dev.warnings) == 0
    error_message = join("\n", local.dev.warnings)
  }
}

output "dev_assignments" {
  value = [for a in local.dev.assignments : "${a.cluster_type}/${a.deployment_target}"]
}
HCL

echo "==> $tf init (offline, implicit local mirror)"
"$tf" init -input=false -no-color >init.txt 2>&1 || { cat init.txt; exit 1; }
cat init.txt
grep -q 'kalypso/kalypso v0.1.0' init.txt || { echo "FAIL: init did not install kalypso/kalypso v0.1.0 from the local mirror" >&2; exit 1; }
grep -q 'provider "registry.\(terraform.io\|opentofu.org\)/kalypso/kalypso"' .terraform.lock.hcl || { echo "FAIL: no lock file entry" >&2; cat .terraform.lock.hcl; exit 1; }
grep -q 'version     = "0.1.0"' .terraform.lock.hcl || { echo "FAIL: lock file does not pin 0.1.0" >&2; cat .terraform.lock.hcl; exit 1; }

echo "==> $tf plan"
"$tf" plan -input=false -no-color >plan.txt 2>&1 || { cat plan.txt; exit 1; }
if grep -qi -e 'dev_overrides' -e 'development overrides' -e 'Warning' plan.txt; then
  echo "FAIL: the plan has warnings:" >&2
  cat plan.txt >&2
  exit 1
fi
grep -q '"large/app-web"' plan.txt || { echo "FAIL: the plan does not show the assignment large/app-web" >&2; cat plan.txt >&2; exit 1; }
grep -E '^Plan:|large/app-web' plan.txt
echo "install-check: ok ($("$tf" version | head -1))"
