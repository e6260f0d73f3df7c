#!/usr/bin/env bash
# Builds the provider, points Terraform at it with a dev_overrides CLI config (no registry access), creates
# local bare repositories for the application sources and the GitOps repository, and walks the tutorial's
# five stages with terraform plan/apply, printing the assignments and the committed trees.
# TERRAFORM=/path/to/tofu walks them with OpenTofu instead (`make demo TERRAFORM=...`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tf=$(command -v "${TERRAFORM:-terraform}")
demo="$root/.demo"
rm -rf "$demo"
mkdir -p "$demo/bin" "$demo/repos"

echo "==> building the provider"
go build -o "$demo/bin/terraform-provider-kalypso" .

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

cat > "$demo/local.tfvars.json" <<JSON
{
  "gitops_repo": "file://$demo/repos/gitops.git",
  "git_url_rewrites": {
    "https://github.com/microsoft/kalypso-app-src": "file://$demo/repos/app-src.git",
    "https://github.com/microsoft/kalypso-svc-src": "file://$demo/repos/svc-src.git"
  }
}
JSON

cp -r examples/tutorial "$demo/tutorial"
cd "$demo/tutorial"

titles=("" "onboard an application" "Dev scheduling policies" "promote to Stage" "a DATABASE_URL for west-us on Stage" "add a cluster type to Stage")
for stage in 1 2 3 4 5; do
  echo
  echo "================ stage $stage: ${titles[$stage]} ================"
  "$tf" plan -input=false -no-color -var-file="$demo/local.tfvars.json" -var stage="$stage" -out=tfplan >plan.txt 2>&1 || { cat plan.txt; exit 1; }
  grep -E "^  # |^Plan:|^No changes|^Warning: " plan.txt | grep -v "development overrides" || true
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

for branch in dev stage; do
  echo
  echo "==> gitops repository, branch $branch: git log"
  git --git-dir="$demo/repos/gitops.git" log --format='  %h %s' "$branch"
  echo "==> gitops repository, branch $branch: tree"
  git --git-dir="$demo/repos/gitops.git" ls-tree -r --name-only "$branch" | sed 's/^/  /'
done
echo
echo "==> stage: Promoted_Commit_Id = $(git --git-dir="$demo/repos/gitops.git" show stage:.github/tracking/Promoted_Commit_Id)"
