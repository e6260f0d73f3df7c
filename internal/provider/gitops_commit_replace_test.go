// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// A replacement (-replace, taint, replace_triggered_by, with or without create_before_destroy) of
// kalypso_gitops_commit at the same location takes the files over: its plan shows both sides and the
// change set the apply writes against the branch as it is, the destroy of the replaced object writes
// nothing, the path is never empty, and the apply never ends in "Provider produced inconsistent final
// plan". Before, the destroy committed "Remove clusters … removed" and the create failed seven times with
// that error, leaving the path empty and the resource gone from state.

// replaceAction is the actions of kalypso_gitops_commit.test in a saved plan and its planned changes_summary.
func (r *lifecycleRig) replaceAction(planFile string) (actions []string, summary string) {
	r.t.Helper()
	var plan struct {
		ResourceChanges []struct {
			Change struct {
				Actions []string `json:"actions"`
				After   struct {
					Summary string `json:"changes_summary"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	js := r.tf.mustRun("show", "-json", planFile)
	if err := json.Unmarshal([]byte(js), &plan); err != nil || len(plan.ResourceChanges) != 1 {
		r.t.Fatalf("show -json %s: %v\n%s", planFile, err, js)
	}
	return plan.ResourceChanges[0].Change.Actions, plan.ResourceChanges[0].Change.After.Summary
}

func TestAccGitopsCommit_ReplaceInPlace(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	files := map[string]string{"drone/README.md": "drone", "drone/t1/namespace.yaml": "kind: Namespace\n", "large/README.md": "large"}
	delivered := fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files))
	for _, protection := range []string{"false", "true"} {
		r.write(lifecycleResource(url, files, "  deletion_protection = "+protection))
		r.must("apply", "-auto-approve")
	}
	r.expectMain(delivered, 2)
	head := gitserver.Head(t, r.repo, "main")
	unchanged := func(when string) {
		t.Helper()
		if got := gitserver.Head(t, r.repo, "main"); got != head {
			t.Fatalf("%s: branch main moved from %s to %s", when, head, got)
		}
		r.expectMain(delivered, 2)
	}

	// -replace, protected: planned as a replacement that removes nothing, so protection has nothing to refuse.
	out := r.expectExit(2, "plan", "-detailed-exitcode", "-replace=kalypso_gitops_commit.test", "-out=replace.tfplan")
	// The stored change set reads as none (issue 36 item 1), so the replacement's empty one prints no diff.
	expectOutput(t, "plan -replace", out, `will be replaced, as requested`, `Plan: 1 to add, 0 to change, 1 to destroy`)
	if strings.Contains(out, "changes_summary") {
		t.Errorf("plan -replace shows a change of changes_summary:\n%s", out)
	}
	if actions, summary := r.replaceAction("replace.tfplan"); strings.Join(actions, ",") != "delete,create" || summary != "0 to create, 0 to update, 0 to delete" {
		t.Errorf("plan -replace: actions %v, changes_summary %q", actions, summary)
	}
	out = r.must("apply", "replace.tfplan")
	if strings.Contains(out, "inconsistent") {
		t.Errorf("apply of the replacement:\n%s", out)
	}
	unchanged("after -replace")
	r.expectExit(0, "plan", "-detailed-exitcode")

	// Unprotected, a replacement that also changes a file writes that change and nothing else.
	r.write(lifecycleResource(url, files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	unchanged("after lowering the protection")
	changed := fixtures.Merge(files, map[string]string{"large/README.md": "large v2"})
	r.write(lifecycleResource(url, changed, "  deletion_protection = false"))
	r.must("apply", "-auto-approve", "-replace=kalypso_gitops_commit.test")
	delivered = fixtures.Merge(gitopsOutside, gitopsManaged("clusters", changed))
	r.expectMain(delivered, 3)
	stat := gitserver.Git(t, "", nil, "--git-dir", r.repo, "show", "--name-status", "--format=", "main")
	if strings.TrimSpace(stat) != "M\tclusters/large/README.md" {
		t.Errorf("the replacement's commit changes:\n%s", stat)
	}
	head = gitserver.Head(t, r.repo, "main")

	// terraform taint: the create takes the files over; the destroy of the tainted object writes nothing.
	r.tf.mustRun("taint", "kalypso_gitops_commit.test")
	out = r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "plan after taint", out, `is tainted, so must be replaced`)
	r.must("apply", "-auto-approve")
	unchanged3 := func(when string) {
		t.Helper()
		if got := gitserver.Head(t, r.repo, "main"); got != head {
			t.Fatalf("%s: branch main moved", when)
		}
		r.expectMain(delivered, 3)
	}
	unchanged3("after taint")
	r.expectExit(0, "plan", "-detailed-exitcode")

	// create_before_destroy: the create comes first, and the destroy of the old object finds its location
	// taken over.
	r.write(lifecycleResource(url, changed, "  deletion_protection = true\n  lifecycle {\n    create_before_destroy = true\n  }"))
	r.must("apply", "-auto-approve")
	r.must("apply", "-auto-approve", "-replace=kalypso_gitops_commit.test")
	unchanged3("after a create_before_destroy replacement")
	r.expectExit(0, "plan", "-detailed-exitcode")
}

// TestAccGitopsCommit_ReplaceCannotMove: a replacement that also changes the location would empty the old
// location before the new one exists; it is refused at plan and nothing is written.
func TestAccGitopsCommit_ReplaceCannotMove(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	files := map[string]string{"drone/README.md": "drone"}
	r.write(lifecycleResource(url, files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	refs := gitopsRefs(t, r.repo)
	r.write(strings.Replace(lifecycleResource(url, files, "  deletion_protection = false"), `path = "clusters"`, `path = "envs/dev"`, 1))
	for _, args := range [][]string{{"plan", "-replace=kalypso_gitops_commit.test"}, {"apply", "-auto-approve", "-replace=kalypso_gitops_commit.test"}} {
		out := r.expectExit(1, args...)
		expectOutput(t, "terraform "+strings.Join(args, " "), out, `Error: A replacement cannot change the location`,
			`Nothing was written`, `a change of repository_url, branch or path is a move`)
	}
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("a refused replacement wrote to the repository:\n%s\nwas\n%s", got, refs)
	}
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)
	// Without -replace the same change is a move, applied in one commit.
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("envs/dev", files)), 3)
}
