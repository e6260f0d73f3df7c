#!/usr/bin/env bash
# The input-feature table of BENCHMARKS.md (issue 34): BenchmarkFeatureCost on this tree and on reference
# builds of the engine, in one run, one binary after the other in each round, so that all of them see the
# same machine. A reference is a commit; its engine is built with this tree's fleet generator and feature
# benchmark (internal/testutil/fleet, internal/render/features_bench_test.go), so that every build renders
# the same fleets. Prints the raw benchmark lines, then one Markdown table per build.
#
#   bash scripts/bench-features.sh                  # this tree and b8c6c07 (the build before issue 34)
#   ROUNDS=2 BENCHTIME=5x bash scripts/bench-features.sh b8c6c07 c31e8a4
#   FILTER='upstream-5.8k/(nested|hash)$' bash scripts/bench-features.sh
#   REF_FILTER='/(nested|workload-schemas)$' bash scripts/bench-features.sh b8c6c07 8c50a04
set -euo pipefail
cd "$(dirname "$0")/.."

benchtime="${BENCHTIME:-5x}"
rounds="${ROUNDS:-1}"
# A filter is what follows BenchmarkFeatureCost/ in -bench: shape/feature, each a regular expression
# (an empty shape matches every shape).
filter="${FILTER:-}"
ref_filter="${REF_FILTER:-$filter}" # the rows the reference builds run
refs=("$@")
[ ${#refs[@]} -eq 0 ] && refs=(b8c6c07)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

builds=(tree)
go test -c -o "$tmp/tree.test" ./internal/render
for ref in "${refs[@]}"; do
  src="$tmp/src-$ref"
  mkdir -p "$src"
  git archive "$ref" | tar -x -C "$src"
  rm -rf "$src/internal/testutil/fleet"
  cp -r internal/testutil/fleet "$src/internal/testutil/fleet"
  cp internal/render/features_bench_test.go "$src/internal/render/"
  (cd "$src" && go test -c -o "$tmp/$ref.test" ./internal/render)
  builds+=("$ref")
done

echo "# $(date -u +%FT%TZ) $(uptime)"
for round in $(seq "$rounds"); do
  for build in "${builds[@]}"; do
    echo "# round $round, build $build"
    f="$filter"
    [ "$build" = tree ] || f="$ref_filter"
    (cd internal/render && "$tmp/$build.test" -test.run '^$' -test.bench "BenchmarkFeatureCost/$f" -test.benchtime "$benchtime") |
      grep '^BenchmarkFeatureCost' | sed "s|^|$build |" | tee -a "$tmp/results"
  done
  echo "# $(date -u +%FT%TZ) $(uptime)"
done

# One table per build: the median of the rounds would need more rounds than a loaded machine allows, so
# every round gets its own row.
for build in "${builds[@]}"; do
  echo
  echo "build $build:"
  echo
  echo "| shape / feature | CPU µs/asg without | with | ratio | wall µs/asg without | with | ratio |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -v b="$build" '$1 == b {
    name = $2; sub(/^BenchmarkFeatureCost\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i++) m[$(i + 1)] = $i
    printf "| %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |\n", name, m["cpu-us/asg-without"], m["cpu-us/asg-with"], m["cpu-ratio"], m["us/asg-without"], m["us/asg-with"], m["wall-ratio"]
  }' "$tmp/results"
done
