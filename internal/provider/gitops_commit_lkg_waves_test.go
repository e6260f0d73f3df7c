// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// managedTreeAt is the Git tree id of the managed files under dir at commit of repo: the path's tree
// without the dot-entries at its root (the ownership record), as content_hash and last_known_good.tree
// name it.
func managedTreeAt(t *testing.T, repo, commit, dir string) string {
	t.Helper()
	var managed []string
	for _, line := range strings.Split(strings.TrimSpace(gitserver.Git(t, repo, nil, "ls-tree", commit+":"+dir)), "\n") {
		if _, name, _ := strings.Cut(line, "\t"); !strings.HasPrefix(name, ".") {
			managed = append(managed, line)
		}
	}
	return strings.TrimSpace(gitserver.Git(t, repo, []byte(strings.Join(managed, "\n")+"\n"), "mktree"))
}

// lkgWavesConfig delivers version to drone (wave canary) and large (wave rest), with on_failure = "rollback".
func lkgWavesConfig(gh *mockgithub.Server, gitops, version string) string {
	return rolloutResource(gh, gitops, strings.Repeat("1", 40), fmt.Sprintf(`  files = %s
  rollout = {
    waves           = [{ name = "canary", cluster_types = ["drone"] }, { name = "rest" }]
    expected        = { clusters = { drone = ["d0000001"], large = ["e0000001"] } }
    github_statuses = { repository = "org/gitops" }
    on_failure      = "rollback"
  }
`, hclMap(map[string]string{"drone/app.yaml": "version: " + version + "\n", "large/app.yaml": "version: " + version + "\n"})))
}

// last_known_good per wave, through the terraform CLI against a real bare repository and the GitHub REST
// mock: version 2 reaches the canary (c3) and then the rest (c4), whose cluster fails there. The plan
// knows each wave's last known good (canary c4, rest c3) and the environment's (c3), and, with
// on_failure = "rollback", restores the environment's: large goes back to version 1, drone keeps version 2,
// and `git diff c3 dev -- clusters` is empty. The plan right after that apply is empty (held), and
// version 3 releases the hold, starting again at the canary.
func TestAccGitopsCommit_lastKnownGoodPerWave_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	gitops, _, _ := rolloutRepo(t)
	gh := mockgithub.Start(t, rolloutToken)
	const res = "kalypso_gitops_commit.dev"
	head := func() string { return gitserver.Head(t, gitops, "dev") }
	post := func(sha, cluster, state string) {
		gh.AddStatus("org/gitops", sha, mockgithub.Status{State: state, Context: "kustomization/dev/" + cluster, Description: "reconciliation " + state, UpdatedAt: time.Now().Add(-time.Hour)})
	}
	var c [5]string // c[1]..c[4]: the commits of the four applies
	var c3Tree, c4Tree, heldReason string
	commit := func(i int) func(*terraform.State) error {
		return func(*terraform.State) error { c[i] = head(); return nil }
	}
	lkg := func(commit, tree *string) knownvalue.Check {
		return knownvalue.ObjectPartial(map[string]knownvalue.Check{"commit": lazyStringExact{commit}, "tree": lazyStringExact{tree}})
	}
	wave := func(name, clusterType string, commit, tree *string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact(name),
			"cluster_types": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(clusterType)}), "commit": lazyStringExact{commit}, "tree": lazyStringExact{tree}})
	}
	lkgWaves := func(canary, canaryTree, rest, restTree *string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(res, tfjsonpath.New("last_known_good").AtMapKey("waves"),
			knownvalue.ListExact([]knownvalue.Check{wave("canary", "drone", canary, canaryTree), wave("rest", "large", rest, restTree)}))
	}
	empty := resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: lkgWavesConfig(gh, gitops, "1"), Check: commit(1)}, // the canary
			{
				PreConfig: func() { post(c[1], "d0000001", "success") },
				Config:    lkgWavesConfig(gh, gitops, "1"), Check: resource.ComposeTestCheckFunc(commit(2), expectBranch(t, gitops, "drone=1 large=1 promoted=1111111")),
			},
			{
				PreConfig: func() { post(c[2], "d0000001", "success"); post(c[2], "e0000001", "success") },
				Config:    lkgWavesConfig(gh, gitops, "2"), Check: resource.ComposeTestCheckFunc(commit(3), expectBranch(t, gitops, "drone=2 large=1 promoted=1111111")),
			},
			{
				// Both waves healthy on c3: every last known good is c3.
				PreConfig: func() {
					post(c[3], "d0000001", "success")
					post(c[3], "e0000001", "success")
					c3Tree = managedTreeAt(t, gitops, c[3], "clusters")
				},
				Config: lkgWavesConfig(gh, gitops, "2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(res, tfjsonpath.New("last_known_good"), lkg(&c[3], &c3Tree)), lkgWaves(&c[3], &c3Tree, &c[3], &c3Tree)}},
				Check: resource.ComposeTestCheckFunc(commit(4), expectBranch(t, gitops, "drone=2 large=2 promoted=1111111")),
			},
			{
				// The rest fails on c4, the canary is healthy there: the waves' last known good part, and the
				// plan rolls the environment back to its own, c3, by itself.
				PreConfig: func() {
					post(c[4], "d0000001", "success")
					post(c[4], "e0000001", "failure")
					c4Tree = managedTreeAt(t, gitops, c[4], "clusters")
					heldReason = "held: a rollback to " + c[3][:12] + " holds the tree the configuration renders"
				},
				Config: lkgWavesConfig(gh, gitops, "2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(res, tfjsonpath.New("last_known_good"), lkg(&c[3], &c3Tree)),
						lkgWaves(&c[4], &c4Tree, &c[3], &c3Tree),
						plancheck.ExpectKnownValue(res, tfjsonpath.New("changes"), knownvalue.MapExact(map[string]knownvalue.Check{
							"clusters/large/app.yaml": knownvalue.ObjectExact(map[string]knownvalue.Check{"action": knownvalue.StringExact("update"),
								"diff": knownvalue.StringRegexp(regexp.MustCompile(`(?m)^-version: 2\n\+version: 1\n`))})})),
						// rollout_status: as the plan after the rollback reads it, held.
						plancheck.ExpectKnownValue(res, tfjsonpath.New("rollout_status"), knownvalue.ListExact([]knownvalue.Check{
							knownvalue.ObjectPartial(map[string]knownvalue.Check{"state": knownvalue.StringExact("done")}),
							knownvalue.ObjectPartial(map[string]knownvalue.Check{"state": knownvalue.StringExact("current"), "pending_files": knownvalue.StringExact("1"),
								"reason": lazyStringExact{&heldReason}}),
						})),
					},
					PostApplyPreRefresh:  empty.PostApplyPreRefresh,
					PostApplyPostRefresh: empty.PostApplyPostRefresh,
				},
				Check: resource.ComposeTestCheckFunc(expectBranch(t, gitops, "drone=2 large=1 promoted=1111111"), func(*terraform.State) error {
					if diff := gitserver.Git(t, gitops, nil, "diff", c[3], "dev", "--", "clusters"); diff != "" {
						return fmt.Errorf("git diff %s dev -- clusters:\n%s", c[3], diff)
					}
					return nil
				}),
			},
			{
				// Still version 2: held, nothing to plan.
				Config: lkgWavesConfig(gh, gitops, "2"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Version 3 releases the hold and starts at the canary.
				Config: lkgWavesConfig(gh, gitops, "3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(res, tfjsonpath.New("changes").AtMapKey("clusters/drone/app.yaml").AtMapKey("diff"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?m)^\+version: 3$`)))}},
				Check: expectBranch(t, gitops, "drone=3 large=1 promoted=1111111"),
			},
		},
	})
}
