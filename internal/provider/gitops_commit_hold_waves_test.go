// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// TestAccGitopsCommit_holdPerWave_MockGitHubAPI, under Terraform and OpenTofu: the hold of a rollout is
// kept per cluster-type folder. Version 2 reaches both waves (canary: drone, rest: large) and fails on the
// rest; the last known good commit holds version 1 in both folders, so on_failure = "rollback" restores
// both. A hold that compared whole trees would not match the tree the waves write next (version 2 in the
// canary's folder only) and would promote version 2 to the canary again; per folder, the plan after the
// rollback is empty with the hold's warning, and its apply writes nothing to either folder. Version 3
// renders other content in both folders: the hold is released, and the rollout starts again at the canary.
func TestAccGitopsCommit_holdPerWave_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testHoldPerWave(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testHoldPerWave(t, tofuOrSkip(t)) })
}

// holdRig is lkgRig with two waves, canary (drone) and rest (large): version 1 rolled out and reported
// healthy everywhere at c2; version 2 reached the canary at c3 (healthy there) and the rest at c4, whose
// cluster failed. c3 has no report of the rest, so the last known good commit is c2: version 1 in both
// waves' folders.
func holdRig(t *testing.T, onFailure, bin string) (r *lkgRig, c2, c4 string) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	gitops, _, _ := rolloutRepo(t)
	r = &lkgRig{t: t, dir: t.TempDir(), gitops: gitops, gh: mockgithub.Start(t, rolloutToken), onFail: onFailure,
		waves: `[{ name = "canary", cluster_types = ["drone"] }, { name = "rest" }]`}
	r.tf = newTerraformCLI(t, r.dir)
	r.tf.bin = bin
	apply := func(version string) string {
		t.Helper()
		r.cfg(version, "")
		r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
		return r.head()
	}
	r.cfg("1", "")
	r.tf.mustRun("init", "-input=false", "-no-color")
	c1 := apply("1") // the canary
	r.post(c1, "d0000001", "success")
	c2 = apply("1") // the rest
	r.post(c2, "d0000001", "success")
	r.post(c2, "e0000001", "success")
	r.expectVersions("version 1", "drone=1 large=1 promoted=")
	c3 := apply("2") // the canary
	r.post(c3, "d0000001", "success")
	c4 = apply("2") // the rest, which fails
	r.post(c4, "d0000001", "success")
	r.post(c4, "e0000001", "failure")
	r.expectVersions("version 2", "drone=2 large=2 promoted=")
	return r, c2, c4
}

func (r *lkgRig) head() string { return gitserver.Head(r.t, r.gitops, "dev") }

func (r *lkgRig) expectVersions(what, want string) {
	r.t.Helper()
	if got := branchVersions(r.t, r.gitops); got != want {
		r.t.Fatalf("%s: dev holds %s, want %s", what, got, want)
	}
}

func testHoldPerWave(t *testing.T, bin string) {
	r, c2, c4 := holdRig(t, "rollback", bin)
	gitops, head, branch := r.gitops, r.head, r.expectVersions

	// The rollback restores version 1 in both waves' folders at once.
	out := r.tf.mustRun("plan", "-input=false", "-no-color", "-out=auto.tfplan")
	expectOutput(t, "the plan of the halted rollout", out, `Warning: Rollout failed: rolling back`, `last known good commit `+c2)
	r.tf.mustRun("apply", "-input=false", "-no-color", "auto.tfplan")
	r.expectRolledBackTo(c2, c4)
	branch("after the rollback", "drone=1 large=1 promoted=")
	rollback := head()

	// Held: the configuration still renders version 2 in both folders, so nothing is planned for either
	// wave (the canary would otherwise receive version 2 again).
	out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Errorf("the plan after the rollback is not empty (exit %d):\n%s", code, out)
	}
	expectOutput(t, "the held plan", out, `Warning: Held after a rollback`, `was rolled back to commit\s+`+c2[:12], `content that failed in\s+drone,\s+large`, `this apply writes nothing of wave canary`)
	out = r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Errorf("the held plan's apply changed something:\n%s", out)
	}
	if got := head(); got != rollback {
		t.Errorf("the held plan's apply wrote commit %s", got)
	}
	branch("after the held apply", "drone=1 large=1 promoted=")
	if diff := gitserver.Git(t, gitops, nil, "diff", c2, "dev", "--", "clusters"); diff != "" {
		t.Errorf("after the held apply, git diff %s dev -- clusters:\n%s", c2, diff)
	}

	// Version 3 renders other content in both folders: released, and written to the canary only.
	r.post(rollback, "d0000001", "success")
	r.post(rollback, "e0000001", "success")
	r.cfg("3", "")
	out = r.tf.mustRun("plan", "-input=false", "-no-color", "-out=v3.tfplan")
	if strings.Contains(out, "Held after a rollback") {
		t.Errorf("the hold outlived a change of input:\n%s", out)
	}
	expectOutput(t, "the plan of version 3", out, `\+version: 3`, `Warning: Rollout: waves stay behind`)
	var planned plannedChanges
	if err := json.Unmarshal([]byte(r.tf.mustRun("show", "-json", "v3.tfplan")), &planned); err != nil {
		t.Fatal(err)
	}
	if changes, _ := planned.ResourceChanges[0].Change.After["changes"].(map[string]any); len(changes) != 1 || changes["clusters/drone/app.yaml"] == nil {
		t.Errorf("version 3's change set in show -json: %v, want clusters/drone/app.yaml alone", changes)
	}
	r.tf.mustRun("apply", "-input=false", "-no-color", "v3.tfplan")
	branch("version 3", "drone=3 large=1 promoted=")
}

// TestAccGitopsCommit_holdPerWaveExplicitRollback: rollback = { to = "last_known_good" } with two waves is
// written wave by wave, as any change: the canary's folder first, the rest's once the canary reported
// healthy. The hold the second apply records keeps the canary's folder, which the first apply rolled
// back, beside the rest's; once rollback is removed, the configuration that still renders version 2 is
// held in both folders, and the apply of that plan writes nothing. Under Terraform and OpenTofu.
func TestAccGitopsCommit_holdPerWaveExplicitRollback_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testHoldPerWaveExplicitRollback(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testHoldPerWaveExplicitRollback(t, tofuOrSkip(t)) })
}

func testHoldPerWaveExplicitRollback(t *testing.T, bin string) {
	r, c2, _ := holdRig(t, "", bin)
	rollback := "  rollback = { to = \"last_known_good\" }\n"
	r.cfg("2", rollback)
	out := r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	expectOutput(t, "the rollback's first wave", out, `Warning: Rollback`, `restores the files under path as commit `+c2)
	r.expectVersions("the rollback's first wave", "drone=1 large=2 promoted=")
	first := r.head()
	r.post(first, "d0000001", "success")
	r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	r.expectRolledBackTo(c2, first)
	r.expectVersions("the rollback's second wave", "drone=1 large=1 promoted=")
	second := r.head()

	// rollback removed: version 2 is held in both folders; the apply only removes rollback from the state.
	r.cfg("2", "")
	out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 2 || strings.Contains(out, "changes ") {
		t.Errorf("the plan that removes rollback: exit %d, want 2 with no file change:\n%s", code, out)
	}
	expectOutput(t, "the plan that removes rollback", out, `Warning: Held after a rollback`, `content that failed in\s+drone,\s+large`, `- rollback\s+= \{`)
	r.tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	if out, code := r.tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 || !strings.Contains(out, "Held after a rollback") {
		t.Errorf("the held plan: exit %d, want 0 with the hold's warning:\n%s", code, out)
	}
	if got := r.head(); got != second {
		t.Errorf("an apply of the held configuration wrote commit %s", got)
	}
	r.expectVersions("held", "drone=1 large=1 promoted=")
}
