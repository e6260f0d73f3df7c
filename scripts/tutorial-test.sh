#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# `terraform test` of examples/tutorial/tests, offline and without dev_overrides: the provider is installed
# with `make install` into the implicit local mirror of a temporary HOME, as README's Install section says,
# and the tutorial is initialised and tested in a temporary copy. TERRAFORM=/path/to/tofu runs it with
# OpenTofu instead, which reads tests/placement.tofutest.hcl in place of placement.tftest.hcl.
# Terraform needs 1.11 or later (`override_during`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tf=$(command -v "${TERRAFORM:-terraform}")

# The OpenTofu twin may differ from the Terraform suite only in its comments and `override_during`.
strip() { sed -e '/^#/d' -e '/override_during = plan/d' "$1" | tr -s ' '; }
if ! diff <(strip examples/tutorial/tests/placement.tftest.hcl) <(strip examples/tutorial/tests/placement.tofutest.hcl) >&2; then
  echo "FAIL: tests/placement.tofutest.hcl is not placement.tftest.hcl without override_during; change both together" >&2
  exit 1
fi

version=$("$tf" version -json | sed -n 's/.*"terraform_version": *"\([0-9]*\.[0-9]*\).*/\1/p')
# The version text is read whole before it is searched: `tf version | grep -q` under pipefail fails
# when grep exits first and the CLI gets SIGPIPE (exit 141), which made OpenTofu look like Terraform.
version_text=$("$tf" version 2>/dev/null)
if ! grep -q '^OpenTofu' <<<"$version_text"; then
  # override_during = plan (the tests replace the Git-reading resources during plan) needs Terraform 1.11.
  if [ "$(printf '%s\n1.11\n' "$version" | sort -V | head -1)" != "1.11" ]; then
    echo "FAIL: terraform test of the tutorial needs Terraform >= 1.11 (override_during); $tf is $version" >&2
    exit 1
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export GOPATH GOMODCACHE GOCACHE
GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export HOME="$work/home"
mkdir -p "$HOME"
unset TF_CLI_CONFIG_FILE TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_test
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

make --no-print-directory install >/dev/null
cp -r "$root/examples/tutorial" "$work/tutorial"
cd "$work/tutorial"
rm -rf .terraform .terraform.lock.hcl
"$tf" init -input=false -no-color >init.txt 2>&1 || { cat init.txt; exit 1; }
"$tf" test -no-color
