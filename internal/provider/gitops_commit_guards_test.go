// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"reflect"
	"regexp"
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

// These acceptance tests cover render mode and the plan-time guards of kalypso_gitops_commit. Each
// asserts the repository afterwards: what the plan showed is what reached the branch, and a refused
// plan left it untouched.

// gitopsRefs lists every ref of a bare repository with its commit, to prove nothing was written.
func gitopsRefs(t *testing.T, repo string) string {
	t.Helper()
	return gitserver.Git(t, "", nil, "--git-dir", repo, "for-each-ref", "--format=%(refname) %(objectname)")
}

func gitopsChange(action, diffPattern string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"action": knownvalue.StringExact(action),
		"diff":   knownvalue.StringRegexp(regexp.MustCompile(diffPattern)),
	})
}

// TestAccGitopsCommit_RenderMode delivers the upstream tutorial's dev environment in render mode onto a
// branch that already holds a stale file under path: the plan lists every file (the deletion too), the
// branch then holds exactly upstream's expected tree, a hand edit shows as an update with a unified diff,
// and a mistyped environment trips the mass-deletion guard without writing anything.
func TestAccGitopsCommit_RenderMode(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", fixtures.Merge(gitopsOutside, map[string]string{"clusters/old/stale.yaml": "kind: ConfigMap\n"}))
	manifests := hclManifestList(t, c)
	cfg := func(env, extra string) string {
		return fmt.Sprintf(`
resource "kalypso_gitops_commit" "test" {
  repository_url      = %s
  deletion_protection = false # the test framework destroys what the test created
  branch             = "main"
  path               = "clusters"
  promoted_commit_id = %q
  render = {
    environment = %q
    manifests   = %s
  }
%s
}
`, gitopsHCL("file://"+repo), c.PromotedCommit, env, manifests, extra)
	}
	delivered := fixtures.Merge(gitopsOutside, gitopsManaged("clusters", c.Expected), map[string]string{".github/tracking/Promoted_Commit_Id": c.PromotedCommit})
	readme := strings.SplitN(c.Expected["drone/README.md"], "\n", 2)[0]
	var headAfterRepair string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{ // create: the plan shows the existing file's deletion and every created file
				Config: cfg(c.Environment, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes").AtMapKey("clusters/old/stale.yaml"), gitopsChange("delete", `^kind: ConfigMap\n$`)),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes_counts"), knownvalue.ObjectExact(map[string]knownvalue.Check{
							"create": knownvalue.StringExact(fmt.Sprint(len(c.Expected) + 2)), "update": knownvalue.StringExact("0"), "delete": knownvalue.StringExact("1"),
						})),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes").AtMapKey("clusters/drone/README.md"), gitopsChange("create", "^"+regexp.QuoteMeta(readme))),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes").AtMapKey(".github/tracking/Promoted_Commit_Id"), gitopsChange("create", "^"+c.PromotedCommit+"$")),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes_summary"), knownvalue.StringExact(fmt.Sprintf("%d to create, 0 to update, 1 to delete", len(c.Expected)+2))),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes_by_directory").AtMapKey("old"), knownvalue.StringExact("0 to create, 0 to update, 1 to delete")),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("render_summary").AtMapKey("assignments_by_cluster_type"), knownvalue.MapExact(map[string]knownvalue.Check{
							"command-center": knownvalue.StringExact("0"), "drone": knownvalue.StringExact("1"), "large": knownvalue.StringExact("2"), "small": knownvalue.StringExact("0"),
						})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("render_summary").AtMapKey("assignments"), knownvalue.StringExact("3")),
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", delivered, 2),
				},
			},
			{ // a hand edit under path is drift: the plan shows it as an update with a unified diff, the apply repairs it
				PreConfig: func() {
					gitserver.Commit(t, repo, "main", "hand edit", map[string]string{"clusters/drone/README.md": "edited by hand\n"}, nil)
				},
				Config: cfg(c.Environment, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes"), knownvalue.MapExact(map[string]knownvalue.Check{
							"clusters/drone/README.md": gitopsChange("update", `(?s)^--- a/clusters/drone/README.md\n\+\+\+ b/clusters/drone/README.md\n@@ .*\n-edited by hand\n\+`+regexp.QuoteMeta(readme)),
						})),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes_summary"), knownvalue.StringExact("0 to create, 1 to update, 0 to delete")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", delivered, 4),
					gitopsRepoCheck(func() error { headAfterRepair = gitserver.Head(t, repo, "main"); return nil }),
				},
			},
			{ // a mistyped environment renders nothing: the guard refuses at plan time
				Config:      cfg("Dev", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(spaceTolerant(`(?s)deletes 9 of the 13 files under the path.*environment name.*max_delete_percent = 100`)),
			},
			{ // nothing was written by the refused plan
				PreConfig: func() {
					if head := gitserver.Head(t, repo, "main"); head != headAfterRepair {
						t.Errorf("the refused plan moved the branch")
					}
				},
				Config:   cfg(c.Environment, ""),
				PlanOnly: true,
			},
		},
	})
}

// TestAccGitopsCommit_BranchGuards: a mistyped branch is an error listing the branches, create_branch
// creates it, and invalid ref names are refused at plan time without touching the repository.
func TestAccGitopsCommit_BranchGuards(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	gitserver.Git(t, "", nil, "--git-dir", repo, "branch", "dev", "main")
	srv := gitserver.Start(t, root, gitserver.Options{})
	files := map[string]string{"drone/README.md": "drone"}
	cfg := func(branch, extra string) string {
		return gitopsCfg{URL: srv.RepoURL("fleet.git"), Branch: branch, Path: "clusters", Files: files, Extra: extra}.String()
	}
	refs := gitopsRefs(t, repo)
	unchanged := func() {
		if got := gitopsRefs(t, repo); got != refs {
			t.Errorf("the repository changed:\n got %s\nwant %s", got, refs)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("devv", ""), ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Git branch does not exist.*branch "devv" does not exist \(the branches are "dev", "main"\).*create_branch = true`))},
			{PreConfig: unchanged, Config: cfg("a b", ""), PlanOnly: true, ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Invalid branch.*contains a space`))},
			{PreConfig: unchanged, Config: cfg("dev.lock", ""), PlanOnly: true, ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Invalid branch.*ending with ".lock"`))},
			{PreConfig: unchanged, Config: cfg("main", `  pull_request = { head_branch = "kalypso/..x" }`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid head_branch`)},
			{
				PreConfig: unchanged,
				Config:    cfg("devv", "  create_branch = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("changes").AtMapKey("clusters/drone/README.md"), gitopsChange("create", "^drone$"))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					// A created branch holds only what the resource writes: what the plan showed, whatever main does meanwhile.
					gitopsExpectRepo(t, repo, "devv", gitopsManaged("clusters", files), 1),
					gitopsExpectRepo(t, repo, "main", gitopsOutside, 1),
				},
			},
		},
	})
}

// TestAccGitopsCommit_OverlappingPaths: a resource whose path lies inside (or contains) another
// resource's path on the same branch is refused at plan time, naming the other path.
func TestAccGitopsCommit_OverlappingPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"README.md": "# fleet\n"})
	url := gitopsHCL("file://" + repo)
	whole := fmt.Sprintf(`
resource "kalypso_gitops_commit" "whole" {
  repository_url = %s
  deletion_protection = false # the test framework destroys what the test created
  branch         = "main"
  path           = "."
  files          = { "drone/README.md" = "drone", "README.md" = "# fleet\n" }
}
`, url)
	large := fmt.Sprintf(`
resource "kalypso_gitops_commit" "large" {
  repository_url = %s
  deletion_protection = false # the test framework destroys what the test created
  branch         = "main"
  path           = "large"
  files          = { "README.md" = "large" }
}
`, url)
	var refs string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: whole,
				ConfigStateChecks: []statecheck.StateCheck{gitopsRepoCheck(func() error {
					refs = gitopsRefs(t, repo)
					return nil
				})},
			},
			// Terraform plans the two concurrently: whichever is planned second is refused, by the ownership
			// record "whole" left on the branch or by this plan's own claims (delivery.Locations).
			{Config: whole + large, ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Overlapping paths on one branch.*(path "large" overlaps the path "." of another kalypso_gitops_commit|deliver to overlapping paths of branch "main")`))},
			{
				PreConfig: func() {
					if got := gitopsRefs(t, repo); got != refs {
						t.Errorf("the refused plan changed the repository")
					}
				},
				Config: whole,
				ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, repo, "main",
					map[string]string{"README.md": "# fleet\n", "drone/README.md": "drone", ".kalypso-gitops-commit": gitopsManaged(".", nil)["./.kalypso-gitops-commit"]}, 2)},
			},
		},
	})
	// The other way round: a resource at the root of a branch where "large" is owned.
	repo2 := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "# fleet\n"})
	url = gitopsHCL("file://" + repo2)
	large = strings.Replace(large, gitopsHCL("file://"+repo), url, 1)
	whole = strings.Replace(whole, gitopsHCL("file://"+repo), url, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: large},
			{Config: large + whole, ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Overlapping paths on one branch.*(path "." overlaps the path "large"|deliver to overlapping paths of branch "main")`))},
		},
	})
}

// TestAccGitopsCommit_PullRequestModeNeedsGitHub: a file:// URL in PR mode is refused at plan time.
func TestAccGitopsCommit_PullRequestModeNeedsGitHub(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	refs := gitopsRefs(t, repo)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "clusters", Files: map[string]string{"a.yaml": "a"}, Extra: "  pull_request = {}"}.String(),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Pull-request mode needs a GitHub repository URL`),
		}},
	})
	if got := gitopsRefs(t, repo); got != refs {
		t.Errorf("the refused plan changed the repository")
	}
}

// TestAccGitopsCommit_InvalidFiles: plan-time diagnostics for files, promoted_commit_id and the ssh
// fingerprint, each at its attribute.
func TestAccGitopsCommit_InvalidFiles(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	base := func(files, extra string) string {
		return fmt.Sprintf(`
resource "kalypso_gitops_commit" "test" {
  repository_url = %s
  deletion_protection = false # the test framework destroys what the test created
  branch         = "main"
  files          = %s
%s
}
`, gitopsHCL("file://"+repo), files, extra)
	}
	cases := []struct{ cfg, want string }{
		{base(`{ "a.yaml" = null }`, ""), `(?s)Null file content.*"a.yaml" = null.*file "a.yaml" has null content`},
		{base(`{ "large" = "x", "large/README.md" = "y" }`, ""), `(?s)File and directory of the same name.*"large" is a file, but "large/README.md"`},
		{base(`{ "a.yaml" = "a" }`, `  promoted_commit_id = ""`), `(?s)Invalid promoted_commit_id.*not a full commit id`},
		{base(`{ "a.yaml" = "a" }`, `  promoted_commit_id = "abc123"`), `(?s)Invalid promoted_commit_id`},
		{base(`{ "a.yaml" = "a" }`, `  ssh_host_key_fingerprint = "MD5:aa:bb"`), `(?s)ssh_host_key_fingerprint.*SHA256:`},
		{base(`{ "a.yaml" = "a" }`, `  render = { environment = "dev", manifests = [] }`), `(?s)Invalid Attribute Combination`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: c.cfg, PlanOnly: true, ExpectError: regexp.MustCompile(c.want)})
	}
	before := gitserver.Files(t, repo, "main")
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	if after := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(before, after) {
		t.Errorf("an invalid configuration changed the repository")
	}
}

// TestAccGitopsCommit_MassDeletionCountsFromTheLargestTree: 20 files, then 10, then 5 passed the guard
// step by step (each under half of what the branch held), so it never stopped an environment from being
// emptied in a few applies. Counted from the largest tree delivered (deletion_reference, a string in
// state), the step to 5 is refused and nothing is written; max_delete_percent = 100 lets it through and
// makes 5 the new reference.
func TestAccGitopsCommit_MassDeletionCountsFromTheLargestTree(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	files := func(n int) map[string]string {
		out := map[string]string{}
		for i := range n {
			out[fmt.Sprintf("drone/t%02d.yaml", i)] = fmt.Sprintf("n: %d\n", i)
		}
		return out
	}
	cfg := func(n int, extra string) string {
		return gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "clusters", Files: files(n), Extra: extra}.String()
	}
	reference := func(want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("deletion_reference"), knownvalue.StringExact(want))
	}
	var before string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(20, ""), ConfigStateChecks: []statecheck.StateCheck{reference("20")}},
			{Config: cfg(10, ""), ConfigStateChecks: []statecheck.StateCheck{reference("20")},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				PreConfig:   func() { before = gitopsRefs(t, repo) },
				Config:      cfg(5, ""),
				ExpectError: regexp.MustCompile(`(?s)The change deletes most files under path.*leaves 5 of the 20 files this resource has delivered.*75% gone.*Nothing was written`),
			},
			{
				PreConfig: func() {
					if got := gitopsRefs(t, repo); got != before {
						t.Errorf("the refused plan wrote:\n%s", got)
					}
				},
				Config:            cfg(5, "  max_delete_percent = 100\n"),
				ConfigStateChecks: []statecheck.StateCheck{reference("5"), gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files(5))), 4)},
				ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{Config: cfg(4, ""), ConfigStateChecks: []statecheck.StateCheck{reference("5")}},
		},
	})
}
