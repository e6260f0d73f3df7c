#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# The engine table of BENCHMARKS.md (issue 22, item 2): wall and CPU time per assignment of
# internal/render Engine.Render, for several builds side by side in one run.
#
# For each ref it checks the build out into a temporary worktree, copies this checkout's harness
# (internal/render/fleetdir_bench_test.go, BenchmarkRenderFleetDir) into it and compiles a test binary.
# It generates each fleet once with this checkout's tools/fleetgen, then runs ROUNDS rounds; in each
# round every fleet is rendered once by every build, one render per process, builds interleaved, so that
# a change in the machine's load hits every build alike. It prints the raw lines and a markdown table
# (medians, with the range over the rounds) with the load average seen during the runs. Run it on an
# idle machine: wall times under load are several times the idle ones.
#
#   benchmarks/engine-table.sh                                  # 6729ffd and main, three fleets, 3 rounds
#   REFS="6729ffd main" FLEETS="upstream-5.8k costlier-86k 86k" ROUNDS=5 benchmarks/engine-table.sh
#   FLEETS=1k ROUNDS=1 benchmarks/engine-table.sh               # a quick check of the script itself
#
# Environment: REFS (git refs, default "6729ffd main"; 6729ffd is the build before issue 14), FLEETS
# (fleetgen presets, default "upstream-5.8k costlier-86k 86k"), ROUNDS (default 3), WORK_DIR (scratch,
# default /tmp/kalypso-engine-table; fleets and binaries are kept there and reused), OUT (the raw lines
# and the table are also written there, default WORK_DIR/engine-table.md). GOMAXPROCS is left at its
# default, as the target asks.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

REFS=${REFS:-"6729ffd main"}
FLEETS=${FLEETS:-"upstream-5.8k costlier-86k 86k"}
ROUNDS=${ROUNDS:-3}
WORK_DIR=${WORK_DIR:-/tmp/kalypso-engine-table}
OUT=${OUT:-$WORK_DIR/engine-table.md}
harness=internal/render/fleetdir_bench_test.go
mkdir -p "$WORK_DIR/fleets" "$WORK_DIR/bin"

load() { cut -d' ' -f1 /proc/loadavg; }

# One test binary per ref, named by its commit so that a moved branch is rebuilt.
declare -A bin
for ref in $REFS; do
	sha=$(git rev-parse --short=12 "$ref^{commit}")
	bin[$ref]=$WORK_DIR/bin/render-$sha.test
	if [ -x "${bin[$ref]}" ]; then
		continue
	fi
	wt=$(mktemp -d "$WORK_DIR/wt-XXXXXX")
	# shellcheck disable=SC2064 # the worktree of this iteration
	trap "git worktree remove --force '$wt' 2>/dev/null || true" EXIT
	git worktree add --quiet --detach "$wt" "$sha"
	cp "$root/$harness" "$wt/$harness"
	echo "building $ref ($sha)" >&2
	(cd "$wt" && go test -c -o "${bin[$ref]}" ./internal/render)
	git worktree remove --force "$wt"
	trap - EXIT
done

for f in $FLEETS; do
	if [ ! -d "$WORK_DIR/fleets/$f" ]; then
		go run ./tools/fleetgen -size "$f" -out "$WORK_DIR/fleets/$f" >&2
	fi
done

raw=$WORK_DIR/engine-table.raw
: >"$raw"
echo "started $(date -u +%FT%TZ), $(nproc) cores, load $(load)" >&2
for r in $(seq "$ROUNDS"); do
	for f in $FLEETS; do
		for ref in $REFS; do
			before=$(load)
			line=$(KALYPSO_BENCH_FLEET="$WORK_DIR/fleets/$f" "${bin[$ref]}" -test.run '^$' -test.bench 'RenderFleetDir$' -test.benchtime 1x | grep '^BenchmarkRenderFleetDir')
			# BenchmarkRenderFleetDir-2  1  <ns> ns/op  <n> assignments  <cpu> cpu-us/assignment  <wall> us/assignment
			fig=$(echo "$line" | awk '{ for (i = 2; i <= NF; i++) v[$i] = $(i-1); print v["assignments"], v["cpu-us/assignment"], v["us/assignment"] }')
			echo "$r $f $ref $fig $before $(load)" | tee -a "$raw" >&2
		done
	done
done

# round fleet ref assignments cpu-µs wall-µs load-before load-after
table=$(awk -v refs="$REFS" -v fleets="$FLEETS" '
	function median(list,   a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		lo = a[1]; hi = a[n]
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function cell(list,   m) { m = median(list); return sprintf("%.1f (%.1f–%.1f)", m, lo, hi) }
	{
		k = $2 SUBSEP $3; n[$2] = $4
		cpu[k] = cpu[k] " " $5; wall[k] = wall[k] " " $6
		for (i = 7; i <= 8; i++) { if (minload == "" || $i + 0 < minload) minload = $i + 0; if ($i + 0 > maxload) maxload = $i + 0 }
	}
	END {
		nr = split(refs, R, " "); nf = split(fleets, F, " ")
		head = "| fleet | assignments |"; sep = "|---|---:|"
		for (i = 1; i <= nr; i++) { head = head " CPU µs/assignment " R[i] " |"; sep = sep "---:|" }
		for (i = 1; i <= nr; i++) { head = head " wall µs/assignment " R[i] " |"; sep = sep "---:|" }
		for (i = 1; i <= nr; i++) { head = head " wall s/render " R[i] " |"; sep = sep "---:|" }
		print head; print sep
		for (j = 1; j <= nf; j++) {
			row = "| `" F[j] "` | " n[F[j]] " |"
			for (i = 1; i <= nr; i++) row = row " " cell(cpu[F[j], R[i]]) " |"
			for (i = 1; i <= nr; i++) row = row " " cell(wall[F[j], R[i]]) " |"
			for (i = 1; i <= nr; i++) row = row sprintf(" %.2f |", median(wall[F[j], R[i]]) * n[F[j]] / 1e6)
			print row
		}
		printf "\nMedian (min–max) of %s round(s), one render per process, builds interleaved; load average (1 min) %.2f–%.2f during the runs.\n", rounds, minload, maxload
	}' rounds="$ROUNDS" "$raw")

{
	echo "Engine table: $(date -u +%FT%TZ), $(nproc) cores, GOMAXPROCS default, refs:"
	for ref in $REFS; do echo "- $ref = $(git rev-parse --short=12 "$ref^{commit}")"; done
	echo
	echo "$table"
	echo
	echo "Raw (round fleet ref assignments cpu-µs/assignment wall-µs/assignment load-before load-after):"
	echo '```'
	cat "$raw"
	echo '```'
} | tee "$OUT"
