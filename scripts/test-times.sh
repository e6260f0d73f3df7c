#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# README's test command, timed: runs `TF_ACC=1 go test -count=1 -timeout 60m -json ./...` under
# /usr/bin/time -v (with KALYPSO_TOFU as .ci/run sets it, so the OpenTofu cases run too) and prints the wall
# and CPU time, the load average before and after, and tools/testtimes' report: each package's time, the
# slowest 20 tests and the critical path. The compilation is warmed up first (go test -run '^$'), so a
# changed tree's compile is not counted; the test binaries are linked in the timed run, as always.
#
#   bash scripts/test-times.sh [output prefix]   # writes <prefix>.json, .time, .uptime, .txt
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-${TMPDIR:-/tmp}/kalypso-test-times}"
if [ -z "${KALYPSO_TOFU:-}" ]; then
  if KALYPSO_TOFU=$(bash scripts/tofu.sh 2>/dev/null); then
    export KALYPSO_TOFU
  else
    echo "warning: no OpenTofu (scripts/tofu.sh failed); its cases are skipped" >&2
    unset KALYPSO_TOFU
  fi
fi

go test -count=1 -run '^$' ./... >/dev/null
uptime | tee "$out.uptime"
status=0
TF_ACC=1 /usr/bin/time -v -o "$out.time" go test -count=1 -timeout 60m -json ./... >"$out.json" || status=$?
uptime | tee -a "$out.uptime"
grep -E 'Elapsed \(wall|User time|System time|Percent of CPU|Maximum resident' "$out.time"
go run ./tools/testtimes -n 20 "$out.json" | tee "$out.txt"
exit "$status"
