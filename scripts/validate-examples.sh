#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# `terraform validate` for every directory under examples/ that holds .tf files, offline.
# The provider is built once and served through a dev_overrides CLI config (as in scripts/demo.sh),
# so no registry and no `terraform init` are needed. Directories that are documentation snippets
# (no required_providers block) get a temporary one declaring kalypso/kalypso. Each directory is
# validated in a temporary copy, so the working tree is never touched.
# TERRAFORM=/path/to/tofu validates with OpenTofu instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tf="${TERRAFORM:-terraform}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
go build -o "$work/bin/terraform-provider-kalypso" .
cat > "$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/kalypso/kalypso" = "$work/bin"
    "registry.opentofu.org/kalypso/kalypso" = "$work/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"
export CHECKPOINT_DISABLE=1
export TF_IN_AUTOMATION=1

failed=0
count=0
while IFS= read -r dir; do
  rel=${dir#"$root"/}
  copy="$work/validate/$rel"
  mkdir -p "$copy"
  cp -r "$dir"/. "$copy"/
  rm -rf "$copy/.terraform" "$copy/.terraform.lock.hcl"
  if ! grep -qs 'required_providers' "$copy"/*.tf; then
    cat > "$copy/zz_validate_providers.tf" <<'HCL'
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}
HCL
  fi
  count=$((count + 1))
  if out=$(cd "$copy" && "$tf" validate -no-color 2>&1); then
    echo "ok    $rel"
  else
    echo "FAIL  $rel"
    # Drop the dev_overrides warning; keep the diagnostics.
    printf '%s\n' "$out" | grep -v -e 'Provider development overrides are in effect' -e 'dev_overrides' -e 'published releases' -e 'registry.terraform.io/kalypso/kalypso in' -e 'behavior may' -e 'checksums' | sed 's/^/      /'
    failed=$((failed + 1))
  fi
done < <(find "$root/examples" -name '*.tf' -not -path '*/.terraform/*' -exec dirname {} \; | sort -u)

echo "validated $count example directories, $failed failed"
[ "$failed" -eq 0 ]
