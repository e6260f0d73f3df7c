// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_SmallInputGuards (issue 24 item 8): branch names git would read as something else,
// a fractional max_changes or max_delete_percent, import IDs with a line break, a literal %2e%2e or a file
// as the path, and [null] manifests for the function, each a clear plan-time error; nothing is written.
func TestAccGitopsCommit_SmallInputGuards(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	refs := gitopsRefs(t, repo)
	cfg := func(branch, extra string) string {
		return gitopsCfg{URL: "file://" + repo, Branch: branch, Path: "clusters", Files: map[string]string{"a/x.yaml": "x"}, Extra: extra}.String()
	}
	importStep := func(id string, patterns ...string) resource.TestStep {
		s := expectPlanError(cfg("main", ""), patterns...)
		s.PlanOnly, s.ResourceName, s.ImportState, s.ImportStateId = false, "kalypso_gitops_commit.test", true, id
		return s
	}
	url := "file://" + repo
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(cfg("HEAD", ""), "Error: Invalid branch", `"HEAD" is a Git pseudo-ref, not a branch; name the branch itself, such as "main"`),
			expectPlanError(cfg("FETCH_HEAD", ""), "Error: Invalid branch", `"FETCH_HEAD" is a Git pseudo-ref`),
			expectPlanError(cfg("refs/heads/main", ""), "Error: Invalid branch", `"refs/heads/main" is a full ref name; give the branch name without refs/heads/, such as "main"`),
			expectPlanError(cfg("origin/dev", ""), "Error: Invalid branch", `"origin/dev" names a remote-tracking branch; give the branch name as the repository has it, such as "dev"`),
			expectPlanError(cfg("main", "  pull_request = { head_branch = \"refs/heads/x\" }\n"), "Error: Invalid head_branch", `"refs/heads/x" is a full ref name`),
			expectPlanError(cfg("main", "  max_changes = 1.5\n"), "Error: Invalid number", `max_changes is "1.5"; it must be a whole number between 1 and 100000.`),
			expectPlanError(cfg("main", "  max_delete_percent = 50.5\n"), "Error: Invalid number", `max_delete_percent is "50.5"; it must be a whole number between 0 and 100.`),
			expectPlanError(cfg("main", "  max_delete_percent = 101\n"), "Error: Invalid number", `max_delete_percent is "101"; it must be a whole number between 0 and 100.`),
			importStep(url+"//clusters\n?ref=main", "Error: Invalid import ID", `contains a control character (a line break?); write it on one line`),
			importStep(url+"//%2e%2e?ref=main", "Error: Invalid import ID", `the path "%2e%2e" contains %: the ID is not URL-decoded`),
			importStep(url+"//clusters?ref=refs/heads/main", "Error: Invalid import ID", `is a full ref name`),
			importStep(url+"//README.md?ref=main", "Error: Path is a file", `"README.md" is a file on branch "main", so path "README.md" is not a directory`),
			{
				Config:   fmt.Sprintf("output \"x\" {\n  value = provider::kalypso::environment_render(\"dev\", [%s, null]).content_hash\n}\n", hclString(badInputBase)),
				PlanOnly: true, ExpectError: regexp.MustCompile(spaceTolerant(regexp.QuoteMeta(`Null element: manifests[1] is null. Remove the element or give it a value`))),
			},
		},
	})
	if got := gitopsRefs(t, repo); got != refs {
		t.Errorf("a refused plan changed the repository")
	}
}
