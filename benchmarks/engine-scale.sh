#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# The engine at scale (issue 34, item 3): internal/render Engine.Render of one environment, from the
# 1k preset up to 1,000,000 assignments (scale-1m: 1,000 cluster types x 1,000 deployment targets), one
# render per process. For each fleet and build it reports the render's wall time and the process CPU
# time (user + system, getrusage) from BenchmarkRenderFleetDir, and the process's peak RSS from
# /usr/bin/time -v. Builds (REFS) are compiled as engine-table.sh does (this checkout's harness copied into
# each), so an older build is measured in the same run. Writes engine-scale.csv, engine-scale.md and, with
# gnuplot, the log-log plot engine-scale.png to OUT_DIR.
#
#   benchmarks/engine-scale.sh                                   # main, every size, one round
#   REFS="8c50a04 main" benchmarks/engine-scale.sh               # with the build before issue 34's item 3
#   SIZES=scale-1m benchmarks/engine-scale.sh                    # the headline figure only
#
# A scale-1m render takes the whole machine (both cores, about 4 GiB): never run two at once. Environment:
# REFS (default "main"), SIZES (default "1k 10k 100k scale-300k scale-1m"), ROUNDS (default 1), WORK_DIR
# (scratch; fleets and binaries are kept and reused, default /tmp/kalypso-engine-scale), OUT_DIR (default
# benchmarks/results).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

REFS=${REFS:-main}
SIZES=${SIZES:-"1k 10k 100k scale-300k scale-1m"}
ROUNDS=${ROUNDS:-1}
WORK_DIR=${WORK_DIR:-/tmp/kalypso-engine-scale}
OUT_DIR=${OUT_DIR:-$root/benchmarks/results}
harness=internal/render/fleetdir_bench_test.go
mkdir -p "$WORK_DIR/fleets" "$WORK_DIR/bin" "$WORK_DIR/logs" "$OUT_DIR"

load() { cut -d' ' -f1 /proc/loadavg; }

declare -A bin
for ref in $REFS; do
	sha=$(git rev-parse --short=12 "$ref^{commit}")
	bin[$ref]=$WORK_DIR/bin/render-$sha.test
	[ -x "${bin[$ref]}" ] && continue
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

go build -o "$WORK_DIR/bin/fleetgen" ./tools/fleetgen
for f in $SIZES; do
	[ -d "$WORK_DIR/fleets/$f" ] || "$WORK_DIR/bin/fleetgen" -size "$f" -out "$WORK_DIR/fleets/$f" >&2
done

csv=$OUT_DIR/engine-scale.csv
echo "round,size,ref,assignments,wall_s,cpu_s,peak_rss_mib,wall_us_per_assignment,cpu_us_per_assignment,load_before,load_after" >"$csv"
echo "started $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq "$ROUNDS"); do
	for f in $SIZES; do
		for ref in $REFS; do
			before=$(load)
			log=$WORK_DIR/logs/$r-$f-$ref
			KALYPSO_BENCH_FLEET="$WORK_DIR/fleets/$f" /usr/bin/time -v -o "$log.time" \
				"${bin[$ref]}" -test.run '^$' -test.bench 'RenderFleetDir$' -test.benchtime 1x >"$log.out"
			# BenchmarkRenderFleetDir-2  1  <ns> ns/op  <n> assignments  <cpu> cpu-us/assignment  <wall> us/assignment
			fig=$(awk '/^BenchmarkRenderFleetDir/ { for (i = 2; i <= NF; i++) v[$i] = $(i-1); print v["assignments"], v["us/assignment"], v["cpu-us/assignment"] }' "$log.out")
			rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log.time")
			echo "$r $f $ref $fig $rss $before $(load)" |
				awk -v OFS=, '{print $1, $2, $3, $4, sprintf("%.2f", $4 * $5 / 1e6), sprintf("%.2f", $4 * $6 / 1e6), $7, $5, $6, $8, $9}' | tee -a "$csv" >&2
		done
	done
done

{
	echo "Engine at scale: $(date -u +%FT%TZ), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM, GOMAXPROCS default; one render per process. Builds:"
	for ref in $REFS; do echo "- $ref = $(git rev-parse --short=12 "$ref^{commit}")"; done
	echo
	echo "| round | fleet | build | assignments | wall s | CPU s | peak RSS MiB | wall µs/assignment | CPU µs/assignment | load before | load after |"
	echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	tail -n +2 "$csv" | awk -F, '{printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n"}'
} | tee "$OUT_DIR/engine-scale.md"

# Log-log: wall and CPU seconds and peak RSS against assignments, the last build of REFS, with a slope-1
# reference through the smallest fleet.
last=${REFS##* }
awk -F, -v ref="$last" 'NR > 1 && $3 == ref {print $4, $5, $6, $7, $2}' "$csv" | sort -n >"$WORK_DIR/series.dat"
if command -v gnuplot >/dev/null && [ -s "$WORK_DIR/series.dat" ]; then
	read -r x0 w0 _ m0 _ <"$WORK_DIR/series.dat"
	gnuplot <<EOF
set terminal pngcairo size 1300,560 font ",11"
set output "$OUT_DIR/engine-scale.png"
set termoption noenhanced
set multiplot layout 1,2 title "Engine.Render, one environment ($(nproc) cores, build $last, load at the end $(cut -d' ' -f1-3 /proc/loadavg))"
set logscale xy
set grid
set key top left
set xlabel "assignments"
set ylabel "seconds"
set title "time per render"
plot "$WORK_DIR/series.dat" using 1:2 with linespoints title "wall", \\
     "" using 1:3 with linespoints title "CPU (user + system)", \\
     "" using 1:2:5 with labels offset 0,1 notitle, \\
     [$x0:1000000] x * $w0 / $x0 dashtype 2 lc rgb "gray" title "linear (slope 1)"
set ylabel "MiB"
set title "peak RSS of the process"
plot "$WORK_DIR/series.dat" using 1:4 with linespoints title "peak RSS", \\
     [$x0:1000000] x * $m0 / $x0 dashtype 2 lc rgb "gray" title "linear (slope 1)"
unset multiplot
EOF
fi
echo "==> wrote $csv, $OUT_DIR/engine-scale.md$( [ -f "$OUT_DIR/engine-scale.png" ] && echo ", $OUT_DIR/engine-scale.png")" >&2
