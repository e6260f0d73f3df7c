// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_CommitHeaderInjection: an author name with a line break (which would write a forged
// parent and committer line into the commit object), an email with '>' or '<', and NUL in the name or
// the commit message are plan-time errors naming the attribute, for the resource's author and the
// provider's; the repository is untouched.
func TestAccGitopsCommit_CommitHeaderInjection(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	refs := gitopsRefs(t, repo)
	cfg := func(provider, extra string) string {
		return gitopsCfg{Provider: provider, URL: "file://" + repo, Branch: "main", Path: "clusters", Files: map[string]string{"a.yaml": "a"}, Extra: extra}.String()
	}
	forged := `Bot\nparent 0000000000000000000000000000000000000000\ncommitter Mallory <m@evil.example> 0 +0000`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(cfg("", `  author = { name = "`+forged+`", email = "bot@example.com" }`),
				"Error: Invalid commit author", "author.name: the author name contains a line break, which would start a forged line in the commit header",
				"remove the character"),
			expectPlanError(cfg("", `  author = { name = "Bot", email = "bot@example.com> 0 +0000\ncommitter x <x" }`),
				"Error: Invalid commit author", "author.email: the author email contains a line break"),
			expectPlanError(cfg("", `  author = { name = "Bot", email = "a>b@example.com" }`),
				"Error: Invalid commit author", `author.email: the author email contains '<' or '>', which delimit the email in the commit header ("a>b@example.com")`),
			expectPlanError(cfg("", `  author = { name = "Bot <x", email = "bot@example.com" }`),
				"Error: Invalid commit author", `author.name: the author name contains '<' or '>'`),
			expectPlanError(cfg("", `  author = { name = "Bot\u0000", email = "bot@example.com" }`),
				"Error: Invalid commit author", `author.name: the author name contains a NUL character`),
			expectPlanError(cfg("", `  commit_message = "release\u0000notes"`),
				"Error: Invalid commit message", `commit_message = "release\u0000notes"`, "the commit message contains a NUL character, which git fsck rejects (nulInCommit). Remove the NUL character."),
			expectPlanError(cfg(`  author = { name = "Bot\nparent 0000000000000000000000000000000000000000", email = "bot@example.com" }`, ""),
				"Error: Invalid commit author", "author.name: the author name contains a line break"),
			expectPlanError(cfg(`  author = { name = "Bot", email = "<bot@example.com>" }`, ""),
				"Error: Invalid commit author", "author.email: the author email contains '<' or '>'"),
		},
	})
	if got := gitopsRefs(t, repo); got != refs {
		t.Errorf("a refused plan changed the repository:\n%s\nwant\n%s", got, refs)
	}
}

// TestAccGitopsCommit_GitPathRules: file names and a path that Git on Windows or macOS reads as .git (the
// trailing-dot, 8.3 and HFS+-ignorable spellings), a .gitmodules with a hostile URL, names that differ only
// in case, and a copy of another resource's ownership record are plan-time errors at files["name"] or
// path; the repository is untouched.
func TestAccGitopsCommit_GitPathRules(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	refs := gitopsRefs(t, repo)
	cfg := func(path string, files map[string]string) string {
		return gitopsCfg{URL: "file://" + repo, Branch: "main", Path: path, Files: files}.String()
	}
	one := func(name string) map[string]string { return map[string]string{name: "x", "ok/a.yaml": "a"} }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(cfg("clusters", one("x/.git./config")), "Error: Invalid file name", `"x/.git./config" = "x"`,
				`file name "x/.git./config": has a segment ".git." that Git on Windows or macOS reads as .git (git fsck: hasDotgit)`),
			expectPlanError(cfg("clusters", one("x/git~1/config")), "Error: Invalid file name", `"x/git~1/config" = "x"`, `has a segment "git~1" that Git on Windows or macOS reads as .git`),
			expectPlanError(cfg("clusters", one("x/.g\u200cit/config")), "Error: Invalid file name", `reads as .git (git fsck: hasDotgit)`),
			expectPlanError(cfg("clusters", map[string]string{"x/.gitmodules": "[submodule \"x\"]\n\tpath = x\n\turl = -u./payload\n"}), "Error: Invalid file name",
				`has a segment ".gitmodules" that Git reads as .gitmodules; a GitOps tree has no submodules`),
			expectPlanError(cfg("clusters/.GIT./x", one("a")), "Error: Invalid path", `has a segment ".GIT." that Git on Windows or macOS reads as .git`),
			expectPlanError(cfg("clusters", map[string]string{"drone/a.yaml": "a", "Drone/b.yaml": "b"}), "Error: File names that differ only in case",
				`"Drone" and "drone" differ only in letter case. Windows and macOS checkouts cannot hold both`),
			expectPlanError(cfg("clusters", one("b/.kalypso-gitops-commit")), "Error: Invalid file name",
				`"b/.kalypso-gitops-commit" is named like the ownership record (.kalypso-gitops-commit) that marks another kalypso_gitops_commit's path`),
		},
	})
	if got := gitopsRefs(t, repo); got != refs {
		t.Errorf("a refused plan changed the repository:\n%s\nwant\n%s", got, refs)
	}
}

// TestAccGitopsCommit_SubmoduleUnderPath: a submodule entry (a gitlink to a commit of another repository)
// under path failed every plan with "reading blob …: object not found" since a delete's diff holds the
// removed content. It plans as before: a delete whose diff is "Subproject commit <id>", then one commit
// that removes it, and an empty re-plan.
func TestAccGitopsCommit_SubmoduleUnderPath(t *testing.T) {
	t.Parallel()
	files := map[string]string{"drone/README.md": "drone"}
	// The files an earlier delivery left, without its ownership record: a record would be another
	// resource's to this new one (TestAccGitopsCommit_OwnershipAcrossStates).
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", fixtures.Merge(gitopsOutside, fixtures.Prefixed("clusters/", files)))
	const foreign = "0123456789abcdef0123456789abcdef01234567"
	gitserver.Git(t, "", []byte(fmt.Sprintf("commit refs/heads/main\ncommitter Other <o@example.com> 1700000000 +0000\ndata 4\nsub\nfrom %s\nM 160000 %s clusters/vendor/lib\n",
		gitserver.Head(t, repo, "main"), foreign)), "--git-dir", repo, "fast-import", "--quiet")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "clusters", Files: files}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes").AtMapKey("clusters/vendor/lib"), gitopsChange("delete", "^Subproject commit "+foreign+"\n$")),
					plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes_summary"), knownvalue.StringExact("1 to create, 0 to update, 1 to delete")),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 3),
				gitopsRepoCheck(func() error {
					if out := gitserver.Git(t, "", nil, "--git-dir", repo, "ls-tree", "-r", "main", "clusters/vendor"); strings.TrimSpace(out) != "" {
						return fmt.Errorf("the gitlink is still on the branch: %q", out)
					}
					return nil
				}),
			},
		}},
	})
}

// TestAccGitopsCommit_CaseFoldedPaths: `Clusters` and `clusters` as two resources of one branch were both
// applied, though a case-insensitive checkout holds one directory for both. Both are refused at plan, as
// is one resource whose path differs only in case from a directory another state wrote on the branch.
// Nothing is written.
func TestAccGitopsCommit_CaseFoldedPaths(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", fixtures.Merge(gitopsOutside, gitopsManaged("Envs", map[string]string{"dev/a.yaml": "a"})))
	refs := gitopsRefs(t, repo)
	two := func(a, b string) string {
		return gitopsCfg{URL: "file://" + repo, Branch: "main", Path: a, Files: map[string]string{"a.yaml": "a"}}.String() +
			strings.Replace(gitopsCfg{URL: "file://" + repo, Branch: "main", Path: b, Files: map[string]string{"b.yaml": "b"}}.String()[len("provider \"kalypso\" {\n\n}\n\n"):], `"test"`, `"other"`, 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(two("Clusters", "clusters"), "Error: Overlapping paths on one branch", `deliver to paths of branch "main" that differ only in letter case`),
			expectPlanError(gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "envs/dev", Files: map[string]string{"a.yaml": "a"}}.String(),
				"Error: Paths that differ only in letter case", `path "envs/dev" and "Envs" on branch "main" differ only in letter case`, `Nothing was written`),
		},
	})
	if got := gitopsRefs(t, repo); got != refs {
		t.Errorf("a refused plan changed the repository:\n%s\nwant\n%s", got, refs)
	}
}

// TestAccGitopsCommit_RenameByLetterCase: a move from `Fleet` to `fleet` on one branch is a rename in
// one commit (the old spelling is emptied by it), not a collision: the branch then holds only the new one.
func TestAccGitopsCommit_RenameByLetterCase(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	files := map[string]string{"drone/a.yaml": "a"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "Fleet", Files: files}.String()},
			{
				Config:            gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "fleet", Files: files}.String(),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("fleet", files)), 3)},
			},
		},
	})
}
