#!/usr/bin/env bash
# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0
#
# Stage 7 of `make demo`: a progressive rollout inside Dev (examples/rollout) over Kalypso's sample control
# plane, against the mock of GitHub's REST API that scripts/demo.sh started. Fake clusters, one per cluster
# type, post commit statuses as Flux's notification-controller does; each apply writes one wave (the
# drone canary, then the west-us cluster types, then the rest with the promoted commit), and the plan
# between writes nothing while the wave's clusters have not reported. Each step is asserted.
# Called by scripts/demo.sh with: tf (the terraform or tofu binary), demo (its work directory), github_api.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${tf:?}" "${demo:?}" "${github_api:?}"
fail() { echo "FAIL: stage 7: $*" >&2; exit 1; }

# A mirror of the sample's repositories, named as on github.com: git_url_rewrites maps https://github.com/ to it.
mirror="$demo/mirror/microsoft"
mkdir -p "$mirror"
seed() { # seed NAME BRANCH DIR: a commit of DIR's files on BRANCH of the bare repository NAME
  local name=$1 branch=$2 src=$3 work="$demo/work-mirror-$1-$2"
  [ -d "$mirror/$name" ] || git init -q --bare -b main "$mirror/$name"
  git init -q -b "$branch" "$work"
  cp -r "$src"/. "$work"/
  git -C "$work" add -A
  git -C "$work" commit -q -m "sample $branch"
  git -C "$work" push -q "$mirror/$name" "$branch"
}
fixtures="$root/testdata/fixtures/controlplane"
seed kalypso-control-plane main "$fixtures/control-plane-main"
seed kalypso-svc-src main "$fixtures/svc-src"
main_sha=$(git --git-dir="$mirror/kalypso-control-plane" rev-parse main)
cp -r "$fixtures/control-plane-dev" "$demo/control-plane-dev"
# Dev's BaseRepo pins main at the commit just made (the fixture pins the published sample's).
sed -i "s/^  commit: .*/  commit: $main_sha/" "$demo/control-plane-dev/base-repo.yaml"
seed kalypso-control-plane dev "$demo/control-plane-dev"
git init -q --bare -b main "$mirror/kalypso-gitops"
git_gitops() { git --git-dir="$mirror/kalypso-gitops" "$@"; }

cp -r "$root/examples/rollout" "$demo/rollout"
cd "$demo/rollout"
vars=(-input=false -no-color -var "git_mirror=file://$demo/mirror/" -var "github_base_url=$github_api" -var allow_loopback_http=true -var canary_soak_time=2s)

# The cluster-type folders on dev, and the promoted commit.
folders() { git_gitops ls-tree -d --name-only dev 2>/dev/null | grep -v '^\.github$' | tr '\n' ' ' | sed 's/ $//'; }
promoted() { git_gitops show dev:.github/tracking/Promoted_Commit_Id 2>/dev/null || echo none; }
# A fake cluster of cluster type $1 posts success on dev's head, as Flux does (context kustomization/<name>/<Provider UID>).
report() {
  local ct=$1 uid=$2 sha
  sha=$(git_gitops rev-parse dev)
  curl -sS --fail-with-body -X POST "${github_api}repos/microsoft/kalypso-gitops/statuses/$sha" \
    -H "Accept: application/vnd.github+json" -H "Content-Type: application/json" \
    -d "{\"state\":\"success\",\"context\":\"kustomization/$ct/$uid\",\"description\":\"reconciliation succeeded\"}" >/dev/null
  echo "-- a $ct cluster ($uid) posted \"success\" on dev@${sha:0:7}"
}
apply7() {
  "$tf" apply "${vars[@]}" -auto-approve >apply.txt 2>&1 || { cat apply.txt; exit 1; }
  grep -E '^Apply complete' apply.txt
  "$tf" output -json rollout | jq -r '.[] | "   " + .'
}
empty7() {
  local code=0
  "$tf" plan "${vars[@]}" -detailed-exitcode >plan.txt 2>&1 || code=$?
  [ "$code" = 0 ] || { cat plan.txt; fail "$1: the plan is not empty (exit $code)"; }
  echo "-- the plan is empty: nothing to write until the wave's clusters report"
}

echo
echo "================ stage 7: a progressive rollout inside Dev (examples/rollout) ================"
# The provider comes from the dev_overrides of scripts/demo.sh: no terraform init.
echo "---- 7a: the first apply writes only the canary"
apply7
[ "$(folders)" = drone ] || fail "7a: dev holds $(folders), want only drone"
[ "$(promoted)" = none ] || fail "7a: the promoted commit was written before the last wave"
empty7 7a

echo "---- 7b: the canary's cluster reports; once soaked, the west-us wave is written"
report drone 0000000d
sleep 3
apply7
[ "$(folders)" = "drone large small" ] || fail "7b: dev holds $(folders)"
empty7 7b

echo "---- 7c: the west-us clusters report; the rest is written with the promoted commit"
report large 0000000a
report small 0000000b
apply7
[ "$(folders)" = "command-center drone large small" ] || fail "7c: dev holds $(folders)"
[ "$(promoted)" = "$main_sha" ] || fail "7c: Promoted_Commit_Id is $(promoted), want $main_sha"
empty7 7c

echo "---- 7d: the rest reports: every wave is done"
report command-center 0000000c
apply7
empty7 7d
"$tf" output -json rollout | jq -e 'all(.[]; test(": done, "))' >/dev/null || fail "7d: not every wave is done"
echo "==> stage 7 passed: dev rolled out wave by wave (drone, then large and small, then command-center with Promoted_Commit_Id)"
