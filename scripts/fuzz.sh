#!/usr/bin/env bash
# Runs every Go fuzz target of the engine for the given number of seconds each (default 10), one after another.
# A failure stops the script; the failing input is written under the package's testdata/fuzz/<FuzzName>/ and
# becomes a regression case of the plain `go test` run once committed.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-10}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
  echo "usage: $0 [seconds per target, default 10]" >&2
  exit 2
fi

targets=(
  "./internal/model FuzzSplitAndDecode"
  "./internal/model FuzzSplitMatchesYAMLStream"
  "./internal/render FuzzSelector"
  "./internal/platformconfig FuzzParseValueAndMerge"
  "./internal/templating FuzzTemplateExecute"
  "./internal/render FuzzRenderLayout"
)

for entry in "${targets[@]}"; do
  read -r pkg name <<<"$entry"
  echo "== fuzz ${name} (${pkg}) for ${secs}s"
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="${secs}s" "$pkg"
done
echo "== all fuzz targets passed (${#targets[@]} x ${secs}s)"
