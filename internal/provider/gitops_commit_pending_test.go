// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// pendingChangeModel: two cluster types, three dev targets on each (6 assignments: 20 files and the
// ownership record on the first apply), and a platform config key that every assignment's
// platform-config.yaml holds, so that a one-key change updates 6 files by one line each.
const pendingChangeModel = `
terraform {
  required_providers {
    kalypso = { source = "registry.terraform.io/kalypso/kalypso" }
  }
}

variable "repo" { type = string }
variable "region" { type = string }

resource "kalypso_cluster_type" "edge" {
  name   = "edge"
  labels = { tier = "edge" }
}

resource "kalypso_cluster_type" "core" {
  name   = "core"
  labels = { tier = "core" }
}

resource "kalypso_platform_config" "all" {
  name = "all"
  data = { REGION = var.region, DATABASE_URL = "mysql://db:3306/app" }
}

resource "kalypso_workload_registration" "catalog" {
  name      = "catalog"
  workspace = "shop"
  workload = {
    deployment_targets = [for t in ["uat", "perf", "canary"] :
      { name = t, environment = "dev", manifests = { repo = "https://github.com/o/catalog", branch = "main", path = "./${t}" } }
    ]
  }
}

resource "kalypso_scheduling_policy" "all" {
  name = "all"
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = var.repo
  branch         = "main"
  render = {
    environment = "dev"
    manifests = [
      kalypso_cluster_type.edge.manifest, kalypso_cluster_type.core.manifest, kalypso_platform_config.all.manifest,
      kalypso_workload_registration.catalog.manifest, kalypso_scheduling_policy.all.manifest,
    ]
  }
}
`

// After an apply, the plan of a one-key change shows that change and nothing of the applied one (issue
// 36 item 1): no entry of the first apply's change set leaves `changes` as `-> null`, each of the 6
// updated files appears once in `changes` (and once in `changes_markdown`), and the whole plan fits in a
// bound measured on it: 228 lines, of which 17 are the platform config's own diff and 90 the Markdown
// summary (466 lines in the report; 500 here when the state's applied change set was read as pending,
// 138 without changes_markdown). The plan after the second apply, and a refresh-only plan, are empty. An
// out-of-band edit then shows as the docs' "Detecting drift" says: `plan -detailed-exitcode` exits 2 under
// both CLIs, `plan -refresh-only -detailed-exitcode` under Terraform (OpenTofu 1.10 prints the drift but
// may exit 0, opentofu/opentofu#3107).
func TestAccGitopsCommit_PlanAfterApplyShowsOnlyThePendingChange(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testPlanAfterApply(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testPlanAfterApply(t, tofuOrSkip(t)) })
}

func testPlanAfterApply(t *testing.T, bin string) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(pendingChangeModel), 0o600); err != nil {
		t.Fatal(err)
	}
	bare := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"README.md": "fleet\n"})
	repo := "file://" + filepath.ToSlash(bare)
	tf := newTerraformCLI(t, work)
	tf.bin = bin
	tf.mustRun("init", "-input=false", "-no-color")
	vars := func(region string) []string { return []string{"-var", "repo=" + repo, "-var", "region=" + region} }
	first := tf.mustRun(append([]string{"plan", "-input=false", "-no-color", "-out=first"}, vars("West US")...)...)
	tf.mustRun("apply", "-input=false", "-no-color", "first")

	out := tf.mustRun(append([]string{"plan", "-input=false", "-no-color", "-out=second"}, vars("East US")...)...)
	lines := strings.Count(out, "\n")
	t.Logf("%s: first plan: %d lines; plan of the one-key change after the apply: %d lines:\n%s", bin, strings.Count(first, "\n"), lines, out)
	if n := strings.Count(out, "-> null"); n != 0 {
		t.Errorf("the plan has %d entries leaving a value (-> null); want none:\n%s", n, out)
	}
	if got := regexp.MustCompile(`(?m)^\s+\+ "(core|edge)/catalog-[a-z]+/platform-config.yaml" = \{$`).FindAllString(out, -1); len(got) != 6 {
		t.Errorf("changes lists %d updated platform-config.yaml files, want 6:\n%s", len(got), out)
	}
	if got := regexp.MustCompile(`(?m)^\s+\+ <details><summary><code>(core|edge)/catalog-[a-z]+/platform-config.yaml</code> \(update\)</summary>$`).FindAllString(out, -1); len(got) != 6 {
		t.Errorf("changes_markdown lists %d updated platform-config.yaml files, want 6:\n%s", len(got), out)
	}
	if strings.Contains(out, "reconciler.yaml") || strings.Contains(out, "namespace.yaml") {
		t.Errorf("the plan names a file the change does not touch:\n%s", out)
	}
	if !regexp.MustCompile(`~ changes_summary += "0 to create, 0 to update, 0 to delete" -> "0 to create, 6 to update, 0 to delete"`).MatchString(out) {
		t.Errorf("the plan lacks the summary of the pending change:\n%s", out)
	}
	const maxLines = 230
	if lines > maxLines {
		t.Errorf("the plan of a one-key change prints %d lines, want at most %d", lines, maxLines)
	}

	tf.mustRun("apply", "-input=false", "-no-color", "second")
	for _, mode := range []string{"-refresh-only", "-refresh=true"} {
		args := append([]string{"plan", "-input=false", "-no-color", "-detailed-exitcode", mode}, vars("East US")...)
		if out, code := tf.run(args...); code != 0 {
			t.Errorf("%s %s exited %d after the apply, want 0:\n%s", bin, strings.Join(args, " "), code, out)
		}
	}

	gitserver.Commit(t, bare, "main", "hand edit", map[string]string{"edge/catalog-uat/namespace.yaml": "edited by hand\n"}, nil)
	out, code := tf.run(append([]string{"plan", "-input=false", "-no-color", "-detailed-exitcode"}, vars("East US")...)...)
	if code != 2 || !strings.Contains(out, `"edge/catalog-uat/namespace.yaml" = {`) || !strings.Contains(out, "-edited by hand") {
		t.Errorf("%s plan after an out-of-band edit exited %d, want 2 with its repair:\n%s", bin, code, out)
	}
	out, code = tf.run(append([]string{"plan", "-input=false", "-no-color", "-detailed-exitcode", "-refresh-only"}, vars("East US")...)...)
	t.Logf("%s plan -refresh-only -detailed-exitcode after an out-of-band edit exited %d", bin, code)
	if !regexp.MustCompile(`~ content_hash += "[0-9a-f]+" -> "[0-9a-f]+"`).MatchString(out) || (bin == "terraform" && code != 2) {
		t.Errorf("%s refresh-only plan after an out-of-band edit exited %d, want the change of content_hash (and 2 under Terraform):\n%s", bin, code, out)
	}
}

// A version 0 state's numbers become version 1's strings, and the applied change set of any stored object
// is read as empty, through the protocol server Terraform talks to.
func TestGitopsCommitUpgradeResourceState(t *testing.T) {
	t.Parallel()
	srv := NewProtocol6Server(New("test", testCaches))()
	ctx := context.Background()
	if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	v0 := `{"id":"file:///r//.?ref=main","repository_url":"file:///r","branch":"main","create_branch":false,"path":".","files":{"a.yaml":"a: 1\n"},
"render":null,"commit_message":"(generated)","author":null,"promoted_commit_id":null,"pull_request":null,"ssh_host_key_fingerprint":null,
"retain_on_destroy":false,"deletion_protection":true,"max_changes":1000,"max_delete_percent":100,
"changes":{"a.yaml":{"action":"create","diff":"a: 1\n"}},"changes_summary":"1 to create, 0 to update, 0 to delete",
"changes_counts":{"create":"1","update":"0","delete":"0"},"changes_by_directory":{"a.yaml":"1 to create, 0 to update, 0 to delete"},
"render_summary":null,"base_tree_id":"t0","content_hash":"t1","commit_sha":"c1","pull_request_number":7,"pull_request_url":"https://github.com/o/r/pull/7","pull_request_state":"open"}`
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "kalypso_gitops_commit", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(v0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
	}
	var sr resource.SchemaResponse
	(&GitopsCommitResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	raw, err := resp.UpgradedState.Unmarshal(sr.Schema.Type().TerraformType(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var m gitopsCommitModel
	if diags := (tfsdk.State{Schema: sr.Schema, Raw: raw}).Get(ctx, &m); diags.HasError() {
		t.Fatal(diags)
	}
	if m.MaxChanges.ValueString() != "1000" || m.MaxDeletePercent.ValueString() != "100" || m.PullRequestNumber.ValueString() != "7" {
		t.Errorf("max_changes, max_delete_percent, pull_request_number = %s, %s, %s; want \"1000\", \"100\", \"7\"", m.MaxChanges, m.MaxDeletePercent, m.PullRequestNumber)
	}
	if len(m.Changes.Elements()) != 0 || len(m.ChangesByDirectory.Elements()) != 0 || m.ChangesSummary.ValueString() != "0 to create, 0 to update, 0 to delete" {
		t.Errorf("the applied change set is still pending: changes %s, by directory %s, summary %s", m.Changes, m.ChangesByDirectory, m.ChangesSummary)
	}
	if m.CommitSHA.ValueString() != "c1" || m.ContentHash.ValueString() != "t1" || m.BaseTreeID.ValueString() != "t0" {
		t.Errorf("commit_sha, content_hash, base_tree_id = %s, %s, %s; want them kept", m.CommitSHA, m.ContentHash, m.BaseTreeID)
	}
}

// noChangeModel: dev and stage commits of one model; the registration's targets come from a variable.
const noChangeModel = `
terraform {
  required_providers {
    kalypso = { source = "registry.terraform.io/kalypso/kalypso" }
  }
}

variable "repo" { type = string }
variable "envs" { type = list(string) }
variable "comment" { type = string }

resource "kalypso_cluster_type" "edge" {
  name = "edge"
}

resource "kalypso_workload_registration" "catalog" {
  name      = "catalog"
  workspace = "shop"
  workload = {
    deployment_targets = [for e in var.envs :
      { name = e, environment = trimsuffix(e, "-2"), manifests = { repo = "https://github.com/o/catalog", branch = "main", path = "./${e}" } }
    ]
  }
}

resource "kalypso_scheduling_policy" "all" {
  name = "all"
}

locals {
  # A YAML comment changes the input text, not what it renders.
  model = [kalypso_cluster_type.edge.manifest, kalypso_workload_registration.catalog.manifest, "${kalypso_scheduling_policy.all.manifest}# ${var.comment}\n"]
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = var.repo
  branch         = "main"
  path           = "dev"
  render         = { environment = "dev", manifests_wo = local.model }
}

resource "kalypso_gitops_commit" "stage" {
  repository_url = var.repo
  branch         = "main"
  path           = "stage"
  render         = { environment = "stage", manifests_wo = local.model }
}

resource "kalypso_gitops_commit" "stage_stored" {
  repository_url = var.repo
  branch         = "main"
  path           = "stage-stored"
  render         = { environment = "stage", manifests = local.model }
}
`

// No change, no diff (issue 36 item 6): with render.manifests_wo, a registration's new target in dev plans
// nothing for the stage commit, and neither does a change of the model's text that renders the same files
// (a YAML comment); the dev commit plans the new target's files. With render.manifests (the attribute
// OpenTofu < 1.11 needs) the stage commit shows `~ manifests = (sensitive value)`, as its docs say.
func TestAccGitopsCommit_NoChangeNoDiff(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(noChangeModel), 0o600); err != nil {
		t.Fatal(err)
	}
	bare := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"README.md": "fleet\n"})
	tf := newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	vars := func(envs, comment string) []string {
		return []string{"-var", "repo=file://" + filepath.ToSlash(bare), "-var", "envs=" + envs, "-var", "comment=" + comment}
	}
	tf.mustRun(append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, vars(`["dev","stage"]`, "one")...)...)

	out := tf.mustRun(append([]string{"plan", "-input=false", "-no-color"}, vars(`["dev","dev-2","stage"]`, "one")...)...)
	if !strings.Contains(out, "kalypso_gitops_commit.dev will be updated in-place") || !strings.Contains(out, `"dev/edge/catalog-dev-2/reconciler.yaml" = {`) {
		t.Errorf("the dev commit does not plan the new target:\n%s", out)
	}
	if strings.Contains(out, "kalypso_gitops_commit.stage will be") {
		t.Errorf("a new dev target plans a change of the stage commit (manifests_wo):\n%s", out)
	}
	if !regexp.MustCompile(`# kalypso_gitops_commit.stage_stored will be updated in-place[\s\S]*~ manifests += \(sensitive value\)`).MatchString(out) {
		t.Errorf("the stage commit with render.manifests does not show its manifests' change:\n%s", out)
	}
	if !strings.Contains(out, "Plan: 0 to add, 3 to change, 0 to destroy.") {
		t.Errorf("want the registration, dev and stage_stored to change:\n%s", out)
	}

	// A change of the text that renders the same files: nothing to do for either manifests_wo commit.
	out, code := tf.run(append([]string{"plan", "-input=false", "-no-color", "-detailed-exitcode", "-target=kalypso_gitops_commit.dev", "-target=kalypso_gitops_commit.stage"}, vars(`["dev","stage"]`, "two")...)...)
	if code != 0 {
		t.Errorf("a model change that renders the same files planned a change (exit %d):\n%s", code, out)
	}
}

// A version 1 state keeps rollout's numbers; version 2 keeps their strings (a number made refresh-only
// plans exit 2 after every apply, hashicorp/terraform#36403).
func TestGitopsCommitUpgradeRolloutNumbers(t *testing.T) {
	t.Parallel()
	upgraded, err := numbersToStrings([]byte(`{"max_changes":"100","rollout":{"history":5,"max_clusters":100,"expected":{"min_clusters_per_cluster_type":2,"clusters":null},`+
		`"waves":[{"name":"canary","max_failures":1},{"name":"rest","max_failures":null}]}}`), numbersAsStrings)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_changes":"100","rollout":{"expected":{"clusters":null,"min_clusters_per_cluster_type":"2"},"history":"5","max_clusters":"100",` +
		`"waves":[{"max_failures":"1","name":"canary"},{"max_failures":null,"name":"rest"}]}}`
	if string(upgraded) != want {
		t.Errorf("upgraded\n%s\nwant\n%s", upgraded, want)
	}
}

// With rollout's numbers set (max_failures, history, max_clusters), 20 refresh-only plans after an apply
// exit 0 (GitHub's REST API is mocked): as numbers in state they exited 2 in 5 of 5 runs, printing "No changes".
func TestAccGitopsCommit_RolloutNumbersKeepRefreshQuiet_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	gitops, _, promoted := rolloutRepo(t)
	gh := mockgithub.Start(t, rolloutToken)
	work := t.TempDir()
	cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"registry.terraform.io/kalypso/kalypso\" }\n  }\n}\n" +
		rolloutFilesConfig(gh, gitops, "v1", promoted, "history = 5\n    max_clusters = 100")
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if st := tf.mustRun("show", "-json"); !strings.Contains(st, `"max_failures":"1"`) || !strings.Contains(st, `"history":"5"`) {
		t.Fatalf("rollout's numbers are not strings in state:\n%s", st)
	}
	failed := 0
	for i := 0; i < 20; i++ {
		if out, code := tf.run("plan", "-input=false", "-no-color", "-refresh-only", "-detailed-exitcode"); code != 0 {
			if failed++; failed == 1 {
				t.Errorf("run %d: refresh-only exited %d:\n%s", i+1, code, out)
			}
		}
	}
	if failed > 0 {
		t.Errorf("refresh-only exited non-zero in %d of 20 runs", failed)
	}
}
