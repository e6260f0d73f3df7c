// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_BranchCreatedBetweenPlanAndApply: a saved plan with create_branch = true for a
// missing branch, applied after someone else created that branch with other content under path, fails
// with a diagnostic that says so and asks for a new plan (not "Provider produced inconsistent final
// plan"); the branch holds only the other writer's commit; the next plan succeeds against the branch as
// it is, and its apply converges.
func TestAccGitopsCommit_BranchCreatedBetweenPlanAndApply(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	files := map[string]string{"drone/README.md": "drone"}
	r.write(strings.TrimPrefix(gitopsCfg{URL: "file://" + r.repo, Branch: "dev", Path: "clusters", Files: files,
		Extra: "  create_branch = true\n  deletion_protection = false"}.String(), "provider \"kalypso\" {\n\n}\n\n"))
	r.must("plan", "-out=create.tfplan")

	theirs := gitserver.Commit(t, r.repo, "dev", "created by someone else", map[string]string{"clusters/drone/README.md": "theirs\n"}, nil)
	out := r.expectExit(1, "apply", "create.tfplan")
	expectOutput(t, "apply of the saved plan", out, `Error: The branch was created since the plan`,
		`branch "dev" did not exist when the plan was made`, `Nothing was written\. Run terraform plan again`)
	if strings.Contains(out, "inconsistent final plan") {
		t.Errorf("the apply still reports an inconsistent final plan:\n%s", out)
	}
	if head, n := gitserver.Head(t, r.repo, "dev"), gitserver.CommitCount(t, r.repo, "dev"); head != theirs || n != 1 {
		t.Errorf("branch dev is at %s with %d commits, want only the other writer's commit %s", head, n, theirs)
	}

	// The advice leads somewhere: the new plan shows the update of their file, and its apply converges.
	out = r.expectExit(2, "plan", "-detailed-exitcode", "-out=again.tfplan")
	expectOutput(t, "the new plan", out, `Plan: 1 to add, 0 to change, 0 to destroy`)
	if got := r.plannedChanges("again.tfplan")["clusters/drone/README.md"]; !strings.HasPrefix(got, "update") {
		t.Errorf("the new plan lists clusters/drone/README.md as %q, want an update", got)
	}
	r.must("apply", "again.tfplan")
	if got := gitserver.Files(t, r.repo, "dev")["clusters/drone/README.md"]; got != "drone" {
		t.Errorf("after the new plan's apply clusters/drone/README.md holds %q", got)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")
}
