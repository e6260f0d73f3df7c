// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
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
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// TestAccGitopsCommit_HeadBranchIsOurs_MockGitHubAPI (GitHub's REST API is a mock; Git is a real bare
// repository): in pull-request mode the head branch may be neither the base branch, nor the repository's
// default branch (a hotfix there would be dropped), nor a branch whose head commit the provider did not
// write; each is a plan-time error at pull_request.head_branch and no ref moves. The provider's own head
// branch carries the Kalypso-Head-Branch trailer, and a reviewer's commit pushed on top of it stops the
// next plan instead of being overwritten.
func TestAccGitopsCommit_HeadBranchIsOurs_MockGitHubAPI(t *testing.T) {
	const token = "ghp_HEADbranchSECRET0123456789ab"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	hotfix := gitserver.Commit(t, repo, "main", "hotfix", map[string]string{"hotfix.txt": "urgent"}, nil)
	gitserver.Commit(t, repo, "dev", "dev", gitopsOutside, nil)
	feature := gitserver.Commit(t, repo, "feature", "someone's work", map[string]string{"feature.txt": "theirs"}, nil)
	gh := mockgithub.Start(t, token)
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GIT_TOKEN", token)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1
	t.Setenv("GITHUB_TOKEN", "")
	provider := fmt.Sprintf("github_base_url = %s\n  git_url_rewrites = { %s = %s }", gitopsHCL(gh.BaseURL()), gitopsHCL("https://github.com/org/"), gitopsHCL("file://"+root+"/"))
	cfg := func(head string, files map[string]string) string {
		pr := "  pull_request = {}\n"
		if head != "" {
			pr = fmt.Sprintf("  pull_request = { head_branch = %q }\n", head)
		}
		return gitopsCfg{Provider: provider, URL: "https://github.com/org/fleet.git", Branch: "dev", Path: "clusters", Files: files, Extra: pr}.String()
	}
	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2"}
	refs := gitopsRefs(t, repo)
	unchanged := func() {
		if got := gitopsRefs(t, repo); got != refs {
			t.Fatalf("a refused plan moved a ref:\n%s\nwant\n%s", got, refs)
		}
	}
	var reviewer string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			expectPlanError(cfg("dev", v1), "Error: Head branch not allowed", `the head branch "dev" is the base branch`, "Set pull_request.head_branch", "Nothing was written."),
			expectPlanError(cfg("main", v1), "Error: Head branch not allowed", `the head branch "main" is the repository's default branch`,
				`which would drop the commits on "main"`, "Nothing was written."),
			expectPlanError(cfg("feature", v1), "Error: Head branch not allowed",
				fmt.Sprintf(`branch "feature" exists and its head commit %s was not written by this resource (its message has no "Kalypso-Head-Branch: feature" line)`, feature[:12]),
				"Set pull_request.head_branch to a branch that does not exist yet", "Nothing was written."),
			{
				PreConfig: unchanged,
				Config:    cfg("", v1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("1")),
					gitopsExpectRepo(t, repo, "kalypso/dev", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
					gitopsRepoCheck(func() error {
						msg := gitserver.Git(t, "", nil, "--git-dir", repo, "log", "-1", "--format=%B", "kalypso/dev")
						if !regexp.MustCompile(`\n\nKalypso-Head-Branch: kalypso/dev$`).MatchString(msg) {
							return fmt.Errorf("the head-branch commit has no marker trailer: %q", msg)
						}
						if gitserver.Head(t, repo, "main") != hotfix || gitserver.Head(t, repo, "feature") != feature {
							return fmt.Errorf("PR mode moved another branch")
						}
						return nil
					}),
				},
			},
			{ // a reviewer pushes a fix onto the proposal: the next change stops at plan instead of dropping it
				PreConfig: func() {
					reviewer = gitserver.Commit(t, repo, "kalypso/dev", "review fix", map[string]string{"clusters/drone/fix.yaml": "fix"}, nil)
				},
				Config:      cfg("", v2),
				ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Error: Head branch not allowed.*branch "kalypso/dev" exists and its head commit [0-9a-f]{12} was not written by this resource`)),
			},
		},
	})
	if got := gitserver.Head(t, repo, "kalypso/dev"); got != reviewer {
		t.Errorf("kalypso/dev is at %s, want the reviewer's commit %s", got, reviewer)
	}
	if gitserver.Head(t, repo, "main") != hotfix || gitserver.Head(t, repo, "feature") != feature {
		t.Errorf("PR mode moved another branch")
	}
	gitopsScanForSecrets(t, work, logPath, []string{"github request"}, token)
}

// TestAccGitopsCommit_MoveInPullRequestMode_MockGitHubAPI (GitHub's REST API is a mock; Git is a real
// bare repository): a change of path in pull-request mode proposes both sides in one commit on the head
// branch, built on the base branch, in one pull request that says it is a move; the base branch is
// untouched and the re-plan is empty.
func TestAccGitopsCommit_MoveInPullRequestMode_MockGitHubAPI(t *testing.T) {
	const token = "ghp_MOVEinPRmode0123456789abcdefg"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	gh := mockgithub.Start(t, token)
	t.Setenv("GIT_TOKEN", token)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1
	t.Setenv("GITHUB_TOKEN", "")
	provider := fmt.Sprintf("github_base_url = %s\n  git_url_rewrites = { %s = %s }", gitopsHCL(gh.BaseURL()), gitopsHCL("https://github.com/org/"), gitopsHCL("file://"+root+"/"))
	files := map[string]string{"drone/README.md": "drone", "large/README.md": "large"}
	cfg := func(dir string) string {
		return gitopsCfg{Provider: provider, URL: "https://github.com/org/fleet.git", Branch: "main", Path: dir, Files: files, Extra: "  pull_request = {}\n"}.String()
	}
	var merged string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("clusters"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("1")),
			}},
			{
				PreConfig: func() { // the proposal is merged
					merged = gitserver.Head(t, repo, "kalypso/main")
					gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", merged)
					gh.SetState("org/fleet", 1, true)
				},
				Config:           cfg("envs/dev"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("2")),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2),
					gitopsExpectRepo(t, repo, "kalypso/main", fixtures.Merge(gitopsOutside, gitopsManaged("envs/dev", files)), 3),
					gitopsRepoCheck(func() error {
						if parent := strings.TrimSpace(gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "kalypso/main~1")); parent != merged {
							return fmt.Errorf("the proposal is not one commit on the base: kalypso/main~1 is %s, main is %s", parent, merged)
						}
						prs := gh.PRs("org/fleet")
						if len(prs) != 2 || prs[1].State != "open" || prs[1].Title != "Kalypso: move clusters to envs/dev on main (4 files)" ||
							!strings.Contains(prs[1].Body, "removes 2 files from the old one") {
							return fmt.Errorf("pull requests %+v", prs)
						}
						return nil
					}),
				},
			},
		},
	})
}
