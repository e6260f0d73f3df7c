// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_MoveIsOneStep (issue 36 item 3, issue 35 item 5): with deletion_protection = false a
// path move of a whole environment is one plan and one apply. The mass-deletion guard judges what leaves
// the environment, not the files written again at the new location (before, it refused the move with
// "this usually means a mistyped environment name" and only max_delete_percent = 100 let it through).
// The plan lists every file the move deletes with its content, the old ownership record included, within
// max_changes. A move that drops files on the way is still refused, with advice for a move; so is a
// protected one (before, the advice was "... then destroy").
func TestAccGitopsCommit_MoveIsOneStep(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("drone/t%02d/namespace.yaml", i)] = fmt.Sprintf("kind: Namespace\nmetadata:\n  name: t%02d\n", i)
	}
	r.write(moveResource(url, "main", "clusters", files, "  deletion_protection = true"))
	r.must("apply", "-auto-approve")
	head := gitserver.Head(t, r.repo, "main")

	// Protected: refused at plan, with the way out of a move.
	r.write(moveResource(url, "main", "envs/dev", files, "  deletion_protection = true"))
	out := r.expectExit(1, "plan")
	expectOutput(t, "plan of a protected move", out, `Error: The move deletes files at the old location`, `deletion_protection = false with the old location and apply that first`,
		`then apply the move`, `Nothing was written`)
	if strings.Contains(out, "then destroy") {
		t.Errorf("a move's refusal advises a destroy:\n%s", out)
	}
	r.write(moveResource(url, "main", "clusters", files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	if got := gitserver.Head(t, r.repo, "main"); got != head {
		t.Fatalf("lowering the protection wrote to the branch")
	}

	// A move that drops ten of the twelve files on the way is a mass deletion.
	few := map[string]string{"drone/t00/namespace.yaml": files["drone/t00/namespace.yaml"], "drone/t01/namespace.yaml": files["drone/t01/namespace.yaml"]}
	r.write(moveResource(url, "main", "envs/dev", few, "  deletion_protection = false"))
	out = r.expectExit(1, "plan")
	expectOutput(t, "plan of a move that drops files", out, `Error: The move deletes files the new location does not write`,
		`deletes 10 of the 12 files under path "clusters" on branch "main" that the new location does not write again`, `max_delete_percent = 100`, `Nothing was written`)

	// The whole environment moves in one plan and one apply. max_changes = 26 lists all: 12 files and the
	// ownership record on each side.
	r.write(moveResource(url, "main", "envs/dev", files, "  deletion_protection = false\n  max_changes = 26"))
	out = r.expectExit(2, "plan", "-detailed-exitcode", "-out=move.tfplan")
	// The text plan shows both sides with their content, none hidden as unchanged.
	expectOutput(t, "text plan of the move", out, `\+ "clusters/drone/t00/namespace\.yaml" = \{\s+\+ action = "delete"\s+\+ diff\s+= <<-EOT\s+kind: Namespace`,
		`\+ "envs/dev/drone/t00/namespace\.yaml" = \{\s+\+ action = "create"`, `\+ "clusters/\.kalypso-gitops-commit" = \{\s+\+ action = "delete"`,
		`changes_summary\s+= .*"13 to create, 0 to update, 13 to delete"`)
	if strings.Contains(out, "unchanged elements hidden") {
		t.Errorf("the move's text plan hides changes:\n%s", out)
	}
	changes := r.plannedChanges("move.tfplan")
	if len(changes) != 26 {
		t.Errorf("the move lists %d changes, want 26: %v", len(changes), changes)
	}
	for name, content := range files {
		if got := changes["envs/dev/"+name]; got != "create "+content {
			t.Errorf("changes[envs/dev/%s] = %q", name, got)
		}
		if got := changes["clusters/"+name]; got != "delete "+content {
			t.Errorf("changes[clusters/%s] = %q", name, got)
		}
	}
	if got := changes["clusters/.kalypso-gitops-commit"]; !strings.HasPrefix(got, "delete # Written by terraform-provider-kalypso") || !strings.Contains(got, "path: clusters\n") {
		t.Errorf("the old ownership record: %q", got)
	}
	r.must("apply", "move.tfplan")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("envs/dev", files)), 3)
	r.expectExit(0, "plan", "-detailed-exitcode")

	// With max_changes below the count the deletions come first.
	r.write(moveResource(url, "main", "envs/prod", files, "  deletion_protection = false\n  max_changes = 13"))
	r.expectExit(2, "plan", "-detailed-exitcode", "-out=cut.tfplan")
	changes = r.plannedChanges("cut.tfplan")
	for k, v := range changes {
		if !strings.HasPrefix(k, "envs/dev/") || !strings.HasPrefix(v, "delete ") {
			t.Errorf("cut at 13: %s = %q, want only the deletions", k, v)
		}
	}
	if len(changes) != 13 {
		t.Errorf("cut at 13 lists %d", len(changes))
	}
}

// TestAccGitopsCommit_BranchMoveShowsBothSides: a branch move lists the creates on the new branch and the
// deletions on the old one, each with its content and the ownership records, and applies in one apply
// (two commits, the new branch first).
func TestAccGitopsCommit_BranchMoveShowsBothSides(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	files := map[string]string{"drone/README.md": "drone\n", "large/README.md": "large\n"}
	r.write(moveResource(url, "main", "clusters", files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	r.write(moveResource(url, "dev", "clusters", files, "  deletion_protection = false\n  create_branch = true"))
	out := r.expectExit(2, "plan", "-detailed-exitcode", "-out=branch.tfplan")
	expectOutput(t, "text plan of the branch move", out, `\+ "clusters/drone/README\.md" = \{\s+\+ action = "create"\s+\+ diff\s+= <<-EOT\s+drone`,
		`\+ "main:clusters/drone/README\.md" = \{\s+\+ action = "delete"\s+\+ diff\s+= <<-EOT\s+drone`, `changes_summary\s+= .*"3 to create, 0 to update, 3 to delete"`)
	if strings.Contains(out, "unchanged elements hidden") {
		t.Errorf("the branch move's text plan hides changes:\n%s", out)
	}
	changes := r.plannedChanges("branch.tfplan")
	want := map[string]string{
		"clusters/drone/README.md": "create drone\n", "clusters/large/README.md": "create large\n",
		"main:clusters/drone/README.md": "delete drone\n", "main:clusters/large/README.md": "delete large\n",
	}
	for k, v := range want {
		if changes[k] != v {
			t.Errorf("changes[%q] = %q, want %q", k, changes[k], v)
		}
	}
	if !strings.HasPrefix(changes["clusters/.kalypso-gitops-commit"], "create ") || !strings.HasPrefix(changes["main:clusters/.kalypso-gitops-commit"], "delete ") || len(changes) != 6 {
		t.Errorf("ownership records: %v", changes)
	}
	r.must("apply", "branch.tfplan")
	r.expectMain(gitopsOutside, 3)
	r.expectExit(0, "plan", "-detailed-exitcode")
}
