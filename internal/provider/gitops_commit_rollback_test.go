// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// TestAccGitopsCommit_Rollback (files mode): three applied commits, the third bad. A rollback to the
// first is refused by the mass-deletion guard like any change, one to a commit not on the branch at
// rollback.to; a rollback to the second plans the exact reverse change and writes one commit naming both
// commits, after which `git diff <second> HEAD -- clusters` is empty.
func TestAccGitopsCommit_Rollback(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	small := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	good := map[string]string{}
	for i := 0; i < 12; i++ {
		good[fmt.Sprintf("large/t%02d/namespace.yaml", i)] = "kind: Namespace\n"
	}
	bad := fixtures.Merge(good, map[string]string{"large/t03/namespace.yaml": "kind: Namespace\nmetadata: {labels: {broken: \"true\"}}\n"})
	var commits []string
	for _, files := range []map[string]string{small, good, bad} {
		r.write(lifecycleResource(url, files, ""))
		r.must("apply", "-auto-approve")
		commits = append(commits, gitserver.Head(t, r.repo, "main"))
	}
	first, second, third := commits[0], commits[1], commits[2]

	// The way back passes the same guards: restoring the first commit deletes 12 of 12 files.
	r.write(lifecycleResource(url, bad, fmt.Sprintf("  rollback = { to = %q }\n", first)))
	out := r.expectExit(1, "plan")
	expectOutput(t, "a rollback that deletes most files", out, `max_delete_percent`)
	r.write(lifecycleResource(url, bad, "  rollback = { to = \"0123456789abcdef0123456789abcdef01234567\" }\n"))
	out = r.expectExit(1, "plan")
	expectOutput(t, "a rollback to a commit not on the branch", out, `Error: Cannot roll back`, `is not main's head`, `name the branch head or one of its first-parent ancestors`)

	r.write(lifecycleResource(url, bad, fmt.Sprintf("  rollback = { to = %q }\n", second[:10])))
	out = r.must("plan", "-out=rollback.tfplan")
	expectOutput(t, "the rollback's plan", out, `Warning: Rollback`, `restores the files under path as commit `+second,
		`"clusters/large/t03/namespace.yaml" = \{`, `\+ @@ -1,2 \+1 @@`, `\+ -metadata: \{labels: \{broken: "true"\}\}`, `\+ rollback\s+= \{`)
	r.must("apply", "rollback.tfplan")
	if diff := gitserver.Git(t, r.repo, nil, "diff", second, "main", "--", "clusters"); diff != "" {
		t.Errorf("after the rollback, git diff %s main -- clusters:\n%s", second, diff)
	}
	msg := gitserver.Git(t, r.repo, nil, "log", "-1", "--format=%B", "main")
	if want := fmt.Sprintf("Roll back clusters on main to %s (from %s): 1 modified", second[:12], third[:12]); !strings.HasPrefix(msg, want) ||
		!strings.Contains(msg, "Rolled back from: "+third) || !strings.Contains(msg, "Rolled back to: "+second) {
		t.Errorf("the rollback's commit message:\n%s\nwant it to start with %q and name both commits", msg, want)
	}
	if n := gitserver.CommitCount(t, r.repo, "main"); n != 5 {
		t.Errorf("%d commits, want 5: the seed, three applies and one rollback", n)
	}
}

// rollbackModel is the tutorial's dev environment with one more platform config, whose value each
// version changes: every assignment's platform-config.yaml changes with it.
func rollbackModel(t *testing.T, version string) string {
	t.Helper()
	c := fixtures.Load(t, "tutorial-dev")
	list := strings.TrimSuffix(hclManifestList(t, c), "]")
	extra := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: zz-rollback\n  labels:\n    platform-config: \"true\"\ndata:\n  RELEASE: " + version + "\n"
	return list + "  " + hclString(extra) + ",\n  ]"
}

// TestAccGitopsCommit_RollbackHold (render mode): after a rollback the tree that was rolled back is held:
// the configuration that still renders it plans nothing, with a warning that says what is held and since
// when; release_hold plans it again; an input that renders another tree releases the hold.
func TestAccGitopsCommit_RollbackHold(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: berlin(t, "2026-11-25 10:00")}
	r := newClockRig(t, clock)
	cfg := func(version, extra string) string {
		return fmt.Sprintf(`resource "kalypso_gitops_commit" "test" {
  repository_url      = %s
  branch              = "main"
  path                = "clusters"
  deletion_protection = false
  render = {
    environment = "dev"
    manifests   = %s
  }
%s}
`, gitopsHCL("file://"+r.repo), rollbackModel(t, version), extra)
	}
	var commits []string
	for _, v := range []string{"v1", "v2", "v3"} {
		r.write(cfg(v, ""))
		r.must("apply", "-auto-approve")
		commits = append(commits, gitserver.Head(t, r.repo, "main"))
	}
	second := commits[1]
	r.write(cfg("v3", fmt.Sprintf("  rollback = { to = %q }\n", second)))
	r.must("apply", "-auto-approve")
	if diff := gitserver.Git(t, r.repo, nil, "diff", second, "main", "--", "clusters"); diff != "" {
		t.Errorf("after the rollback, git diff %s main -- clusters:\n%s", second, diff)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")

	// Held: without rollback, the configuration still renders v3.
	clock.Set(berlin(t, "2026-11-25 11:00"))
	r.write(cfg("v3", ""))
	out := r.expectExit(2, "plan", "-detailed-exitcode") // rollback -> null, and nothing else
	expectOutput(t, "the plan that removes rollback", out, `Warning: Held after a rollback`, `\(commit `+commits[2][:12]+`\) was rolled back to commit `+second[:12]+` at 2026-11-25T09:00:00Z`,
		`nothing is written`, `release_hold = true`, `~ resource "kalypso_gitops_commit" "test" \{\s+id\s+= "[^"]+"\s+- rollback\s+= \{`)
	if strings.Contains(out, "changes ") {
		t.Errorf("the plan that removes rollback lists changes:\n%s", out)
	}
	head := gitserver.Head(t, r.repo, "main")
	r.must("apply", "-auto-approve")
	if got := gitserver.Head(t, r.repo, "main"); got != head {
		t.Errorf("an apply of the held tree wrote commit %s", got)
	}
	out = r.expectExit(0, "plan", "-detailed-exitcode")
	expectOutput(t, "the plan of the held tree", out, `Warning: Held after a rollback`)
	r.write(cfg("v3", "  release_hold = true\n"))
	out = r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "release_hold", out, `Warning: Hold released`, `RELEASE: v2`, `\+ release_hold\s+= true`)

	// Another input renders another tree; once it is applied, the hold is over.
	r.write(cfg("v4", ""))
	r.must("apply", "-auto-approve")
	r.write(cfg("v3", ""))
	out = r.expectExit(2, "plan", "-detailed-exitcode")
	if strings.Contains(out, "Held after a rollback") {
		t.Errorf("the hold outlived a change of input:\n%s", out)
	}
}

// lkgRig is a GitOps branch dev of org/gitops with a one-wave rollout over two clusters (d0000001 on drone,
// e0000001 on large) that report to the GitHub REST mock as Flux's notification-controller does. Three
// versions are applied; the clusters report the first two healthy, and e0000001 the third failed.
type lkgRig struct {
	t       *testing.T
	tf      *terraformCLI
	dir     string
	gitops  string
	gh      *mockgithub.Server
	commits []string
	onFail  string
	// waves is rollout.waves in HCL ("": one wave, all).
	waves string
}

// newLKGRig runs bin (terraform, or an OpenTofu binary: tofuBinary).
func newLKGRig(t *testing.T, onFailure, bin string) *lkgRig {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	gitops, _, _ := rolloutRepo(t)
	r := &lkgRig{t: t, dir: t.TempDir(), gitops: gitops, gh: mockgithub.Start(t, rolloutToken), onFail: onFailure}
	r.tf = newTerraformCLI(t, r.dir)
	r.tf.bin = bin
	r.cfg("1", "")
	r.tf.mustRun("init", "-input=false", "-no-color")
	for i, v := range []string{"1", "2", "3"} {
		r.cfg(v, "")
		r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
		sha := gitserver.Head(t, gitops, "dev")
		r.commits = append(r.commits, sha)
		r.post(sha, "d0000001", "success")
		if i < 2 {
			r.post(sha, "e0000001", "success")
		} else {
			r.post(sha, "e0000001", "failure")
		}
	}
	return r
}

func (r *lkgRig) cfg(version, extra string) {
	r.t.Helper()
	files := map[string]string{"drone/app.yaml": "version: " + version + "\n", "large/app.yaml": "version: " + version + "\n"}
	onFailure := ""
	if r.onFail != "" {
		onFailure = fmt.Sprintf("    on_failure      = %q\n", r.onFail)
	}
	waves := r.waves
	if waves == "" {
		waves = `[{ name = "all" }]`
	}
	main := fmt.Sprintf(`
terraform {
  required_providers {
    kalypso = { source = "registry.terraform.io/kalypso/kalypso" }
  }
}

provider "kalypso" {
  github_base_url     = %[1]q
  git_token           = %[2]q
  allow_loopback_http = true # the GitHub REST mock is plain http on 127.0.0.1
}

resource "kalypso_gitops_commit" "dev" {
  repository_url      = %[3]q
  branch              = "dev"
  path                = "clusters"
  deletion_protection = false
  files               = %[4]s
  rollout = {
    waves           = %[7]s
    expected        = { clusters = { drone = ["d0000001"], large = ["e0000001"] } }
    github_statuses = { repository = "org/gitops" }
%[6]s  }
%[5]s}
`, r.gh.BaseURL(), rolloutToken, "file://"+filepath.ToSlash(r.gitops), hclMap(files), extra, onFailure, waves)
	if err := os.WriteFile(filepath.Join(r.dir, "main.tf"), []byte(main), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func (r *lkgRig) post(sha, cluster, state string) {
	r.gh.AddStatus("org/gitops", sha, mockgithub.Status{State: state, Context: "kustomization/dev/" + cluster, Description: "reconciliation " + state, UpdatedAt: time.Now().Add(-time.Hour)})
}

// expectRolledBackTo checks that the branch's tree under clusters is lkg's and that the last commit
// names both commits.
func (r *lkgRig) expectRolledBackTo(lkg, from string) {
	r.t.Helper()
	if diff := gitserver.Git(r.t, r.gitops, nil, "diff", lkg, "dev", "--", "clusters"); diff != "" {
		r.t.Errorf("after the rollback, git diff %s dev -- clusters:\n%s", lkg, diff)
	}
	msg := gitserver.Git(r.t, r.gitops, nil, "log", "-1", "--format=%s", "dev")
	if want := fmt.Sprintf("Roll back clusters on dev to %s (from %s)", lkg[:12], from[:12]); !strings.HasPrefix(msg, want) {
		r.t.Errorf("the rollback's subject %q, want %q", msg, want)
	}
}

// TestAccGitopsCommit_RollbackToLastKnownGood_MockGitHubAPI, under Terraform and OpenTofu: three commits
// of a rollout, the third failed: last_known_good is the second (commit and managed tree);
// rollback = { to = "last_known_good" } plans the reverse change, and after the apply `git diff <last
// known good> HEAD -- clusters` is empty and the next plan is empty. Once rollback is removed, the
// configuration that still renders the failed version is held (its apply writes nothing, the plan after
// it is empty), and a changed input releases the hold.
func TestAccGitopsCommit_RollbackToLastKnownGood_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testRollbackToLastKnownGood(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testRollbackToLastKnownGood(t, tofuOrSkip(t)) })
}

func testRollbackToLastKnownGood(t *testing.T, bin string) {
	r := newLKGRig(t, "", bin)
	lkg, failed := r.commits[1], r.commits[2]
	out := r.tf.mustRun("plan", "-input=false", "-no-color", "-out=halted.tfplan")
	expectOutput(t, "the plan after the failure", out, `Warning: Rollout halted`)
	var halted plannedChanges
	if err := json.Unmarshal([]byte(r.tf.mustRun("show", "-json", "halted.tfplan")), &halted); err != nil {
		t.Fatal(err)
	}
	tree := managedTreeAt(t, r.gitops, lkg, "clusters")
	got, _ := halted.ResourceChanges[0].Change.After["last_known_good"].(map[string]any)
	if got["commit"] != lkg || got["tree"] != tree {
		t.Errorf("last_known_good %v, want commit %s and tree %s", got, lkg, tree)
	}
	// One wave: its own last known good is the environment's.
	if waves, _ := got["waves"].([]any); len(waves) != 1 || fmt.Sprint(waves[0]) != fmt.Sprintf("map[cluster_types:[drone large] commit:%s name:all tree:%s]", lkg, tree) {
		t.Errorf("last_known_good.waves %v", got["waves"])
	}

	r.cfg("3", "  rollback = { to = \"last_known_good\" }\n")
	out = r.tf.mustRun("plan", "-input=false", "-no-color", "-out=rollback.tfplan")
	expectOutput(t, "the rollback's plan", out, `Warning: Rollback`, `restores the files under path as commit `+lkg, `-version: 3`, `\+version: 2`)
	var planned plannedChanges
	if err := json.Unmarshal([]byte(r.tf.mustRun("show", "-json", "rollback.tfplan")), &planned); err != nil {
		t.Fatal(err)
	}
	changes, _ := planned.ResourceChanges[0].Change.After["changes"].(map[string]any)
	if len(changes) != 2 || changes["clusters/drone/app.yaml"] == nil || changes["clusters/large/app.yaml"] == nil {
		t.Errorf("the rollback's change set in show -json: %v", changes)
	}
	r.tf.mustRun("apply", "-input=false", "-no-color", "rollback.tfplan")
	r.expectRolledBackTo(lkg, failed)
	rollback := gitserver.Head(t, r.gitops, "dev")
	if out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the rollback's apply is not empty (exit %d):\n%s", code, out)
	}

	// rollback removed: the configuration still renders version 3, which is held.
	r.cfg("3", "")
	out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 2 || strings.Contains(out, "changes ") {
		t.Errorf("the plan that removes rollback: exit %d, want 2 with no file change:\n%s", code, out)
	}
	expectOutput(t, "the plan that removes rollback", out, `Warning: Held after a rollback`, `was rolled back to commit\s+`+lkg[:12], `- rollback\s+= \{`)
	r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 || !strings.Contains(out, "Held after a rollback") {
		t.Errorf("the held plan: exit %d, want 0 with the hold's warning:\n%s", code, out)
	}
	if got := gitserver.Head(t, r.gitops, "dev"); got != rollback {
		t.Errorf("an apply of the held tree wrote commit %s", got)
	}

	// Version 4 is another tree: the hold is released, and it is written.
	r.cfg("4", "")
	out = r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if strings.Contains(out, "Held after a rollback") {
		t.Errorf("the hold outlived a change of input:\n%s", out)
	}
	if files := gitserver.Files(t, r.gitops, "dev"); files["clusters/drone/app.yaml"] != "version: 4\n" || files["clusters/large/app.yaml"] != "version: 4\n" {
		t.Errorf("after version 4: %v", files)
	}
}

// TestAccGitopsCommit_RolloutOnFailureRollback_MockGitHubAPI: with rollout.on_failure = "rollback" the plan
// of the halted rollout proposes the rollback to last_known_good by itself; after it the configuration
// that still renders the failed version is held (an empty plan); a failure of the rollback's own commit
// does not roll back again. Under Terraform and OpenTofu.
func TestAccGitopsCommit_RolloutOnFailureRollback_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testRolloutOnFailureRollback(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testRolloutOnFailureRollback(t, tofuOrSkip(t)) })
}

func testRolloutOnFailureRollback(t *testing.T, bin string) {
	r := newLKGRig(t, "rollback", bin)
	lkg := r.commits[1]
	out := r.tf.mustRun("plan", "-input=false", "-no-color", "-out=auto.tfplan")
	expectOutput(t, "the plan of the halted rollout", out, `Warning: Rollout failed: rolling back`, `last known good commit `+lkg, `-version: 3`, `\+version: 2`)
	r.tf.mustRun("apply", "-input=false", "-no-color", "auto.tfplan")
	r.expectRolledBackTo(lkg, r.commits[2])
	rollback := gitserver.Head(t, r.gitops, "dev")

	// The plan after it is empty: the configuration still renders version 3, which is held, and the
	// rollback's apply recorded the rollout as that plan reads it (rollout_status).
	out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Errorf("the plan after the rollback is not empty (exit %d):\n%s", code, out)
	}
	expectOutput(t, "the plan after the rollback", out, `Warning: Held after a rollback`, `was rolled back to commit\s+`+lkg[:12])
	r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if got := gitserver.Head(t, r.gitops, "dev"); got != rollback {
		t.Errorf("the held plan's apply moved the branch: %s", got)
	}
	// The rollback's own commit fails too: no rollback of a rollback.
	r.post(rollback, "d0000001", "success")
	r.post(rollback, "e0000001", "failure")
	out, code = r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code == 1 || strings.Contains(out, "Rollout failed: rolling back") {
		t.Errorf("a failed rollback rolls back again (exit %d):\n%s", code, out)
	}
	if got := gitserver.Head(t, r.gitops, "dev"); got != rollback {
		t.Errorf("the branch moved after the rollback: %s", got)
	}
}
