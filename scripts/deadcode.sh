#!/usr/bin/env bash
# No production function is reached only by tests (ARCHITECTURE.md, "Naming rules"): deadcode
# (golang.org/x/tools/cmd/deadcode) lists every function of the module that the provider's main package
# cannot reach. A function only tests need lives in the package's export_test.go or helpers_test.go.
#
# .ci/deadcode-allowed.txt names the few that may stay for now, one "file: function" a line with the
# reason in a comment above it; an entry that deadcode no longer reports fails too, so the list only
# shrinks. Line numbers are left out so that edits around a function do not touch the list.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed=.ci/deadcode-allowed.txt
report=$(deadcode . | sed -E 's/^([^:]+):[0-9]+:[0-9]+: unreachable func: (.*)$/\1: \2/' | sort)
expected=$(grep -v -e '^#' -e '^$' "$allowed" | sort || true)

status=0
if unexpected=$(comm -23 <(echo "$report") <(echo "$expected") | grep -v '^$'); then
  echo "deadcode: production functions that only tests reach (move them to export_test.go or helpers_test.go, or remove them):" >&2
  echo "$unexpected" | sed 's/^/  /' >&2
  status=1
fi
if stale=$(comm -13 <(echo "$report") <(echo "$expected") | grep -v '^$'); then
  echo "deadcode: $allowed lists functions that are reached now; remove these lines:" >&2
  echo "$stale" | sed 's/^/  /' >&2
  status=1
fi
[ "$status" = 0 ] && echo "deadcode: no production function is reached only by tests ($(echo "$expected" | grep -c . || true) allowed in $allowed)"
exit "$status"
