#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Fails when `make generate` changes docs/: the committed documentation must be what tfplugindocs
# produces from templates/, examples/ and the provider schema.
set -euo pipefail
cd "$(dirname "$0")/.."

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  make generate
  changes=$(git status --porcelain docs/)
  if [ -n "$changes" ]; then
    echo "docs/ is out of date with templates/, examples/ or the schema; run 'make generate' and commit docs/:" >&2
    printf '%s\n' "$changes" >&2
    git --no-pager diff --stat docs/ >&2 || true
    exit 1
  fi
else
  # Not a Git checkout (for example a source archive): compare against a snapshot instead.
  snapshot=$(mktemp -d)
  trap 'rm -rf "$snapshot"' EXIT
  cp -r docs "$snapshot/docs"
  make generate
  if ! diff -r "$snapshot/docs" docs >&2; then
    echo "docs/ is out of date; run 'make generate'." >&2
    exit 1
  fi
fi
# Every page README.md links to exists.
missing=0
for page in $(grep -o '](docs/[^)#]*' README.md | sed 's/^](//' | sort -u); do
  if [ ! -f "$page" ]; then
    echo "README.md links to $page, which does not exist" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1
echo "docs/ is up to date"
