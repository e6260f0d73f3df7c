#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Side-by-side scale run, for BENCHMARKS.md. For each generated fleet it times `terraform plan`
# (wall clock, and the peak RSS of terraform and of the provider process, measured separately) for:
#   fn        provider::kalypso::environment_render, the whole result in one call
#   ds        the kalypso_environment_render data source, the whole result
#   fn-per-ct the function once per cluster type with { only_cluster_types = [ct] }, the for_each pattern
#   hcl       benchmarks/hcl-baseline (1k and 10k only, under a timeout)
# then times the first push and a one-file incremental push of the rendered tree into a local bare
# repository, through `terraform apply` of kalypso_gitops_commit (one resource holding the whole tree,
# small fleets; one resource per cluster type, up to 86k) and through the same Git code driven by
# tools/benchpush (every fleet). Writes results.csv, push.csv, results.md and
# scale.png (log-log, gnuplot) to OUT_DIR.
#
#   benchmarks/compare.sh                       # all sizes
#   SIZES="1k 10k" benchmarks/compare.sh        # a subset
#
# The delivery step (issue 13) compares, on the same fleet and in the same run, ONE kalypso_gitops_commit
# in render mode holding the whole environment on one branch with one `files` resource per cluster
# type: first apply, an empty re-plan, a model change that adds one assignment (one policy added: plan
# -out, then apply of that plan), the state file, peak RSS of terraform and of the provider, commits. It
# also times the plan of that small change at about 5.7k assignments against the plain-HCL plan of the
# same fleet. It writes delivery.csv, small-change.csv and delivery.md.
#
#   STEPS=delivery benchmarks/compare.sh        # only the delivery step (make bench-delivery)
#
# Environment: STEPS (default "plan push delivery"), DELIVERY_SIZES (render mode, default "86k costlier-86k"),
# DELIVERY_CHANGE (the model change of DELIVERY_SIZES: "cluster-type-and-policy", issue 22's, the default,
# or "policy", issue 13's one policy; the small change against plain HCL is always "policy"),
# PROVIDER_REF (build the provider of that git ref), PROVIDER_BUILD_FLAGS (go build flags of the provider),
# DELIVERY_PER_CT_SIZES (per-cluster-type files, default "1k": at 86k its 300 instances take hours), SMALL_CHANGE_SIZES (default
# "quarter-5.7k"), DELIVERY_TIMEOUT seconds per terraform command (default 1800), REPLANS (empty re-plans in
# a row after the first apply, default 5: all listed, and their median),
# WORK_DIR (scratch, default /tmp/kalypso-bench), OUT_DIR (default benchmarks/results),
# SIZES (default "1k 10k 86k 100k"), HCL_SIZES (default "1k 10k"), HCL_TIMEOUT seconds (default 900),
# PLAN_TIMEOUT seconds (default 900), TF_PUSH_SIZES (one resource holding the whole tree, default
# "1k 10k"), TF_PUSH_PER_CT_SIZES (one resource per cluster type, default "1k 10k 86k"), GO_BENCH (a
# `go test -bench` output to take the engine figures from; make bench passes it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

WORK_DIR=${WORK_DIR:-/tmp/kalypso-bench}
OUT_DIR=${OUT_DIR:-$root/benchmarks/results}
SIZES=${SIZES:-"1k 10k 86k 100k"}
HCL_SIZES=${HCL_SIZES:-"1k 10k"}
HCL_TIMEOUT=${HCL_TIMEOUT:-900}
PLAN_TIMEOUT=${PLAN_TIMEOUT:-900}
TF_PUSH_SIZES=${TF_PUSH_SIZES:-"1k 10k"}
TF_PUSH_PER_CT_SIZES=${TF_PUSH_PER_CT_SIZES:-"1k 10k 86k"}
GO_BENCH=${GO_BENCH:-}
STEPS=${STEPS:-"plan push delivery"}
DELIVERY_SIZES=${DELIVERY_SIZES-"86k costlier-86k"}
DELIVERY_CHANGE=${DELIVERY_CHANGE:-cluster-type-and-policy}
DELIVERY_PER_CT_SIZES=${DELIVERY_PER_CT_SIZES-1k}
SMALL_CHANGE_SIZES=${SMALL_CHANGE_SIZES-quarter-5.7k}
DELIVERY_TIMEOUT=${DELIVERY_TIMEOUT:-1800}
REPLANS=${REPLANS:-5}
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

rm -rf "$WORK_DIR"
mkdir -p "$WORK_DIR"/{bin,wrap,provtime,logs} "$OUT_DIR"

echo "==> building the provider and tools"
# PROVIDER_BUILD_FLAGS="-tags benchprofile" builds the provider that writes CPU profiles of itself to
# $KALYPSO_BENCH_CPUPROFILE (main_benchprofile.go). PROVIDER_REF (a git ref) builds the provider of that
# commit instead of this checkout's, to measure an older build on the same fleets in the same run; the
# fleets and tools are always this checkout's.
if [ -n "${PROVIDER_REF:-}" ]; then
  provider_src=$(mktemp -d "$WORK_DIR/provider-src-XXXXXX")
  git worktree add --quiet --detach "$provider_src" "$PROVIDER_REF"
  # shellcheck disable=SC2086 # flags, split on purpose
  (cd "$provider_src" && go build ${PROVIDER_BUILD_FLAGS:-} -o "$WORK_DIR/bin/terraform-provider-kalypso" .)
  git worktree remove --force "$provider_src"
else
  # shellcheck disable=SC2086 # flags, split on purpose
  go build ${PROVIDER_BUILD_FLAGS:-} -o "$WORK_DIR/bin/terraform-provider-kalypso" .
fi
go build -o "$WORK_DIR/benchpush" ./tools/benchpush
go build -o "$WORK_DIR/fleetgen" ./tools/fleetgen

# Terraform starts the provider through this wrapper, so that /usr/bin/time reports each provider
# process's own peak RSS and CPU time. Terraform passes its environment on to plugins. time runs as a
# child, not through exec: when a busy provider is slow to shut down, go-plugin kills the process it
# started, and that must not take the report with it.
cat >"$WORK_DIR/wrap/terraform-provider-kalypso" <<EOF
#!/bin/sh
/usr/bin/time -v -o "\$KALYPSO_BENCH_PROVTIME/\$\$" "$WORK_DIR/bin/terraform-provider-kalypso" "\$@" &
wait \$!
EOF
chmod +x "$WORK_DIR/wrap/terraform-provider-kalypso"
cat >"$WORK_DIR/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/kalypso/kalypso" = "$WORK_DIR/wrap"
  }
  direct {}
}
EOF
# The render store and inspection memo default to the user's cache directory, which every other run on the
# machine shares, and what those left there changed the load-tree figures: each run gets its own, empty
# one (XDG_CACHE_HOME moves only those; cache_dir stays unset, as in a default configuration).
export TF_CLI_CONFIG_FILE="$WORK_DIR/terraformrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 XDG_CACHE_HOME="$WORK_DIR/user-cache"

# --- Terraform configurations -------------------------------------------------------------------

# Every configuration reads the fleet the same way and outputs the same small summary, so that the
# plan measures rendering and moving the result through Terraform, not printing 260k files.
mkdir -p "$WORK_DIR/tf/fn" "$WORK_DIR/tf/ds" "$WORK_DIR/tf/fn-per-ct"
header='terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}

variable "fleet_dir" { type = string }

locals {
  manifests = [for f in sort(fileset(var.fleet_dir, "**/*.yaml")) : file("${var.fleet_dir}/${f}")]
}'
cat >"$WORK_DIR/tf/fn/main.tf" <<EOF
$header

locals {
  render = provider::kalypso::environment_render("dev", local.manifests)
}

output "assignment_count" { value = length(local.render.assignments) }
output "file_count" { value = length(local.render.files) }
output "content_hash" { value = local.render.content_hash }
EOF
cat >"$WORK_DIR/tf/ds/main.tf" <<EOF
$header

data "kalypso_environment_render" "dev" {
  environment = "dev"
  manifests   = local.manifests
}

output "assignment_count" { value = length(data.kalypso_environment_render.dev.assignments) }
output "file_count" { value = length(data.kalypso_environment_render.dev.files) }
output "content_hash" { value = data.kalypso_environment_render.dev.content_hash }
EOF
cat >"$WORK_DIR/tf/fn-per-ct/main.tf" <<EOF
$header

locals {
  summary = provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [] })
}

# One instance per cluster type, as kalypso_gitops_commit would be used. Each instance makes one call
# and keeps the sizes of its folder; a real delivery would pass .files on instead.
resource "terraform_data" "cluster_type" {
  for_each = toset(local.summary.cluster_types)
  input = {
    for k, v in provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [each.key] }) :
    k => length(v) if contains(["assignments", "files"], k)
  }
}

output "assignment_count" { value = sum([for r in terraform_data.cluster_type : r.input.assignments]) }
output "file_count" { value = sum([for r in terraform_data.cluster_type : r.input.files]) }
EOF
# The HCL baseline as committed, with the same summary outputs in place of the full ones.
mkdir -p "$WORK_DIR/tf/hcl"
cp -r benchmarks/hcl-baseline/main.tf benchmarks/hcl-baseline/variables.tf benchmarks/hcl-baseline/templates "$WORK_DIR/tf/hcl/"
cat >"$WORK_DIR/tf/hcl/outputs.tf" <<'EOF'
output "assignment_count" { value = length(local.assignments) }
output "file_count" { value = length(local.files) }
EOF
(cd "$WORK_DIR/tf/hcl" && terraform init -input=false >/dev/null)

# --- measurement helpers -------------------------------------------------------------------------

secs_since() { echo "$1 $EPOCHREALTIME" | awk '{printf "%.2f", $2 - $1}'; }
# mib_max_rss FILE...: the largest "Maximum resident set size" among /usr/bin/time -v reports, in MiB.
mib_max_rss() { { cat "$@" 2>/dev/null || true; } | awk -F': ' '/Maximum resident set size/ {if ($2 > m) m = $2} END {printf "%.0f", m / 1024}'; }
cpu_sum() { { cat "$@" 2>/dev/null || true; } | awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}'; }

# A provider may still be shutting down when terraform exits; its report is written when it is done.
wait_for_providers() {
  local i
  for i in $(seq 100); do
    pgrep -f "$WORK_DIR/bin/terraform-provider-kalypso" >/dev/null || return 0
    sleep 0.2
  done
}

# A step that does not run writes its table to the scratch directory, so that a partial run (make
# bench-delivery) leaves the committed results of the others alone.
results="$OUT_DIR/results.csv"
step plan || results="$WORK_DIR/results.csv"
echo "size,assignments,files,path,status,wall_s,terraform_rss_mib,provider_rss_mib,plan_rss_mib,provider_cpu_s" >"$results"

# plan SIZE PATH TIMEOUT: one terraform plan, appended to results.csv.
plan() {
  local size=$1 path=$2 limit=$3
  local log="$WORK_DIR/logs/plan-$path-$size" prov="$WORK_DIR/provtime/$path-$size"
  mkdir -p "$prov"
  local args=(-input=false -lock=false -out="$log.tfplan" -var "fleet_dir=$WORK_DIR/fleet-$size")
  [ "$path" = hcl ] && args=(-input=false -lock=false -out="$log.tfplan" -var-file="$WORK_DIR/fleet-$size/fleet.auto.tfvars.json")
  echo "--> plan $path $size (load $(cut -d' ' -f1-3 /proc/loadavg))"
  local start=$EPOCHREALTIME status=ok
  # timeout signals terraform itself: signalling /usr/bin/time instead would leave terraform running.
  KALYPSO_BENCH_PROVTIME=$prov /usr/bin/time -v -o "$log.time" timeout -k 10 "$limit" \
    terraform -chdir="$WORK_DIR/tf/$path" plan "${args[@]}" >"$log.out" 2>"$log.err" || status=failed
  local wall
  wall=$(secs_since "$start")
  wait_for_providers
  if [ "$status" = failed ] && awk "BEGIN {exit !($wall >= $limit - 1)}"; then status="timeout>${limit}s"; fi
  local assignments=- files=-
  if [ "$status" = ok ]; then
    assignments=$(sed 's/\x1b\[[0-9;]*m//g' "$log.out" | awk '/assignment_count/ {print $NF; exit}')
    files=$(sed 's/\x1b\[[0-9;]*m//g' "$log.out" | awk '/file_count/ {print $NF; exit}')
  fi
  local tf_rss prov_rss
  tf_rss=$(mib_max_rss "$log.time")
  prov_rss=$(mib_max_rss "$prov"/*)
  [ "$path" = hcl ] && prov_rss=0
  echo "$size,$assignments,$files,$path,$status,$wall,$tf_rss,$prov_rss,$((tf_rss + prov_rss)),$(cpu_sum "$prov"/*)" | tee -a "$results"
}

# --- fleets and plans ----------------------------------------------------------------------------

fleets=""
if step plan || step push; then fleets="$SIZES"; fi
if step delivery; then fleets="$fleets $DELIVERY_SIZES $DELIVERY_PER_CT_SIZES $SMALL_CHANGE_SIZES"; fi
for size in $(printf '%s\n' $fleets | sort -u); do
  # The tutorial shape has no tfvars: the HCL baseline renders only arc-flux.
  format=both
  case $size in tutorial-*) format=yaml ;; esac
  "$WORK_DIR/fleetgen" -size "$size" -format "$format" -out "$WORK_DIR/fleet-$size" \
    -one-more-policy "$WORK_DIR/one-more-$size.yaml" -one-more-cluster-type "$WORK_DIR/one-more-ct-$size.yaml" >"$WORK_DIR/logs/fleet-$size.txt"
done
step plan || SIZES_PLAN=""
for size in ${SIZES_PLAN-$SIZES}; do
  for path in fn ds fn-per-ct; do
    plan "$size" "$path" "$PLAN_TIMEOUT"
  done
  case " $HCL_SIZES " in *" $size "*) plan "$size" hcl "$HCL_TIMEOUT" ;; *) echo "$size,-,-,hcl,not run (cap: HCL_SIZES=$HCL_SIZES),-,-,-,-,-" >>"$results" ;; esac
done

# --- pushes --------------------------------------------------------------------------------------

push="$OUT_DIR/push.csv"
step push || push="$WORK_DIR/push.csv"
echo "size,method,files,first_push_s,one_file_push_s,peak_rss_mib" >"$push"

# Through Terraform: kalypso_gitops_commit with the whole tree, plus one marker file whose content
# changes between the two applies.
mkdir -p "$WORK_DIR/tf/push"
cat >"$WORK_DIR/tf/push/main.tf" <<EOF
$header

variable "repository" { type = string }
variable "marker" { type = string }

locals {
  render = provider::kalypso::environment_render("dev", local.manifests)
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = "file://\${var.repository}"
  branch         = "main"
  files          = merge(local.render.files, { "bench/marker.txt" = var.marker })
  author         = { name = "bench", email = "bench@example.com" }
}
EOF
# The pattern for large fleets: one kalypso_gitops_commit per cluster type, all on the same branch. The
# marker file goes into the first cluster type's folder, so the second apply changes one instance.
mkdir -p "$WORK_DIR/tf/push-per-ct"
cat >"$WORK_DIR/tf/push-per-ct/main.tf" <<EOF
$header

variable "repository" { type = string }
variable "marker" { type = string }

locals {
  summary = provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [] })
}

resource "kalypso_gitops_commit" "dev" {
  for_each       = toset(local.summary.cluster_types)
  repository_url = "file://\${var.repository}"
  branch         = "main"
  path           = each.key
  files = merge(
    { for p, c in provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [each.key] }).files : trimprefix(p, "\${each.key}/") => c },
    each.key == local.summary.cluster_types[0] ? { "bench-marker.txt" = var.marker } : {},
  )
  author = { name = "bench", email = "bench@example.com" }
}
EOF
# tf_apply CONFIG SIZE MARKER LOG: one terraform apply into CONFIG-SIZE.git, printing its wall clock.
tf_apply() {
  local config=$1 size=$2 marker=$3 log=$4
  local start=$EPOCHREALTIME
  KALYPSO_BENCH_PROVTIME=$WORK_DIR/provtime/$config-$size /usr/bin/time -v -o "$log.time" timeout -k 10 "$PLAN_TIMEOUT" \
    terraform -chdir="$WORK_DIR/tf/$config" apply -input=false -auto-approve -state="$WORK_DIR/$config-$size.tfstate" \
    -var "fleet_dir=$WORK_DIR/fleet-$size" -var "repository=$WORK_DIR/$config-$size.git" -var "marker=$marker" >"$log.out" 2>&1 || return 1
  wait_for_providers
  secs_since "$start"
}
# tf_push CONFIG SIZE LABEL: a first apply, then an apply that changes one file; appended to push.csv.
tf_push() {
  local config=$1 size=$2 label=$3
  echo "--> $label $size"
  mkdir -p "$WORK_DIR/provtime/$config-$size"
  git init --quiet --bare --initial-branch=main "$WORK_DIR/$config-$size.git"
  local first second files rss
  first=$(tf_apply "$config" "$size" one "$WORK_DIR/logs/$config-$size-first") || first=failed
  second=$(tf_apply "$config" "$size" two "$WORK_DIR/logs/$config-$size-second") || second=failed
  files=$(git -C "$WORK_DIR/$config-$size.git" ls-tree -r --name-only main | wc -l)
  rss=$(($(mib_max_rss "$WORK_DIR"/logs/"$config"-"$size"-*.time) + $(mib_max_rss "$WORK_DIR/provtime/$config-$size"/*)))
  echo "$size,$label,$files,$first,$second,$rss" | tee -a "$push"
  echo "    state file: $(du -h "$WORK_DIR/$config-$size.tfstate" | cut -f1), commits: $(git -C "$WORK_DIR/$config-$size.git" rev-list --count main)"
}
step push || { TF_PUSH_SIZES=""; TF_PUSH_PER_CT_SIZES=""; SIZES_PUSH=""; }
for size in $TF_PUSH_SIZES; do
  case " $SIZES " in *" $size "*) tf_push push "$size" "terraform apply (one kalypso_gitops_commit)" ;; esac
done
for size in $TF_PUSH_PER_CT_SIZES; do
  case " $SIZES " in *" $size "*) tf_push push-per-ct "$size" "terraform apply (kalypso_gitops_commit per cluster type)" ;; esac
done

# Through the Git layer directly: whole tree, then one changed file.
for size in ${SIZES_PUSH-$SIZES}; do
  echo "--> benchpush $size"
  log="$WORK_DIR/logs/benchpush-$size"
  if line=$(/usr/bin/time -v -o "$log.time" "$WORK_DIR/benchpush" -fleet "$WORK_DIR/fleet-$size" -repo "$WORK_DIR/push-go-$size.git" 2>"$log.err"); then
    IFS=, read -r files _render first _noop one <<<"$line"
    echo "$size,internal/gitrepo (tools/benchpush),$files,$first,$one,$(mib_max_rss "$log.time")" | tee -a "$push"
  else
    echo "$size,internal/gitrepo (tools/benchpush),-,failed,failed,-" | tee -a "$push"
  fi
done

# --- delivery (issue 13): render mode against per-cluster-type files --------------------------------

# ONE resource in render mode holds the whole environment on one branch; no file content in state.
mkdir -p "$WORK_DIR/tf/deliver-render" "$WORK_DIR/tf/deliver-per-ct"
cat >"$WORK_DIR/tf/deliver-render/main.tf" <<EOF
$header

variable "repository" { type = string }

resource "kalypso_gitops_commit" "dev" {
  repository_url = "file://\${var.repository}"
  branch         = "main"
  render         = { environment = "dev", manifests = local.manifests }
  author         = { name = "bench", email = "bench@example.com" }
}
EOF
# Today's pattern for large fleets: one files-mode resource per cluster type, all on one branch.
cat >"$WORK_DIR/tf/deliver-per-ct/main.tf" <<EOF
$header

variable "repository" { type = string }

locals {
  summary = provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [] })
}

resource "kalypso_gitops_commit" "dev" {
  for_each       = toset(local.summary.cluster_types)
  repository_url = "file://\${var.repository}"
  branch         = "main"
  path           = each.key
  files          = { for p, c in provider::kalypso::environment_render("dev", local.manifests, { only_cluster_types = [each.key] }).files : trimprefix(p, "\${each.key}/") => c }
  author         = { name = "bench", email = "bench@example.com" }
}
EOF

# tf_timed NAME DIR ARGS...: one terraform command; its wall clock goes to logs/NAME.wall, its exit
# status to NAME.rc, terraform's /usr/bin/time report to NAME.time, the providers' to provtime/NAME/.
tf_timed() {
  local name=$1 dir=$2
  shift 2
  local log="$WORK_DIR/logs/$name" prov="$WORK_DIR/provtime/$name"
  mkdir -p "$prov"
  echo "    $name (load $(cut -d' ' -f1-3 /proc/loadavg))"
  local start=$EPOCHREALTIME rc=0
  # The provider's debug log (a few dozen lines per command) gives the split into phases: phase_s.
  # The framework's own debug lines (thousands per plan, a line per element of `changes`) are off: they
  # would cost seconds of the time measured.
  TF_LOG_PROVIDER=DEBUG TF_LOG_PATH="$log.tflog" TF_LOG_SDK=OFF TF_LOG_SDK_FRAMEWORK=OFF TF_LOG_SDK_PROTO=OFF \
    KALYPSO_BENCH_PROVTIME=$prov /usr/bin/time -v -o "$log.time" timeout -k 10 "$DELIVERY_TIMEOUT" \
    terraform -chdir="$dir" "$@" >"$log.out" 2>"$log.err" &
  local bg=$!
  # /usr/bin/time's peak RSS of terraform is the largest of terraform and its children (the providers),
  # so terraform's own peak is sampled from /proc (VmHWM only grows, so the last sample is the peak).
  local tf_pid="" hwm=0 h
  while kill -0 "$bg" 2>/dev/null; do
    [ -n "$tf_pid" ] || tf_pid=$(pgrep -x terraform -P "$(pgrep -P "$bg" | head -1)" 2>/dev/null | head -1) || true
    if [ -n "$tf_pid" ]; then
      h=$(awk '/^VmHWM/ {print $2}' "/proc/$tf_pid/status" 2>/dev/null) || true
      [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    fi
    sleep 0.2
  done
  wait "$bg" || rc=$?
  # The wall clock is /usr/bin/time's: the loop above polls every 0.2 s, so the time at which wait returns
  # is late by up to a poll (the empty re-plans came out as multiples of 0.21 s).
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f\n", s; found = 1}
    END {if (!found) exit 1}' "$log.time" >"$log.wall" 2>/dev/null || secs_since "$start" >"$log.wall"
  echo "$hwm" >"$log.tfhwm"
  wait_for_providers
  echo "$rc" >"$log.rc"
}
# tf_own_rss ID: terraform's own peak RSS in MiB over the commands of ID.
tf_own_rss() { cat "$WORK_DIR/logs/$1"-*.tfhwm 2>/dev/null | awk '$1 > m {m = $1} END {printf "%.0f", m / 1024}'; }
wall() { cat "$WORK_DIR/logs/$1.wall"; }
rc() { cat "$WORK_DIR/logs/$1.rc"; }
# ok_or NAME RC: the wall clock of NAME if it exited with RC, else why not.
ok_or() { if [ "$(rc "$1")" = "$2" ]; then wall "$1"; else echo "failed(rc=$(rc "$1"))"; fi; }
expected() { awk '/expected assignments/ {print $NF}' "$WORK_DIR/logs/fleet-$1.txt"; }
ct_adds() { awk '/one more cluster type adds/ {print $NF}' "$WORK_DIR/logs/fleet-$1.txt"; }
# phase_s MESSAGE NAME...: the seconds the provider logged for one phase (the duration_ms of its debug
# lines named MESSAGE) over the commands NAME..., summed.
phase_s() {
  local msg=$1 f
  shift
  for f in "$@"; do cat "$WORK_DIR/logs/$f.tflog" 2>/dev/null || true; done |
    awk -v m="provider.terraform-provider-kalypso: $msg:" 'index($0, m) && match($0, /duration_ms=[0-9]+/) {s += substr($0, RSTART + 12, RLENGTH - 12)} END {printf "%.2f", s / 1000}'
}

delivery="$OUT_DIR/delivery.csv"
small="$OUT_DIR/small-change.csv"
phases="$OUT_DIR/phases.csv"
step delivery || { delivery="$WORK_DIR/delivery.csv"; small="$WORK_DIR/small-change.csv"; phases="$WORK_DIR/phases.csv"; }
if step delivery; then
  echo "size,pattern,change,change_plan_apply_s,refresh_s,render_s,store_keep_s,store_load_s,diff_s,write_s,push_s,provider_other_s,outside_provider_s,load_at_start" >"$phases"
  echo "size,pattern,change,assignments,files_in_repo,first_apply_s,empty_replan_s,change_plan_s,change_apply_s,change_plan_apply_s,replan_after_change,state_mib,terraform_rss_mib,provider_rss_mib,rss_sum_mib,terraform_cpu_s_change,provider_cpu_s_change,commits_first_apply,commits_change,load_at_start,empty_replans_s,empty_replan_median_s,provider_cpu_s_first_apply" >"$delivery"
  echo "size,assignments,render_change_plan_s,hcl_plan_s,hcl_over_render,load_at_start" >"$small"
fi

# deliver PATTERN SIZE [CHANGE]: first apply, empty re-plan, a model change (CHANGE: "policy", one
# policy added, or "cluster-type-and-policy", the default: plan -out, then apply of that plan, two
# processes as in CI), re-plan; appended to delivery.csv, and the change's split into phases to
# phases.csv. Assignments are counted after the change.
deliver() {
  local pattern=$1 size=$2 change=${3:-$DELIVERY_CHANGE}
  local id="$pattern-$size" load
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "--> delivery $pattern $size"
  local fleet="$WORK_DIR/fleet-$size-$pattern" repo="$WORK_DIR/$id.git" state="$WORK_DIR/$id.tfstate" dir="$WORK_DIR/tf/deliver-$pattern"
  rm -rf "$fleet" "$repo"
  cp -r "$WORK_DIR/fleet-$size" "$fleet"
  rm -f "$fleet/fleet.auto.tfvars.json"
  # The branch must exist (create_branch is off): one empty commit.
  git init --quiet --bare --initial-branch=main "$repo"
  local seed
  seed=$(git -C "$repo" commit-tree -m "seed" "$(git -C "$repo" hash-object -t tree -w --stdin </dev/null)")
  git -C "$repo" update-ref refs/heads/main "$seed"
  local vars=(-input=false -lock=false -state="$state" -var "fleet_dir=$fleet" -var "repository=$repo")

  tf_timed "$id-first" "$dir" apply -auto-approve "${vars[@]}"
  local commits_first
  commits_first=$(($(git -C "$repo" rev-list --count main) - 1))
  tf_timed "$id-replan" "$dir" plan -detailed-exitcode "${vars[@]}"
  # One empty re-plan is a fraction of a second, less than this VM's host varies between two identical
  # runs: REPLANS in a row (a plan leaves the state as it is), all listed, and their median.
  local replans="" r
  for r in $(seq 2 "$REPLANS"); do tf_timed "$id-replan-$r" "$dir" plan -detailed-exitcode "${vars[@]}"; done
  for r in "$id-replan" $(for r in $(seq 2 "$REPLANS"); do echo "$id-replan-$r"; done); do replans="$replans $(ok_or "$r" 0)"; done
  replans=${replans# }
  cp "$WORK_DIR/one-more-$size.yaml" "$fleet/scheduling/"
  local added=1
  if [ "$change" = cluster-type-and-policy ]; then
    cp "$WORK_DIR/one-more-ct-$size.yaml" "$fleet/cluster-types/"
    added=$((added + $(ct_adds "$size")))
  fi
  local before
  before=$(git -C "$repo" rev-list --count main)
  tf_timed "$id-change-plan" "$dir" plan -out="$WORK_DIR/$id-change.tfplan" "${vars[@]}"
  tf_timed "$id-change-apply" "$dir" apply -input=false -lock=false -state="$state" "$WORK_DIR/$id-change.tfplan"
  local commits_change
  commits_change=$(($(git -C "$repo" rev-list --count main) - before))
  tf_timed "$id-replan2" "$dir" plan -detailed-exitcode "${vars[@]}"

  local files state_mib tf_rss prov_rss total=- replan2=changes
  files=$(git -C "$repo" ls-tree -r --name-only main | wc -l)
  state_mib=-
  [ -f "$state" ] && state_mib=$(du -b "$state" | awk '{printf "%.1f", $1 / 1048576}')
  tf_rss=$(tf_own_rss "$id")
  prov_rss=$(mib_max_rss "$WORK_DIR/provtime/$id"-*/*)
  if [ "$(rc "$id-change-plan")" = 0 ] && [ "$(rc "$id-change-apply")" = 0 ]; then
    total=$(echo "$(wall "$id-change-plan") $(wall "$id-change-apply")" | awk '{printf "%.2f", $1 + $2}')
  fi
  [ "$(rc "$id-replan2")" = 0 ] && replan2=empty
  local c="$id-change-plan $id-change-apply" split
  # Phases inside the provider's calls, then what is left of its ModifyPlan and apply (the render key,
  # claims), then what lies outside them (terraform, the framework's conversions, start-up, state).
  split=$(echo "$total $(phase_s "branch refreshed" $c) $(phase_s render $c) $(phase_s "desired tree kept in the local render store" $c) $(phase_s "desired tree loaded from the local render store instead of rendering" $c) $(phase_s "changes planned against the branch" $c) $(phase_s delivered $c) $(phase_s "git push" $c) $(phase_s "plan modified" $c) $(phase_s applied $c)" |
    awk '{t = $1; r = $2; rn = $3; k = $4; l = $5; d = $6; dl = $7; p = $8; pm = $9; ap = $10
      inside = pm + ap - rn - k - l - d - dl; if (inside < 0) inside = 0
      outside = (t == "-") ? "-" : sprintf("%.2f", t - r - pm - ap)
      printf "%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s", r, rn, k, l, d, dl - p, p, inside, outside}')
  echo "$size,$pattern,$change,$total,$split,$load" | tee -a "$phases"
  echo "$size,$pattern,$change,$(($(expected "$size") + added)),$files,$(ok_or "$id-first" 0),$(ok_or "$id-replan" 0),$(ok_or "$id-change-plan" 0),$(ok_or "$id-change-apply" 0),$total,$replan2,$state_mib,$tf_rss,$prov_rss,$((tf_rss + prov_rss)),$(echo "$(cpu_sum "$WORK_DIR/logs/$id"-change-*.time) $(cpu_sum "$WORK_DIR/provtime/$id"-change-*/*)" | awk '{printf "%.2f", $1 - $2}'),$(cpu_sum "$WORK_DIR/provtime/$id"-change-*/*),$commits_first,$commits_change,$load,$replans,$(echo "$replans" | tr ' ' '\n' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'),$(cpu_sum "$WORK_DIR/provtime/$id"-first/*)" | tee -a "$delivery"
}

if step delivery; then
  for size in $DELIVERY_SIZES; do deliver render "$size"; done
  # A small model change at about 5.7k assignments: render mode's plan of the one-policy change
  # against the plain-HCL plan of the same fleet with the same policy (it has no state, so every plan
  # computes everything).
  for size in $SMALL_CHANGE_SIZES; do
    case " $DELIVERY_SIZES " in *" $size "*) [ "$DELIVERY_CHANGE" = policy ] || deliver render "$size" policy ;; *) deliver render "$size" policy ;; esac
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$WORK_DIR/fleetgen" -size "$size" -format tfvars -add-one-more-policy -out "$WORK_DIR/fleet-$size-hcl" >/dev/null
    tf_timed "hcl-$size" "$WORK_DIR/tf/hcl" plan -input=false -lock=false -var-file="$WORK_DIR/fleet-$size-hcl/fleet.auto.tfvars.json"
    render_s=$(ok_or "render-$size-change-plan" 0)
    hcl_s=$(ok_or "hcl-$size" 0)
    ratio=$(echo "$render_s $hcl_s" | awk '$1 + 0 > 0 && $2 + 0 > 0 {printf "%.1f", $2 / $1; exit} {print "-"}')
    echo "$size,$(($(expected "$size") + 1)),$render_s,$hcl_s,$ratio,$load" | tee -a "$small"
  done
  for size in $DELIVERY_PER_CT_SIZES; do deliver per-ct "$size"; done

  {
    echo "| fleet | pattern | change | assignments | files in repo | first apply s | empty re-plan s | change: plan s | change: apply s | change: plan + apply s | re-plan after change | state MiB | terraform RSS MiB | provider RSS MiB | RSS sum MiB | change: terraform CPU s | change: provider CPU s | commits (first apply) | commits (change) | load at start | empty re-plans s (the first right after the first apply) | empty re-plan median s |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
    tail -n +2 "$delivery" | awk -F, '{printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n"}'
    echo
    echo "Where the change's time went (plan -out and apply of the saved plan, summed over both provider processes, from the provider's debug log; provider other = the rest of the provider's ModifyPlan and apply: the render key, claims, settings; outside = terraform itself, the framework's conversions around those calls, process start-up, state):"
    echo
    echo "| fleet | pattern | change | change: plan + apply s | refresh s | render s | keep tree s | load tree s | diff s | write s | push s | provider other s | outside the provider s | load at start |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    tail -n +2 "$phases" | awk -F, '{printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n"}'
    echo
    echo "| fleet | assignments | render mode: plan of the one-policy change s | plain HCL plan s | HCL / render | load at start |"
    echo "|---|---:|---:|---:|---:|---:|"
    tail -n +2 "$small" | awk -F, '{printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n"}'
    echo
    echo "machine: $(nproc) cores, $(free -h | awk '/Mem:/ {print $2}') RAM; $(terraform version | head -1); finished $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
  } >"$OUT_DIR/delivery.md"
  cat "$OUT_DIR/delivery.md"

  # Render mode's cost against fleet size (issue 22, item 4): first apply, the change (plan + apply),
  # and the empty re-plan, log-log with a slope-1 reference. Only the delivery change's rows of
  # successful runs; one point per fleet.
  # The presets 1k, 10k, 86k, 100k, scale-300k share one shape and make the lines; other shapes (costlier-86k) are points.
  tail -n +2 "$delivery" | awk -F, -v c="$DELIVERY_CHANGE" '$2 == "render" && $3 == c && $6 + 0 > 0 && $1 ~ /^(scale-)?[0-9]+[km]$/ {print $4, $6, $10, $7, $1}' | sort -n >"$WORK_DIR/series-delivery.dat"
  tail -n +2 "$delivery" | awk -F, -v c="$DELIVERY_CHANGE" '$2 == "render" && $3 == c && $6 + 0 > 0 && $1 !~ /^(scale-)?[0-9]+[km]$/ {print $4, $6, $10, $7, $1}' | sort -n >"$WORK_DIR/series-delivery-shapes.dat"
  if command -v gnuplot >/dev/null && [ -s "$WORK_DIR/series-delivery.dat" ]; then
    gnuplot <<EOF
set terminal pngcairo size 900,600 font ",11"
set output "$OUT_DIR/delivery-scale.png"
set termoption noenhanced
set title "render mode, one kalypso_gitops_commit ($(nproc) cores, load at the end $(cut -d' ' -f1-3 /proc/loadavg))"
set logscale xy
set grid
set key top left
set xlabel "assignments"
set ylabel "wall seconds"
plot "$WORK_DIR/series-delivery.dat" using 1:2 with linespoints title "first apply", \\
     "" using 1:3 with linespoints title "change: plan -out + apply", \\
     "" using 1:4 with linespoints title "empty re-plan", \\
     "" using 1:2:5 with labels offset 0,1 notitle, \\
     "$WORK_DIR/series-delivery-shapes.dat" using 1:2 with points pt 7 lc 1 title "first apply (other shapes)", \\
     "" using 1:3 with points pt 7 lc 2 title "change (other shapes)", \\
     "" using 1:4 with points pt 7 lc 3 title "empty re-plan (other shapes)", \\
     "" using 1:2:5 with labels offset 0,-1 notitle, \\
     [1000:300000] x / 1000.0 dashtype 2 lc rgb "gray" title "linear (slope 1)"
EOF
  fi
fi

if ! step plan && ! step push; then
  echo "==> wrote $OUT_DIR/{delivery.csv,small-change.csv,delivery.md}"
  exit 0
fi

# --- engine figures from the Go benchmarks -------------------------------------------------------

engine="$OUT_DIR/engine.csv"
echo "size,assignments,seconds,peak_heap_mib" >"$engine"
if [ -n "$GO_BENCH" ] && [ -f "$GO_BENCH" ]; then
  # BenchmarkRender/100k-2  1  6864093588 ns/op  97938 assignments  294114 files  756.7 peak-heap-MiB ...
  awk '$1 ~ /^BenchmarkRender\// {
    split($1, a, "[/-]"); size = a[2]; ns = ""; asg = ""; peak = ""
    for (i = 2; i < NF; i++) {
      if ($(i+1) == "ns/op") ns = $i
      if ($(i+1) == "assignments") asg = $i
      if ($(i+1) == "peak-heap-MiB") peak = $i
    }
    printf "%s,%s,%.3f,%s\n", size, asg, ns / 1e9, peak
  }' "$GO_BENCH" >>"$engine"
fi

# --- table and plot ------------------------------------------------------------------------------

{
  echo "| fleet | assignments | files | path | status | plan wall s | terraform RSS MiB | provider RSS MiB | plan RSS MiB (sum) | provider CPU s |"
  echo "|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
  tail -n +2 "$results" | awk -F, '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}'
  echo
  echo "| fleet | push method | files in repo | first push s | one-file push s | peak RSS MiB |"
  echo "|---|---|---:|---:|---:|---:|"
  tail -n +2 "$push" | awk -F, '{printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6}'
  if [ "$(wc -l <"$engine")" -gt 1 ]; then
    echo
    echo "| fleet | assignments | engine s (BenchmarkRender) | engine peak heap MiB |"
    echo "|---|---:|---:|---:|"
    tail -n +2 "$engine" | awk -F, '{printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}'
  fi
} >"$OUT_DIR/results.md"

# Plot data: one file per series, "assignments value", successful runs only.
for path in fn ds fn-per-ct hcl; do
  awk -F, -v p="$path" '$4 == p && $5 == "ok" {print $2, $6, $9}' "$results" >"$WORK_DIR/series-$path.dat"
done
tail -n +2 "$engine" | awk -F, '{print $2, $3, $4}' >"$WORK_DIR/series-engine.dat"
gnuplot <<EOF
set terminal pngcairo size 1400,560 font ",11"
set output "$OUT_DIR/scale.png"
set multiplot layout 1,2 title "terraform-provider-kalypso scale run ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
set logscale xy
set grid
set key top left
set xlabel "assignments"
set ylabel "seconds"
set title "terraform plan wall clock / engine time"
plot "$WORK_DIR/series-fn.dat" using 1:2 with linespoints title "plan: function", \
     "$WORK_DIR/series-ds.dat" using 1:2 with linespoints title "plan: data source", \
     "$WORK_DIR/series-fn-per-ct.dat" using 1:2 with linespoints title "plan: function per cluster type", \
     "$WORK_DIR/series-hcl.dat" using 1:2 with linespoints title "plan: plain HCL baseline", \
     "$WORK_DIR/series-engine.dat" using 1:2 with linespoints title "engine (Go benchmark)", \
     [1000:100000] x / 1000.0 dashtype 2 lc rgb "gray" title "linear (slope 1)"
set ylabel "MiB"
set title "peak memory: terraform + provider RSS / engine heap"
plot "$WORK_DIR/series-fn.dat" using 1:3 with linespoints title "plan: function", \
     "$WORK_DIR/series-ds.dat" using 1:3 with linespoints title "plan: data source", \
     "$WORK_DIR/series-fn-per-ct.dat" using 1:3 with linespoints title "plan: function per cluster type", \
     "$WORK_DIR/series-hcl.dat" using 1:3 with linespoints title "plan: plain HCL baseline", \
     "$WORK_DIR/series-engine.dat" using 1:3 with linespoints title "engine peak heap (Go benchmark)"
unset multiplot
EOF

{
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(free -h | awk '/Mem:/ {print $2}') RAM"
  echo "go: $(go version | cut -d' ' -f3-)"
  echo "terraform: $(terraform version | head -1)"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$OUT_DIR/machine.txt"
cat "$OUT_DIR/results.md" "$OUT_DIR/machine.txt"
echo "==> wrote $OUT_DIR/{results.csv,push.csv,engine.csv,results.md,scale.png,machine.txt}"
