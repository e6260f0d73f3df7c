#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Render-mode delivery at scale (issue 34, item 3): ONE kalypso_gitops_commit holding a whole environment,
# up to scale-300k (300,539 assignments, 903k files), with the real terraform binary and a local bare
# repository. For each build in REFS it runs the delivery step of compare.sh (first apply, empty
# re-plans, the change of one cluster type and one policy as `plan -out` then the apply of that plan in a
# second process, a last re-plan; peak RSS of terraform and of the provider, CPU of both), then merges
# the runs into delivery-scale.csv and delivery-scale.md, and (gnuplot) the log-log plot
# delivery-scale-300k.png of the last build, in OUT_DIR.
#
#   benchmarks/delivery-scale.sh                                   # main: 1k 10k 86k scale-300k
#   REFS="8c50a04 main" benchmarks/delivery-scale.sh               # with the build before issue 34's item 3
#   SIZES=scale-300k REFS=main benchmarks/delivery-scale.sh        # the headline figures only
#
# Each build's raw outputs stay in WORK_DIR/<commit>/out (compare.sh's delivery.csv, phases.csv,
# delivery.md); a later run with the same SIZES reuses them instead of measuring that commit again.
# Environment: REFS (default "main"), SIZES (default "1k 10k 86k scale-300k"), REPLANS (default 3),
# WORK_DIR (default /tmp/kalypso-delivery-scale), OUT_DIR (default benchmarks/results).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

REFS=${REFS:-main}
SIZES=${SIZES:-"1k 10k 86k scale-300k"}
WORK_DIR=${WORK_DIR:-/tmp/kalypso-delivery-scale}
OUT_DIR=${OUT_DIR:-$root/benchmarks/results}
mkdir -p "$WORK_DIR" "$OUT_DIR"

csv=$OUT_DIR/delivery-scale.csv
phases=$OUT_DIR/delivery-scale-phases.csv
first=1
for ref in $REFS; do
	sha=$(git rev-parse --short=12 "$ref^{commit}")
	run_dir=$WORK_DIR/$sha
	# A build's finished run of the same sizes is kept: a scale-300k run takes minutes.
	if [ -f "$run_dir/out/delivery.csv" ] && [ "$(cat "$run_dir/sizes" 2>/dev/null)" = "$SIZES" ]; then
		echo "==> $ref ($sha): the run in $run_dir/out" >&2
	else
		echo "==> $ref ($sha)" >&2
		rm -rf "$run_dir"
		mkdir -p "$run_dir"
		STEPS=delivery DELIVERY_SIZES="$SIZES" SMALL_CHANGE_SIZES= DELIVERY_PER_CT_SIZES= REPLANS=${REPLANS:-3} \
			PROVIDER_REF="$sha" WORK_DIR="$run_dir/work" OUT_DIR="$run_dir/out" bash benchmarks/compare.sh >"$run_dir/log" 2>&1 ||
			{ tail -20 "$run_dir/log" >&2; exit 1; }
		echo "$SIZES" >"$run_dir/sizes"
	fi
	if [ $first = 1 ]; then
		head -1 "$run_dir/out/delivery.csv" | sed 's/^/build,/' >"$csv"
		head -1 "$run_dir/out/phases.csv" | sed 's/^/build,/' >"$phases"
		first=0
	fi
	tail -n +2 "$run_dir/out/delivery.csv" | sed "s/^/$ref ($sha),/" >>"$csv"
	tail -n +2 "$run_dir/out/phases.csv" | sed "s/^/$ref ($sha),/" >>"$phases"
done

{
	echo "Render-mode delivery at scale: finished $(date -u +%FT%TZ), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(terraform version | head -1)."
	echo
	echo "| build | fleet | assignments | files | first apply s | first apply: provider CPU s | empty re-plan median s | change: plan s | change: apply s | change s | change: provider + terraform CPU s | re-plan after | peak RSS terraform + provider MiB | load at start |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
	# delivery.csv, after the build column: size pattern change assignments files first replan plan apply
	# total replan2 state tf_rss prov_rss rss_sum tf_cpu prov_cpu commits commits load replans median
	# prov_cpu_first (terraform's own CPU is left out: its rusage holds the providers only when it reaped them)
	tail -n +2 "$csv" | awk -F, '{printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s + %s | %s | %s (%s + %s) | %s |\n", $1, $2, $5, $6, $7, $24, $23, $9, $10, $11, $18, $17, $12, $16, $14, $15, $21}'
	echo
	echo "Where the change's time went (seconds, both provider processes; outside = terraform, the framework, start-up):"
	echo
	echo "| build | fleet | change s | refresh | render | keep tree | load tree | diff | write | push | provider other | outside |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	tail -n +2 "$phases" | awk -F, '{printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14}'
} | tee "$OUT_DIR/delivery-scale.md"

last=${REFS##* }
awk -F, -v b="$last" 'NR > 1 && index($1, b " (") == 1 && $7 + 0 > 0 {print $5, $7, $11, $23, $2, $24, $18}' "$csv" | sort -n >"$WORK_DIR/series.dat"
if command -v gnuplot >/dev/null && [ -s "$WORK_DIR/series.dat" ]; then
	read -r x0 y0 _ _ _ c0 _ <"$WORK_DIR/series.dat"
	gnuplot <<EOF
set terminal pngcairo size 1400,600 font ",11"
set output "$OUT_DIR/delivery-scale-300k.png"
set termoption noenhanced
set multiplot layout 1,2 title "render mode, one kalypso_gitops_commit, build $last ($(nproc) cores, load at the end $(cut -d' ' -f1-3 /proc/loadavg))"
set logscale xy
set grid
set key top left
set xlabel "assignments"
set ylabel "wall seconds"
set title "wall time"
plot "$WORK_DIR/series.dat" using 1:2 with linespoints title "first apply", \\
     "" using 1:3 with linespoints title "change: plan -out + apply", \\
     "" using 1:4 with linespoints title "empty re-plan (median)", \\
     "" using 1:2:5 with labels offset 0,1 notitle, \\
     [$x0:400000] x * $y0 / $x0 dashtype 2 lc rgb "gray" title "linear (slope 1) from the first apply"
set ylabel "provider CPU seconds (user + system)"
set title "provider CPU time"
plot "$WORK_DIR/series.dat" using 1:6 with linespoints title "first apply", \\
     "" using 1:7 with linespoints title "change: plan -out + apply", \\
     "" using 1:6:5 with labels offset 0,1 notitle, \\
     [$x0:400000] x * $c0 / $x0 dashtype 2 lc rgb "gray" title "linear (slope 1) from the first apply"
unset multiplot
EOF
fi
echo "==> wrote $csv, $phases, $OUT_DIR/delivery-scale.md$( [ -f "$OUT_DIR/delivery-scale-300k.png" ] && echo ", $OUT_DIR/delivery-scale-300k.png")" >&2
