// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"regexp"
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

	// terraform taint: Terraform plans the create without the tainted object, so the create finds the path
	// owned and is refused, with the way out; nothing is written. Untainted, the plan is empty again.
	r.tf.mustRun("taint", "kalypso_gitops_commit.test")
	out = r.expectExit(1, "plan")
	expectOutput(t, "plan after taint", out, `Error: The path is owned by another resource`, `run terraform untaint and replace it with terraform apply -replace`)
	r.tf.mustRun("untaint", "kalypso_gitops_commit.test")
	unchanged3 := func(when string) {
		t.Helper()
		if got := gitserver.Head(t, r.repo, "main"); got != head {
			t.Fatalf("%s: branch main moved", when)
		}
		r.expectMain(delivered, 3)
	}
	unchanged3("after taint and untaint")
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

// TestAccGitopsCommit_OwnershipAcrossStates (issue 36 item 4, issue 29 item 1): two configurations with
// two states on one repository, branch and path. The second is refused at plan, naming the first one's
// ownership record (repository, branch, path, the commit that wrote it and when), and writes nothing;
// adopt = true shows the takeover and applies it, after which the first is refused the same way. A move
// onto another resource's exact path is refused too. Before, the second plan silently planned to delete
// the first one's files.
func TestAccGitopsCommit_OwnershipAcrossStates(t *testing.T) {
	t.Parallel()
	a := newLifecycleRig(t, gitopsOutside)
	url := "file://" + a.repo
	first := map[string]string{"drone/README.md": "first\n"}
	a.write(lifecycleResource(url, first, "  deletion_protection = false"))
	a.must("apply", "-auto-approve")
	claimA := gitserver.Head(t, a.repo, "main")

	b := &lifecycleRig{t: t, work: t.TempDir(), root: a.root, repo: a.repo}
	b.tf = newTerraformCLI(t, b.work)
	second := map[string]string{"large/README.md": "second\n"}
	b.write(lifecycleResource(url, second, "  deletion_protection = false"))
	refs := gitopsRefs(t, a.repo)
	out := b.expectExit(1, "plan")
	expectOutput(t, "plan of a second state on an owned path", out, `Error: The path is owned by another resource`,
		`path "clusters" on branch "main" of `+regexp.QuoteMeta(url)+` is owned by another kalypso_gitops_commit: its ownership record clusters/\.kalypso-gitops-commit was written by commit `+claimA+` of 20\d\d-`,
		`Nothing was written`, `set adopt = true`, `terraform import`)
	if got := gitopsRefs(t, a.repo); got != refs {
		t.Fatalf("a refused plan wrote to the repository")
	}

	// adopt = true: the plan shows the takeover, the apply rewrites the record.
	b.write(lifecycleResource(url, second, "  deletion_protection = false\n  adopt = true"))
	out = b.expectExit(2, "plan", "-detailed-exitcode", "-out=adopt.tfplan")
	expectOutput(t, "plan with adopt = true", out, `Warning: The resource takes the path over`, `adopted_from: `+claimA, `adopted_from\s+= "`+claimA+`"`)
	changes := b.plannedChanges("adopt.tfplan")
	if got := changes["clusters/.kalypso-gitops-commit"]; !strings.HasPrefix(got, "update") || !strings.Contains(got, "+adopted_from: "+claimA) {
		t.Errorf("the record's rewrite: %q", got)
	}
	if changes["clusters/drone/README.md"] != "delete first\n" || changes["clusters/large/README.md"] != "create second\n" {
		t.Errorf("adoption changes: %v", changes)
	}
	b.must("apply", "adopt.tfplan")
	claimB := gitserver.Head(t, a.repo, "main")
	files := gitserver.Files(t, a.repo, "main")
	if rec := files["clusters/.kalypso-gitops-commit"]; !strings.HasSuffix(rec, "path: clusters\nadopted_from: "+claimA+"\n") || files["clusters/large/README.md"] != "second\n" || files["clusters/drone/README.md"] != "" {
		t.Errorf("after the takeover: %v", files)
	}
	b.expectExit(0, "plan", "-detailed-exitcode")

	// The first state is now refused, naming the takeover.
	refs = gitopsRefs(t, a.repo)
	out = a.expectExit(1, "plan")
	expectOutput(t, "plan of the first state after the takeover", out, `Error: The path is owned by another resource`,
		`written by commit `+claimB, `which took the path over from the record of commit `+claimA, `Nothing was written`)
	if got := gitopsRefs(t, a.repo); got != refs {
		t.Errorf("the first state's refused plan wrote to the repository")
	}

	// A move onto another resource's exact path is refused the same way.
	a.write(strings.Replace(lifecycleResource(url, first, "  deletion_protection = false"), `path = "clusters"`, `path = "envs/dev"`, 1))
	a.tf.mustRun("state", "rm", "kalypso_gitops_commit.test")
	a.must("apply", "-auto-approve")
	refs = gitopsRefs(t, a.repo)
	a.write(lifecycleResource(url, first, "  deletion_protection = false"))
	out = a.expectExit(1, "plan")
	expectOutput(t, "plan of a move onto an owned path", out, `Error: The path is owned by another resource`, `written by commit `+claimB)
	if got := gitopsRefs(t, a.repo); got != refs {
		t.Errorf("refused plans wrote to the repository")
	}
}
