#!/usr/bin/env bash
# Builds the provider, points Terraform at it with a dev_overrides CLI config (no registry access), creates
# local bare repositories for the application sources and the GitOps repository, and walks the tutorial's
# five stages with terraform plan/apply, printing the assignments and the committed trees. Stage 6 is
# promotion: a registration lands on the control plane's main, Dev renders it, a fake Dev cluster posts
# commit statuses to a mock of GitHub's REST API (tools/mockgithub), and Stage's plan goes from "stays"
# to "moves"; a failed status keeps Stage where it is. Stage 7 (scripts/demo-rollout.sh) rolls Dev out
# progressively, wave by wave, as fake clusters report. Each step is asserted; the script exits non-zero
# when one does not hold.
# TERRAFORM=/path/to/tofu walks them with OpenTofu instead (`make demo TERRAFORM=...`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tf=$(command -v "${TERRAFORM:-terraform}")
demo="$root/.demo"
rm -rf "$demo"
mkdir -p "$demo/bin" "$demo/repos"

echo "==> building the provider and the mock of GitHub's REST API"
go build -o "$demo/bin/terraform-provider-kalypso" .
go build -o "$demo/mockgithub" ./tools/mockgithub

cat > "$demo/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/kalypso/kalypso" = "$demo/bin"
    "registry.opentofu.org/kalypso/kalypso" = "$demo/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$demo/terraformrc"
export CHECKPOINT_DISABLE=1
export TF_IN_AUTOMATION=1
export GIT_AUTHOR_NAME="Kalypso Demo" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Kalypso Demo" GIT_COMMITTER_EMAIL="demo@example.com"

# Seeds a bare repository's main branch from a directory.
seed_repo() {
  local name=$1 src=$2 work="$demo/work-$1"
  git init -q --bare -b main "$demo/repos/$name.git"
  git init -q -b main "$work"
  cp -r "$src"/. "$work"/
  git -C "$work" add -A
  git -C "$work" commit -q -m "Initial $name"
  git -C "$work" push -q "$demo/repos/$name.git" main
}
echo "==> creating local repositories in $demo/repos"
seed_repo app-src examples/tutorial/app-src
seed_repo svc-src examples/tutorial/svc-src
git init -q --bare -b main "$demo/repos/gitops.git"
# The control plane's main starts empty: what Stage holds at stages 3 to 5 is its first commit.
mkdir -p "$demo/control-plane-seed"
echo "Templates and registrations promoted through the environments." >"$demo/control-plane-seed/README.md"
seed_repo control-plane "$demo/control-plane-seed"
cp0=$(git --git-dir="$demo/repos/control-plane.git" rev-parse main)

# The mock of GitHub's REST API that Dev's fake cluster posts its statuses to (stage 6).
"$demo/mockgithub" -url-file "$demo/mockgithub.url" >/dev/null &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$demo/mockgithub.url" ] && break; sleep 0.1; done
github_api=$(cat "$demo/mockgithub.url")

cat > "$demo/local.tfvars.json" <<JSON
{
  "gitops_repo": "file://$demo/repos/gitops.git",
  "git_url_rewrites": {
    "https://github.com/microsoft/kalypso-app-src": "file://$demo/repos/app-src.git",
    "https://github.com/microsoft/kalypso-svc-src": "file://$demo/repos/svc-src.git"
  },
  "control_plane_commit": "$cp0",
  "control_plane_repo": "file://$demo/repos/control-plane.git",
  "github_base_url": "$github_api",
  "gitops_github_repository": "microsoft/kalypso-gitops"
}
JSON

cp -r examples/tutorial "$demo/tutorial"
cd "$demo/tutorial"

# Prints a plan's summary: the resource lines and the Plan: line, then each warning the first time the
# demo meets it, with its text. Every plan of the tutorial repeats some (Template "arc-flux" writes Flux
# apiVersions current Flux no longer serves); the full plans in .demo/plan-stage-*.txt keep them all.
seen_warnings="$demo/warnings-seen"
: >"$seen_warnings"
summarize_plan() {
  grep -E "^  # |^Plan:|^No changes" "$1" || true
  # One line per warning: its title, a tab, its text without the source location.
  awk '
    function flush() { if (title != "") { gsub(/[ \t\n]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text); print title "\t" text }; title = "" }
    /^(Warning|Error): / { flush(); if ($0 !~ /development overrides/) { title = $0; text = "" }; next }
    title == "" { next }
    /^  (with |on )/ || /^ *[0-9]+: / || /^\(and .* more similar warnings? elsewhere\)/ { next }
    { text = text " " $0 }
    END { flush() }
  ' "$1" | while IFS=$'\t' read -r title text; do
    grep -qxF "$title" "$seen_warnings" && continue
    echo "$title" >>"$seen_warnings"
    echo "$title"
    fold -s -w 100 <<<"$text" | sed 's/^/    /'
  done
}

titles=("" "onboard an application" "Dev scheduling policies" "promote to Stage" "a DATABASE_URL for west-us on Stage" "add a cluster type to Stage")
for stage in 1 2 3 4 5; do
  echo
  echo "================ stage $stage: ${titles[$stage]} ================"
  "$tf" plan -input=false -no-color -var-file="$demo/local.tfvars.json" -var stage="$stage" -out=tfplan >plan.txt 2>&1 || { cat plan.txt; exit 1; }
  summarize_plan plan.txt
  if [ "$stage" = 4 ]; then
    # The plan shows the change set against the branch: here one file of Stage, as a unified diff.
    echo "-- the planned change of kalypso_gitops_commit.stage[0]:"
    sed -n '/kalypso_gitops_commit.stage\[0\] will be updated/,/^    }$/p' plan.txt | sed -n '/~ changes *=/,/changes_summary/p'
  fi
  cp plan.txt "$demo/plan-stage-$stage.txt"
  echo "-- full plan: .demo/plan-stage-$stage.txt"
  "$tf" apply -input=false -no-color -auto-approve tfplan >apply.txt 2>&1 || { cat apply.txt; exit 1; }
  grep -E '^Apply complete' apply.txt
  echo "-- dev assignments:   $("$tf" output -json dev_assignments)"
  echo "-- stage assignments: $("$tf" output -json stage_assignments)"
done

# ---------------- stage 6: promotion gated by what Dev's clusters report ----------------
fail() { echo "FAIL: $*" >&2; exit 1; }
git_gitops() { git --git-dir="$demo/repos/gitops.git" "$@"; }

# plan6 NAME: a stage-6 plan kept as .demo/plan-stage-6-NAME.txt, its JSON in plan.json; prints the summary lines.
plan6() {
  "$tf" plan -input=false -no-color -var-file="$demo/local.tfvars.json" -var stage=6 -out=tfplan >plan.txt 2>&1 || { cat plan.txt; exit 1; }
  "$tf" show -json tfplan >plan.json
  cp plan.txt "$demo/plan-stage-6-$1.txt"
  summarize_plan plan.txt
  echo "-- promotion: $(jq -c '.output_changes.promotion.after | {moves, reason}' plan.json)"
  ! grep -q "@(none)" plan.txt || fail "the plan names an empty commit (@(none)): $(grep "@(none)" plan.txt)"
}
# The planned action of an address ("absent" when the plan does not list it).
action() { jq -r --arg a "$1" '[.resource_changes[] | select(.address == $a) | .change.actions | join(",")] | first // "absent"' plan.json; }
moves() { jq -r '.output_changes.promotion.after.moves' plan.json; }
reason() { jq -r '.output_changes.promotion.after.reason' plan.json; }
apply6() {
  "$tf" apply -input=false -no-color -auto-approve tfplan >apply.txt 2>&1 || { cat apply.txt; exit 1; }
  grep -E '^Apply complete' apply.txt
}

# A fake Dev cluster: its Flux posts a commit status on the GitOps commit it reconciled, as the
# notification-controller does with a Provider of type github (POST /repos/{owner}/{repo}/statuses/{sha};
# context kustomization/<Kustomization>/<first segment of the Provider's UID>, lower case; description
# the event's reason in words). Flux posts success and failure; pending is what Argo CD notifications
# post while a sync runs, and it reads the same here.
cluster_uid=4f0c2a11
post_status() {
  local sha=$1 state=$2 description=$3
  curl -sS --fail-with-body -X POST "${github_api}repos/microsoft/kalypso-gitops/statuses/$sha" \
    -H "Accept: application/vnd.github+json" -H "Content-Type: application/json" \
    -d "{\"state\":\"$state\",\"context\":\"kustomization/dev/$cluster_uid\",\"description\":\"$description\"}" >/dev/null
  echo "-- Dev cluster $cluster_uid posted \"$state\" ($description) on dev@${sha:0:7}"
}

echo
echo "================ stage 6: promotion gated by Dev's rollout ================"
echo "-- a registration lands on the control plane's main: podinfo"
work="$demo/work-control-plane"
cp "$root/examples/tutorial/control-plane/podinfo.yaml" "$work/"
git -C "$work" add -A
git -C "$work" commit -q -m "Register podinfo"
git -C "$work" push -q "$demo/repos/control-plane.git" main
cp1=$(git -C "$work" rev-parse HEAD)
echo "-- main: ${cp0:0:7} -> ${cp1:0:7}; Stage is at main@${cp0:0:7}"

echo
echo "---- 6a: Dev renders main@${cp1:0:7}; no Dev cluster has reported yet"
plan6 dev-renders
[ "$(action kalypso_gitops_commit.dev)" = update ] || fail "6a: kalypso_gitops_commit.dev is not updated"
jq -e '.resource_changes[] | select(.address == "kalypso_gitops_commit.dev") | .change.after.changes | has("drone/podinfo-functional-test/reconciler.yaml")' plan.json >/dev/null ||
  fail "6a: Dev's plan does not add podinfo's functional-test target on drone"
[ "$(action 'kalypso_gitops_commit.stage[0]')" = no-op ] || fail "6a: Stage's plan is not a no-op"
[ "$(moves)" = false ] || fail "6a: Stage moves before Dev has rolled anything out"
grep -q "Warning: No cluster reported" plan.txt || fail "6a: the plan does not warn that no Dev cluster reported"
apply6
dev_head=$(git_gitops rev-parse dev)
[ "$(git_gitops show dev:.github/tracking/Promoted_Commit_Id)" = "$cp1" ] || fail "6a: Dev's Promoted_Commit_Id is not main@${cp1:0:7}"

echo
echo "---- 6b: the Dev cluster is applying dev@${dev_head:0:7}"
post_status "$dev_head" pending "reconciliation in progress"
plan6 pending
[ "$(moves)" = false ] && [ "$(action 'kalypso_gitops_commit.stage[0]')" = no-op ] || fail "6b: Stage moves while Dev is progressing"
case "$(reason)" in *"1 progressing"*"stage stays at main@${cp0:0:7}"*) ;; *) fail "6b: reason: $(reason)" ;; esac
grep -q "Warning: Promotion to stage held" plan.txt || fail "6b: the plan does not warn that the promotion is held"

echo
echo "---- 6c: the Dev cluster fails dev@${dev_head:0:7}"
post_status "$dev_head" failure "health check failed"
plan6 failed
[ "$(moves)" = false ] && [ "$(action 'kalypso_gitops_commit.stage[0]')" = no-op ] || fail "6c: Stage moves although Dev failed"
case "$(reason)" in *"1 failed ($cluster_uid: "*"health check failed"*"stage stays at main@${cp0:0:7}"*) ;; *) fail "6c: reason does not name the failed cluster: $(reason)" ;; esac

echo
echo "---- 6d: the Dev cluster applied dev@${dev_head:0:7}"
post_status "$dev_head" success "reconciliation succeeded"
plan6 moves
[ "$(moves)" = true ] || fail "6d: Stage does not move although Dev succeeded"
case "$(reason)" in *"stage moves main@${cp0:0:7} → main@${cp1:0:7}"*) ;; *) fail "6d: reason: $(reason)" ;; esac
[ "$(action 'kalypso_gitops_commit.stage[0]')" = update ] || fail "6d: kalypso_gitops_commit.stage[0] is not updated"
echo "-- the planned changes of kalypso_gitops_commit.stage[0]:"
jq -r '.resource_changes[] | select(.address == "kalypso_gitops_commit.stage[0]") | .change.after.changes | to_entries[] | "     \(.value.action) \(.key)"' plan.json
apply6
[ "$(git_gitops show stage:.github/tracking/Promoted_Commit_Id)" = "$cp1" ] || fail "6d: Stage's Promoted_Commit_Id is not main@${cp1:0:7}"
for ct in drone large small; do
  git_gitops cat-file -e "stage:$ct/podinfo-uat-test/reconciler.yaml" 2>/dev/null || fail "6d: Stage lacks $ct/podinfo-uat-test"
done

echo
echo "---- 6e: converged: Stage is at what Dev rolled out"
plan6 converged
# Only the promotion output changes (moves: true -> false); nothing is left to deliver.
[ "$(jq '[.resource_changes[] | select(.change.actions != ["no-op"])] | length' plan.json)" = 0 ] || fail "6e: the plan after the promotion changes resources"
case "$(reason)" in *"stage is already at main@${cp1:0:7}"*) ;; *) fail "6e: reason: $(reason)" ;; esac

# Stage 7: a progressive rollout inside Dev, in its own GitOps repository (scripts/demo-rollout.sh).
tf="$tf" demo="$demo" github_api="$github_api" bash "$root/scripts/demo-rollout.sh"

for branch in dev stage; do
  echo
  echo "==> gitops repository, branch $branch: git log"
  git --git-dir="$demo/repos/gitops.git" log --format='  %h %s' "$branch"
  echo "==> gitops repository, branch $branch: tree"
  git --git-dir="$demo/repos/gitops.git" ls-tree -r --name-only "$branch" | sed 's/^/  /'
done
echo
echo "==> stage: Promoted_Commit_Id = $(git --git-dir="$demo/repos/gitops.git" show stage:.github/tracking/Promoted_Commit_Id)"
echo
echo "==> demo passed: stages 1 to 5 applied, and Stage was promoted only after Dev's cluster reported success (main@${cp0:0:7} -> main@${cp1:0:7})"
