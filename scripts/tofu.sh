#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Prints the path of an OpenTofu binary, building it first when the cache has none.
#
# No OpenTofu release archive can be downloaded on CI's machines, and `go install
# github.com/opentofu/opentofu/cmd/tofu@vX` is refused because OpenTofu's go.mod has replace
# directives. So the module's source comes from the Go module proxy (`go mod download`), is copied
# out of the read-only module cache, and built there as the main module, where its replace
# directives apply. The binary is cached outside the checkout, in
# ${XDG_CACHE_HOME:-$HOME/.cache}/kalypso-ci/tofu-v<version>, so CI builds it once per machine.
#
#   tofu=$(bash scripts/tofu.sh)          # OpenTofu 1.10.10
#   TOFU_VERSION=1.9.4 bash scripts/tofu.sh
set -euo pipefail

version=${TOFU_VERSION:-1.10.10}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kalypso-ci
bin="$cache/tofu-v$version"

if [ ! -x "$bin" ]; then
  echo "building OpenTofu v$version from the Go module proxy's source into $bin" >&2
  mkdir -p "$cache"
  work=$(mktemp -d)
  trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
  # Outside any module, so the download does not touch a go.mod.
  dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/opentofu/opentofu@v$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "FAIL: go mod download github.com/opentofu/opentofu@v$version gave no source directory" >&2
    exit 1
  fi
  cp -r "$dir" "$work/src"
  chmod -R u+w "$work/src"
  # version.dev=no: a release build, so `tofu version` prints v<version>, not v<version>-dev.
  (cd "$work/src" && CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
    -o "$work/tofu" ./cmd/tofu) >&2
  mv "$work/tofu" "$bin"
fi

"$bin" version >&2
echo "$bin"
