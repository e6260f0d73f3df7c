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
