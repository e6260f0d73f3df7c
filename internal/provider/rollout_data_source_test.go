// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockresourcegraph"
)

const rolloutToken = "ghp_ROLLOUTsecret0123456789abcdef"

// promotionRepos is a control plane whose main has m1 (cluster type small) then m2 (adds large), and a
// GitOps repository org/gitops whose dev branch rendered m1 (g1) then m2 (g2) and whose stage branch
// holds m1.
type promotionRepos struct {
	cp, gitops string
	m1, m2     string
	g1, g2     string
}

func newPromotionRepos(t *testing.T) promotionRepos {
	t.Helper()
	root := t.TempDir()
	org := filepath.Join(root, "org")
	var r promotionRepos
	r.cp = gitserver.NewBareRepo(t, org, "control-plane", "main")
	r.m1 = gitserver.Commit(t, r.cp, "main", "small", map[string]string{"small.yaml": cpClusterType("small")}, nil)
	r.m2 = gitserver.Commit(t, r.cp, "main", "large", map[string]string{"large.yaml": cpClusterType("large")}, nil)
	r.gitops = gitserver.NewBareRepo(t, org, "gitops", "dev")
	track := ".github/tracking/Promoted_Commit_Id"
	r.g1 = gitserver.Commit(t, r.gitops, "dev", "dev m1", map[string]string{"small/README.md": "small", track: r.m1}, nil)
	r.g2 = gitserver.Commit(t, r.gitops, "dev", "dev m2", map[string]string{"large/README.md": "large", track: r.m2}, nil)
	gitserver.Commit(t, r.gitops, "stage", "stage m1", map[string]string{"README.md": "stage", track: r.m1}, nil)
	return r
}

// postFluxStatus posts a commit status the way Flux's notification-controller does with a Provider of
// type github (fluxcd/notification-controller internal/notifier/github.go, Post): state "success" for
// an info event and "failure" for an error event (progressing events are skipped), context
// "kustomization/<name>/<first segment of the Provider UID>" in lower case (generateCommitStatusID in
// internal/notifier/util.go), description the event reason split at case changes and lower-cased
// (formatNameAndDescription), e.g. "reconciliation succeeded" or "health check failed".
func postFluxStatus(t *testing.T, gh *mockgithub.Server, sha, cluster, state, description string) {
	t.Helper()
	postFluxStatusTo(t, gh, "org/gitops", sha, cluster, state, description)
}

// postFluxStatusTo is postFluxStatus on the GitOps repository owner/name.
func postFluxStatusTo(t *testing.T, gh *mockgithub.Server, repo, sha, cluster, state, description string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"state": state, "context": "kustomization/dev/" + cluster, "description": description})
	req, _ := http.NewRequest(http.MethodPost, gh.BaseURL()+"repos/"+repo+"/statuses/"+sha, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+rolloutToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST status: %s", resp.Status)
	}
}

// promotionConfig reads dev's rollout, promotes stage with it, reads main at the promoted commit and
// renders stage's GitOps commit from it.
func promotionConfig(gh *mockgithub.Server, r promotionRepos, extra string) string {
	return fmt.Sprintf(`
provider "kalypso" {
  github_base_url     = %[1]q
  git_token           = %[2]q
  allow_loopback_http = true # mockgithub is plain http on 127.0.0.1
}

data "kalypso_rollout" "dev" {
  environment    = "dev"
  repository_url = %[3]q
  branch         = "dev"
  expected = {
    clusters = ["4f0c2a11", "9b3e7d20"]
  }
  github_statuses = {}
  promotion = {
    to            = "stage"
    control_plane = { repo = %[4]q }
  }
  %[5]s
}

data "kalypso_control_plane" "main" {
  git = {
    repo   = %[4]q
    branch = "main"
    commit = data.kalypso_rollout.dev.promotion_commit
  }
}

resource "kalypso_gitops_commit" "stage" {
  repository_url      = %[3]q
  deletion_protection = false # the test framework destroys what the test created
  branch             = "stage"
  path               = "clusters"
  files              = { for ct in data.kalypso_control_plane.main.cluster_types : "${ct}/README.md" => ct }
  promoted_commit_id = data.kalypso_rollout.dev.promotion_commit
}
`, gh.BaseURL(), rolloutToken, "file://"+filepath.ToSlash(r.gitops), "file://"+filepath.ToSlash(r.cp), extra)
}

func rolloutState(state string, moves bool, commit, reason string) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("state"), knownvalue.StringExact(state)),
		statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("promotion_moves"), knownvalue.Bool(moves)),
		statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("promotion_commit"), knownvalue.StringExact(commit)),
		statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("promotion_reason"), knownvalue.StringRegexp(regexp.MustCompile(reason))),
	}
}

// The gate in the plan, with statuses posted as Flux posts them to the GitHub REST contract mock: no
// report, progressing and one failure keep stage at m1 and say why; when both clusters succeeded with
// dev's head, stage's plan moves it m1 → m2 and brings m2's rendered change (large/README.md).
func TestAccRollout_promotionGate_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	gh := mockgithub.Start(t, rolloutToken)
	cfg := promotionConfig(gh, r, "")
	short := func(s string) string { return s[:7] }
	stays := "; stage (stays at|is already at) main@" + short(r.m1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// No cluster reported: stays, and says so (the same text is the plan's warning).
				Config: cfg,
				ConfigStateChecks: append(rolloutState("unknown", false, r.m1,
					`^dev is at main@`+short(r.m2)+`: 0/2 clusters succeeded, 2 not reporting \(no report from 4f0c2a11, 9b3e7d20\)`+stays),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("head_commit"), knownvalue.StringExact(r.g2)),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("head_promoted_commit"), knownvalue.StringExact(r.m2)),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("succeeded_commit"), knownvalue.Null()),
					statecheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
						"small/README.md": knownvalue.StringExact("small")})),
				),
			},
			{
				// One cluster succeeded with g2, the other only with g1: progressing, stays.
				PreConfig: func() {
					postFluxStatus(t, gh, r.g1, "4f0c2a11", "success", "reconciliation succeeded")
					postFluxStatus(t, gh, r.g1, "9b3e7d20", "success", "reconciliation succeeded")
					postFluxStatus(t, gh, r.g2, "4f0c2a11", "success", "reconciliation succeeded")
				},
				Config: cfg,
				ConfigStateChecks: append(rolloutState("progressing", false, r.m1, `: 1/2 clusters succeeded, 1 progressing`+stays),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("succeeded_commit"), knownvalue.StringExact(r.g1)),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("succeeded_promoted_commit"), knownvalue.StringExact(r.m1)),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionNoop)}},
			},
			{
				// A failure names the cluster and its message; stays.
				PreConfig: func() { postFluxStatus(t, gh, r.g2, "9b3e7d20", "failure", "health check failed") },
				Config:    cfg,
				ConfigStateChecks: append(rolloutState("failed", false, r.m1,
					`: 1/2 clusters succeeded, 1 failed \(9b3e7d20: dev: health check failed\)`+stays),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("4f0c2a11"), "state": knownvalue.StringExact("succeeded"),
							"commit": knownvalue.StringExact(r.g2), "message": knownvalue.StringExact("dev: reconciliation succeeded"), "expected": knownvalue.Bool(true)}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("9b3e7d20"), "state": knownvalue.StringExact("failed"),
							"commit": knownvalue.StringExact(r.g2), "message": knownvalue.StringExact("dev: health check failed")}),
					})),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionNoop)}},
			},
			{
				// Flux reconciles again and succeeds: stage moves m1 → m2 with m2's content.
				PreConfig: func() { postFluxStatus(t, gh, r.g2, "9b3e7d20", "success", "reconciliation succeeded") },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(r.m2)),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
						"small/README.md": knownvalue.StringExact("small"), "large/README.md": knownvalue.StringExact("large")})),
				}},
				ConfigStateChecks: rolloutState("succeeded", true, r.m2, `^dev is at main@`+short(r.m2)+`: 2/2 clusters succeeded; stage moves main@`+short(r.m1)+` → main@`+short(r.m2)+`$`),
			},
			{
				// Applied: stage's branch now holds m2, so the next plan is empty and stage "is already at" m2.
				Config:            cfg,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: rolloutState("succeeded", false, r.m2, `stage is already at main@`+short(r.m2)+`$`),
				Check: func(*terraform.State) error {
					files := gitserver.Files(t, r.gitops, "stage")
					if got := strings.TrimSpace(files[".github/tracking/Promoted_Commit_Id"]); got != r.m2 || files["clusters/large/README.md"] != "large" {
						return fmt.Errorf("stage branch: Promoted_Commit_Id %q, large/README.md %q; want %s and m2's content", got, files["clusters/large/README.md"], r.m2)
					}
					return nil
				},
			},
		},
	})
}

// Soak time: a success younger than soak_time keeps the cluster progressing (statuses are seeded with
// their time in the mock, so nothing waits).
func TestAccRollout_soakTime_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	gh := mockgithub.Start(t, rolloutToken)
	seed := func(cluster string, ago time.Duration) {
		gh.AddStatus("org/gitops", r.g2, mockgithub.Status{State: "success", Context: "kustomization/dev/" + cluster,
			Description: "reconciliation succeeded", UpdatedAt: time.Now().Add(-ago)})
	}
	seed("4f0c2a11", time.Hour)
	seed("9b3e7d20", 2*time.Minute)
	cfg := promotionConfig(gh, r, `soak_time = "30m"`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: append(rolloutState("progressing", false, r.m1, `: 1/2 clusters succeeded, 1 progressing; stage stays at main@`),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters").AtSliceIndex(1).AtMapKey("message"),
						knownvalue.StringRegexp(regexp.MustCompile(`^succeeded; soaking for 2[78]m.* more \(soak 30m0s\)$`)))),
			},
			{
				// Half an hour later (the mock's clock moves, the test does not wait).
				PreConfig:         func() { gh.Age("org/gitops", r.g2, 30*time.Minute) },
				Config:            cfg,
				ConfigStateChecks: rolloutState("succeeded", true, r.m2, `stage moves main@`),
			},
		},
	})
}

// TestHostileInputCatalogue_Rollout_MockGitHubAPI is the rollout layer of the bad-input catalogue: each
// case fails the plan with a diagnostic that says what is wrong and what to fix, and stage's GitOps
// branch is untouched (nothing is written).
func TestHostileInputCatalogue_Rollout_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	gh := mockgithub.Start(t, rolloutToken)
	for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
		gh.AddStatus("org/gitops", r.g2, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c, Description: "reconciliation succeeded"})
	}
	// A dev branch rendered without promoted_commit_id, and one whose tracking file holds garbage.
	untracked := gitserver.Commit(t, r.gitops, "dev-untracked", "no tracking", map[string]string{"x/README.md": "x"}, nil)
	garbage := gitserver.Commit(t, r.gitops, "dev-garbage", "garbage", map[string]string{".github/tracking/Promoted_Commit_Id": "$(rm -rf /)"}, nil)
	for _, sha := range []string{untracked, garbage} {
		for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
			gh.AddStatus("org/gitops", sha, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c})
		}
	}
	// A dev branch that carries a commit of another repository (the GitOps repository's own g1) as its
	// Promoted_Commit_Id, promoted for the first time into a stage branch with none; and a dev branch
	// where a second account posts a status for one of the clusters.
	foreign := gitserver.Commit(t, r.gitops, "dev-foreign", "foreign", map[string]string{".github/tracking/Promoted_Commit_Id": r.g1}, nil)
	gitserver.Commit(t, r.gitops, "stage-new", "no promotion yet", map[string]string{"README.md": "stage"}, nil)
	forged := gitserver.Commit(t, r.gitops, "dev-forged", "forged", map[string]string{".github/tracking/Promoted_Commit_Id": r.m2}, nil)
	for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
		gh.AddStatus("org/gitops", foreign, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c})
		gh.AddStatus("org/gitops", forged, mockgithub.Status{State: "failure", Context: "kustomization/dev/" + c})
	}
	gh.AddStatus("org/gitops", forged, mockgithub.Status{State: "success", Context: "kustomization/dev/9b3e7d20", Creator: "mallory"})
	// 2,500 clusters report on g1 (only the cases that read two commits see them).
	for i := range 2500 {
		gh.AddStatus("org/gitops", r.g1, mockgithub.Status{State: "success", Context: fmt.Sprintf("kustomization/dev/c%04d", i)})
	}
	// g1 of a fourth branch gets a malformed answer; a fifth's statuses are unreachable.
	malformed := gitserver.Commit(t, r.gitops, "dev-malformed", "m", map[string]string{".github/tracking/Promoted_Commit_Id": r.m1}, nil)
	down := gitserver.Commit(t, r.gitops, "dev-down", "d", map[string]string{".github/tracking/Promoted_Commit_Id": r.m1}, nil)
	gh.Intercept = func(w http.ResponseWriter, req *http.Request) bool {
		switch {
		case strings.Contains(req.URL.Path, malformed):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"context":"kustomization/dev/x","state":"exploded"}]`))
			return true
		case strings.Contains(req.URL.Path, down):
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"message":"Service Unavailable ` + rolloutToken + `"}`))
			return true
		}
		return false
	}
	stageHead := gitserver.Head(t, r.gitops, "stage")
	cfg := func(branch, extra string) string {
		return strings.Replace(strings.Replace(promotionConfig(gh, r, extra), `branch         = "dev"`, fmt.Sprintf("branch         = %q", branch), 1),
			`clusters = ["4f0c2a11", "9b3e7d20"]`, `min_clusters = 2`, 1)
	}
	cases := []struct {
		name, config string
		patterns     []string
	}{
		{"current commit not on main", "", nil},
		{"a rolled-out commit without Promoted_Commit_Id", cfg("dev-untracked", ""),
			[]string{"Error: Cannot decide the promotion to stage", "has no\\s+.github/tracking/Promoted_Commit_Id", "promoted_commit_id"}},
		{"a Promoted_Commit_Id that is not a commit", cfg("dev-garbage", ""),
			[]string{"Error: Cannot read the GitOps branch", `holds "\$\(rm\s+-rf /\)", which is not a commit SHA`}},
		{"thousands of clusters", "", nil},
		{"malformed status answer", cfg("dev-malformed", ""),
			[]string{"Error: Cannot read the commit statuses", "malformed answer", `state\s+"exploded"`}},
		{"status API unavailable", cfg("dev-down", ""),
			[]string{"Error: Cannot read the rollout of dev", "503 Service Unavailable REDACTED", "reachable"}},
		{"status API unreachable", strings.Replace(cfg("dev", ""), gh.BaseURL(), "http://127.0.0.1:1/api/v3/", 1),
			[]string{"Error: Cannot read the rollout of dev", "connection refused", "github_base_url"}},
		{"context pattern without a cluster group", "", nil},
		{"a first promotion to a commit of another repository", strings.Replace(cfg("dev-foreign", ""), `to            = "stage"`, `to            = "stage"`+"\n    to_branch = \"stage-new\"", 1),
			[]string{"Error: Cannot promote to stage", "carries Promoted_Commit_Id " + r.g1, "which is not a commit of the\\s+control-plane branch", "is not\\s+main's head"}},
		{"a cluster reported by two accounts", cfg("dev-forged", ""),
			[]string{"Error: One cluster, two reporters", `cluster "9b3e7d20" is reported by\s+"mallory"`, `"flux"`, "github_statuses.creators"}},
	}
	// Cases whose configuration needs more than a branch.
	cases[0].config = strings.Replace(cfg("dev", "history = 1"), `to            = "stage"`, fmt.Sprintf("to            = \"stage\"\n    current_commit = %q", r.g1), 1)
	cases[0].patterns = []string{"Error: Cannot decide the promotion to stage", "commit\\s+" + r.g1 + "\\s+is not main's head", "nor one of its\\s+ancestors"}
	cases[3].config = strings.Replace(promotionConfig(gh, r, "history = 2"), `clusters = ["4f0c2a11", "9b3e7d20"]`, `min_clusters = 2`, 1)
	cases[3].patterns = []string{"Error: Too many statuses", "has more than 2000 status\\s+contexts", "raise max_clusters"}
	cases[7].config = strings.Replace(cfg("dev", ""), `github_statuses = {}`, `github_statuses = { context_patterns = ["^kustomization/(.+)$"] }`, 1)
	cases[7].patterns = []string{"Error: Invalid context pattern", "no named group `cluster`"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var steps []resource.TestStep
			var re []string
			for _, p := range tc.patterns {
				re = append(re, "(?s).*"+p)
			}
			steps = append(steps, resource.TestStep{Config: tc.config, PlanOnly: true, ExpectError: regexp.MustCompile(strings.Join(re, ""))})
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
			if got := gitserver.Head(t, r.gitops, "stage"); got != stageHead {
				t.Errorf("stage moved to %s", got)
			}
		})
	}
}

// examples/promotion (the stage workspace) over upstream's sample: main has a commit dev rolled out
// (m1, the sample) and a newer one dev renders but its clusters have not reported (m2). Stage renders
// upstream's stage tree at m1 and stays there; once both dev clusters report success (seeded in the
// GitHub REST contract mock as Flux posts them), stage's plan moves it to m2.
func TestAccRollout_promotionExample_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	org := filepath.Join(root, "microsoft")
	_, m1 := fixtures.ControlPlanePinnedRepo(t, org)
	fixtures.SvcSrcRepo(t, org)
	m2 := gitserver.Head(t, filepath.Join(org, "kalypso-control-plane"), "main")
	track := ".github/tracking/Promoted_Commit_Id"
	gitops := gitserver.NewBareRepo(t, org, "kalypso-gitops", "dev")
	gitserver.Commit(t, gitops, "dev", "dev at m1", map[string]string{"README.md": "dev", track: m1}, nil)
	g2 := gitserver.Commit(t, gitops, "dev", "dev at m2", map[string]string{"README.md": "dev", track: m2}, nil)
	gitserver.Commit(t, gitops, "stage", "stage at m1", map[string]string{track: m1}, nil)
	gh := mockgithub.Start(t, "")
	cfg := exampleForTestFramework(t, "promotion")
	vars := config.Variables{"git_mirror": config.StringVariable(gitserver.Start(t, root, gitserver.Options{}).URL + "/"), "github_base_url": config.StringVariable(gh.BaseURL())}
	want, _ := fixtures.ControlPlaneExpected(t, "stage")
	// The sample's stage schedules no workload (its tree is two README files), so m2's template change
	// reaches stage only as its Promoted_Commit_Id; TestAccRollout_promotionGate_MockGitHubAPI shows a
	// promotion that brings rendered files.
	stageTree := func(promoted string) func(*terraform.State) error { return stageTreeCheck(t, gitops, want, promoted) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: vars,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("promotion", knownvalue.StringRegexp(regexp.MustCompile(`\(0 clusters reported, 2 expected\); stage stays at main@`+m1[:7]+`$`))),
				},
				Check: stageTree(m1),
			},
			{
				PreConfig: func() {
					for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
						gh.AddStatus("microsoft/kalypso-gitops", g2, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c,
							Description: "reconciliation succeeded", UpdatedAt: time.Now().Add(-time.Hour)})
					}
				},
				Config: cfg, ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(m2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("promotion", knownvalue.StringExact("dev is at main@"+m2[:7]+": 2/2 clusters succeeded; stage moves main@"+m1[:7]+" → main@"+m2[:7])),
				},
				Check: stageTree(m2),
				// After the apply the reason reads "stage is already at main@…": only that output changes.
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// examples/promotion, as written, on stage's first promotion: stage's GitOps branch does not exist yet,
// the GitOps and control-plane repositories are file:// URLs (so the statuses' repository is
// gitops_github_repository), and both dev clusters reported success on dev's head. The plan moves stage
// to what dev rolled out and says the branch is new; the apply creates the branch with upstream's stage
// tree; no promotion.current_commit is needed.
func TestAccRollout_promotionExampleFirstPromotion_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	org := filepath.Join(root, "microsoft")
	cp, m1 := fixtures.ControlPlanePinnedRepo(t, org)
	fixtures.SvcSrcRepo(t, org)
	gitops := gitserver.NewBareRepo(t, org, "kalypso-gitops", "dev")
	g1 := gitserver.Commit(t, gitops, "dev", "dev at m1", map[string]string{"README.md": "dev", ".github/tracking/Promoted_Commit_Id": m1}, nil)
	gh := mockgithub.Start(t, "")
	for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
		gh.AddStatus("microsoft/kalypso-gitops", g1, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c,
			Description: "reconciliation succeeded", UpdatedAt: time.Now().Add(-time.Hour)})
	}
	cfg := exampleForTestFramework(t, "promotion")
	vars := config.Variables{
		"control_plane_repo":       config.StringVariable("file://" + filepath.ToSlash(cp)),
		"gitops_repo":              config.StringVariable("file://" + filepath.ToSlash(gitops)),
		"gitops_github_repository": config.StringVariable("microsoft/kalypso-gitops"),
		// The registrations' Workload repository (https://github.com/microsoft/kalypso-svc-src) from a mirror.
		"git_mirror":      config.StringVariable(gitserver.Start(t, root, gitserver.Options{}).URL + "/"),
		"github_base_url": config.StringVariable(gh.BaseURL()),
	}
	want, _ := fixtures.ControlPlaneExpected(t, "stage")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg, ConfigVariables: vars,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(m1)),
				plancheck.ExpectKnownOutputValue("promotion", knownvalue.StringExact("dev is at main@"+m1[:7]+": 2/2 clusters succeeded; stage moves to main@"+m1[:7]+
					" (its first promotion) (GitOps branch \"stage\" does not exist yet: the kalypso_gitops_commit that renders stage creates it with create_branch = true)")),
			}},
			Check: stageTreeCheck(t, gitops, want, m1),
			// After the apply the reason reads "stage is already at main@…": only that output changes.
			ExpectNonEmptyPlan: true,
		}},
	})
}

// stageTreeCheck checks that stage's GitOps branch holds want (without the ownership record) and
// promoted as its Promoted_Commit_Id.
func stageTreeCheck(t *testing.T, gitops string, want map[string]string, promoted string) func(*terraform.State) error {
	return func(*terraform.State) error {
		files, got := fixtures.SplitTracking(gitserver.Files(t, gitops, "stage"))
		delete(files, ".kalypso-gitops-commit")
		if got != promoted {
			return fmt.Errorf("stage's Promoted_Commit_Id = %q, want %s", got, promoted)
		}
		if d := fixtures.DiffTrees(want, files); d != "" {
			return fmt.Errorf("stage differs from upstream's stage tree:\n%s", d)
		}
		return nil
	}
}

// The Azure Resource Graph source's configuration errors, at plan: both sources at once, and an oidc
// credential without the variables HCP Terraform's dynamic credentials set. (The source itself is
// tested against a local HTTPS server in internal/rollout; a real token needs Entra ID.)
func TestAccRollout_azureResourceGraphConfiguration(t *testing.T) { //nolint:paralleltest // it clears the Azure credential variables with t.Setenv so that the oidc case finds none
	for _, v := range []string{"ARM_TENANT_ID", "AZURE_TENANT_ID", "ARM_CLIENT_ID", "AZURE_CLIENT_ID", "TFC_AZURE_RUN_CLIENT_ID",
		"ARM_OIDC_TOKEN", "TFC_WORKLOAD_IDENTITY_TOKEN", "ARM_OIDC_TOKEN_FILE_PATH", "AZURE_FEDERATED_TOKEN_FILE"} {
		t.Setenv(v, "")
	}
	r := newPromotionRepos(t)
	cfg := func(sources string) string {
		return fmt.Sprintf(`
data "kalypso_rollout" "dev" {
  repository_url = %q
  branch         = "dev"
  expected       = { min_clusters = 1 }
  %s
}
`, "file://"+filepath.ToSlash(r.gitops), sources)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("github_statuses = {}\n  azure_resource_graph = {}"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*azure_resource_graph`)},
			{Config: cfg("azure_resource_graph = { credential = \"oidc\", subscriptions = [\"0000\"] }"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Cannot set up the Azure credential.*ARM_TENANT_ID.*TFC_WORKLOAD_IDENTITY_TOKEN`)},
			{Config: cfg("azure_resource_graph = { credential = \"password\" }"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)credential.*value must be one of`)},
		},
	})
}

// rolloutAzureFactories is the provider reading Azure Resource Graph from s: Entra ID cannot be reached
// from a test, so the credential is the mock's and the transport trusts its certificate; everything
// else (the query, paging, the answer's decoding, the gate) is the product's.
func rolloutAzureFactories(s *mockresourcegraph.Server) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){"kalypso": NewProtocol6ServerWithError(rolloutAzureProvider(s))}
}

func rolloutAzureProvider(s *mockresourcegraph.Server) func() provider.Provider {
	return func() provider.Provider {
		return &KalypsoProvider{version: "test", caches: testCaches, azure: &azureOverride{
			credential: mockresourcegraph.Credential{},
			clientOptions: &arm.ClientOptions{ClientOptions: policy.ClientOptions{
				Transport: s.Client(),
				Retry:     policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond},
			}},
		}}
	}
}

// rolloutAzureConfig reads dev's rollout from s (three expected clusters), promotes stage with it, reads
// main at the promoted commit and renders stage's GitOps commit from it.
func rolloutAzureConfig(r promotionRepos, s *mockresourcegraph.Server) string {
	return fmt.Sprintf(`
data "kalypso_rollout" "dev" {
  environment    = "dev"
  repository_url = %[1]q
  branch         = "dev"
  expected       = { clusters = ["drone-1", "drone-2", "drone-3"] }
  azure_resource_graph = {
    endpoint       = %[3]q
    subscriptions  = ["0000"]
    repository_url = "https://github.com/org/gitops"
  }
  promotion = {
    to            = "stage"
    control_plane = { repo = %[2]q }
  }
}

data "kalypso_control_plane" "main" {
  git = {
    repo   = %[2]q
    branch = "main"
    commit = data.kalypso_rollout.dev.promotion_commit
  }
}

resource "kalypso_gitops_commit" "stage" {
  repository_url      = %[1]q
  deletion_protection = false # the test framework destroys what the test created
  branch              = "stage"
  path                = "clusters"
  files               = { for ct in data.kalypso_control_plane.main.cluster_types : "${ct}/README.md" => ct }
  promoted_commit_id  = data.kalypso_rollout.dev.promotion_commit
}
`, "file://"+filepath.ToSlash(r.gitops), "file://"+filepath.ToSlash(r.cp), s.URL)
}

// The gate with upstream's own check through the terraform CLI: Flux configurations read from a local
// HTTPS server implementing Resource Graph's POST /providers/Microsoft.ResourceGraph/resources, two rows
// per page ($skipToken). No cluster reports: stays, state unknown. One Non-Compliant: stays, naming it.
// All Compliant with dev's head: stage moves m1 → m2.
func TestAccRollout_azureResourceGraph_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	s := mockresourcegraph.Start(t, nil)
	short := func(sha string) string { return sha[:7] }
	at := time.Now().Add(-time.Hour)
	config := func(cluster, state string) map[string]any {
		return mockresourcegraph.FluxConfiguration(cluster, "dev", state, "dev@sha1:"+r.g2, at)
	}
	cfg := rolloutAzureConfig(r, s)
	stays := "; stage stays at main@" + short(r.m1) + "$"
	noop := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionNoop)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: rolloutAzureFactories(s),
		Steps: []resource.TestStep{
			{
				// No Flux configuration reconciles dev: never a success (upstream's script passes here).
				Config: cfg,
				ConfigStateChecks: append(rolloutState("unknown", false, r.m1,
					`^dev is at main@`+short(r.m2)+`: 0/3 clusters succeeded, 3 not reporting \(no report from drone-1, drone-2, drone-3\)`+stays),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
						"small/README.md": knownvalue.StringExact("small")})),
				),
				Check: func(*terraform.State) error {
					reqs := s.Requests()
					if len(reqs) == 0 {
						return fmt.Errorf("the provider sent no query to the Resource Graph server")
					}
					q, _ := reqs[0]["query"].(string)
					if !strings.Contains(q, "fluxconfigurations") || !strings.Contains(q, "=~ 'https://github.com/org/gitops'") || !strings.Contains(q, "== 'dev'") {
						return fmt.Errorf("the query does not select dev's Flux configurations of org/gitops:\n%s", q)
					}
					if subs, _ := reqs[0]["subscriptions"].([]any); len(subs) != 1 || subs[0] != "0000" {
						return fmt.Errorf("subscriptions = %v", reqs[0]["subscriptions"])
					}
					return nil
				},
			},
			{
				// drone-2 is Non-Compliant with dev's head: failed, named, and stage stays.
				PreConfig: func() {
					failed := config("drone-2", "Non-Compliant")
					failed["errorMessage"] = "health check failed"
					s.SetRows([]map[string]any{config("drone-1", "Compliant"), failed, config("drone-3", "Compliant")})
				},
				Config: cfg,
				ConfigStateChecks: append(rolloutState("failed", false, r.m1, `: 2/3 clusters succeeded, 1 failed \(drone-2: dev: [^)]*health check failed\)`+stays),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters").AtSliceIndex(1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"name": knownvalue.StringExact("drone-2"), "state": knownvalue.StringExact("failed"), "commit": knownvalue.StringExact(r.g2), "expected": knownvalue.Bool(true)})),
				),
				ConfigPlanChecks: noop,
			},
			{
				// Every expected cluster Compliant with dev's head, over two pages: stage moves m1 → m2.
				PreConfig: func() {
					s.SetRows([]map[string]any{config("drone-1", "Compliant"), config("drone-2", "Compliant"), config("drone-3", "Compliant")})
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(r.m2)),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.stage", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
						"small/README.md": knownvalue.StringExact("small"), "large/README.md": knownvalue.StringExact("large")})),
				}},
				ConfigStateChecks: rolloutState("succeeded", true, r.m2, `^dev is at main@`+short(r.m2)+`: 3/3 clusters succeeded; stage moves main@`+short(r.m1)+` → main@`+short(r.m2)+`$`),
				Check: func(*terraform.State) error {
					for _, req := range s.Requests() {
						if opts, _ := req["options"].(map[string]any); opts["$skipToken"] == "row-2" {
							return nil
						}
					}
					return fmt.Errorf("no request asked for the second page ($skipToken row-2)")
				},
			},
		},
	})
}

// planWarnings runs `terraform plan -json` and returns each warning's detail by its summary, as the
// terraform binary reports them (a diagnostic line of the machine-readable UI).
func planWarnings(t *testing.T, tf *terraformCLI) map[string]string {
	t.Helper()
	out := tf.mustRun("plan", "-input=false", "-no-color", "-json")
	warnings := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity, Summary, Detail string
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" && msg.Diagnostic.Severity == "warning" {
			if prev, ok := warnings[msg.Diagnostic.Summary]; ok && prev != msg.Diagnostic.Detail {
				t.Fatalf("two %q warnings:\n%s\n%s", msg.Diagnostic.Summary, prev, msg.Diagnostic.Detail)
			}
			warnings[msg.Diagnostic.Summary] = msg.Diagnostic.Detail
		}
	}
	return warnings
}

// The warnings themselves, as the terraform binary prints them in a plan (`terraform plan -json`), with
// the Resource Graph source read from a local server: no report says so and how to fix it, and the
// held promotion says where dev is, which cluster failed with what, and where stage stays; once every
// cluster succeeded, nothing is held.
func TestAccRollout_promotionWarnings_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	r := newPromotionRepos(t)
	s := mockresourcegraph.Start(t, nil)
	dir := t.TempDir()
	main := `terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}
` + rolloutAzureConfig(r, s)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLIWith(t, dir, rolloutAzureProvider(s))
	tf.mustRun("init", "-input=false", "-no-color")
	m1, m2 := r.m1[:7], r.m2[:7]

	w := planWarnings(t, tf)
	want := map[string]string{
		"No cluster reported": `dev: no expected cluster reported about the last 20 commits of "dev": 0/3 clusters succeeded, 3 not reporting (no report from drone-1, drone-2, drone-3). ` +
			"Check that the clusters' Flux configurations reconcile this branch of the repository in azure_resource_graph.repository_url (or repository_url), " +
			"and that the identity has Reader on their subscriptions.",
		"Promotion to stage held": "dev is at main@" + m2 + ": 0/3 clusters succeeded, 3 not reporting (no report from drone-1, drone-2, drone-3); stage stays at main@" + m1,
	}
	for summary, detail := range want {
		if w[summary] != detail {
			t.Errorf("no report: warning %q = %q\nwant %q", summary, w[summary], detail)
		}
	}

	at := time.Now().Add(-time.Hour)
	config := func(cluster, state string) map[string]any {
		return mockresourcegraph.FluxConfiguration(cluster, "dev", state, "dev@sha1:"+r.g2, at)
	}
	failed := config("drone-2", "Non-Compliant")
	failed["errorMessage"] = "health check failed"
	s.SetRows([]map[string]any{config("drone-1", "Compliant"), failed, config("drone-3", "Compliant")})
	w = planWarnings(t, tf)
	if _, ok := w["No cluster reported"]; ok {
		t.Errorf("one failure: the plan still warns that no cluster reported")
	}
	if got, want := w["Promotion to stage held"], "dev is at main@"+m2+": 2/3 clusters succeeded, 1 failed (drone-2: dev: Non-Compliant: health check failed); stage stays at main@"+m1; got != want {
		t.Errorf("one failure: warning %q\nwant %q", got, want)
	}

	s.SetRows([]map[string]any{config("drone-1", "Compliant"), config("drone-2", "Compliant"), config("drone-3", "Compliant")})
	w = planWarnings(t, tf)
	for _, summary := range []string{"No cluster reported", "Promotion to stage held"} {
		if d, ok := w[summary]; ok {
			t.Errorf("all succeeded: the plan warns %q: %s", summary, d)
		}
	}
}

// Gates that cannot lie, GitHub side: min_clusters = 3 while two real clusters reported. A CI check
// named like a Flux context (kustomization/lint/ci) is no cluster; a cluster another account posts is
// not counted once github_statuses.creators names the clusters' account, and expected.clusters can name
// the clusters instead. Stage stays at m1 throughout.
func TestAccRollout_onlyClustersCount_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	gh := mockgithub.Start(t, rolloutToken)
	for _, c := range []string{"4f0c2a11", "9b3e7d20"} {
		gh.AddStatus("org/gitops", r.g2, mockgithub.Status{State: "success", Context: "kustomization/dev/" + c, Description: "reconciliation succeeded"})
	}
	gh.AddStatus("org/gitops", r.g2, mockgithub.Status{State: "success", Context: "kustomization/lint/ci", Creator: "github-actions[bot]"})
	gh.AddStatus("org/gitops", r.g2, mockgithub.Status{State: "success", Context: "kustomization/dev/deadbeef", Creator: "mallory"})
	minimum := strings.Replace(promotionConfig(gh, r, ""), `clusters = ["4f0c2a11", "9b3e7d20"]`, `min_clusters = 3`, 1)
	ids := func(want ...string) statecheck.StateCheck {
		var checks []knownvalue.Check
		for _, id := range want {
			checks = append(checks, knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(id)}))
		}
		return statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters"), knownvalue.ListExact(checks))
	}
	stays := "; stage stays at main@" + r.m1[:7] + "$"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Only the clusters' account counts: 2 of 3.
				Config: strings.Replace(minimum, "github_statuses = {}", `github_statuses = { creators = ["flux"] }`, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					rolloutState("progressing", false, r.m1, `: 2/2 clusters succeeded \(2 clusters reported, 3 expected\)`+stays)[0],
					rolloutState("progressing", false, r.m1, `: 2/2 clusters succeeded \(2 clusters reported, 3 expected\)`+stays)[3],
					ids("4f0c2a11@flux", "9b3e7d20@flux"),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kalypso_gitops_commit.stage", plancheck.ResourceActionCreate)}},
			},
			{
				// The clusters named: the third never reported, whatever else posted.
				Config: strings.Replace(minimum, `min_clusters = 3`, `clusters = ["4f0c2a11", "9b3e7d20", "1c2d3e4f"]`, 1),
				ConfigStateChecks: append(rolloutState("progressing", false, r.m1, `: 2/3 clusters succeeded, 1 not reporting \(no report from 1c2d3e4f\)`+stays),
					ids("1c2d3e4f", "4f0c2a11@flux", "9b3e7d20@flux", "deadbeef@mallory")),
			},
		},
	})
}

// Gates that cannot lie, Azure side, against the Resource Graph mock: two clusters named aks-dev in two
// resource groups stay two, so the Non-Compliant one fails the read with fail_on_failure; expected.clusters
// cannot name them by the name they share; and a success without a valid statusUpdatedAt is not soaked.
func TestAccRollout_azureClusterIdentityAndSoak_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	r := newPromotionRepos(t)
	s := mockresourcegraph.Start(t, nil)
	at := time.Now().Add(-time.Hour)
	row := func(group, state string) map[string]any {
		c := mockresourcegraph.FluxConfiguration("aks-dev", "dev", state, "dev@sha1:"+r.g2, at)
		c["id"] = strings.Replace(c["id"].(string), "/resourceGroups/fleet/", "/resourceGroups/"+group+"/", 1)
		return c
	}
	idA := "/subscriptions/0000/resourcegroups/rg-a/providers/microsoft.kubernetes/connectedclusters/aks-dev"
	idB := "/subscriptions/0000/resourcegroups/rg-b/providers/microsoft.kubernetes/connectedclusters/aks-dev"
	cfg := func(expected string) string {
		return fmt.Sprintf(`
data "kalypso_rollout" "dev" {
  repository_url  = %q
  branch          = "dev"
  expected        = %s
  soak_time       = "30m"
  fail_on_failure = true
  azure_resource_graph = {
    endpoint       = %q
    subscriptions  = ["0000"]
    repository_url = "https://github.com/org/gitops"
  }
}
`, "file://"+filepath.ToSlash(r.gitops), expected, s.URL)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: rolloutAzureFactories(s),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { s.SetRows([]map[string]any{row("rg-a", "Compliant"), row("rg-b", "Non-Compliant")}) },
				Config:    cfg("{ min_clusters = 2 }"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Rollout failed.*1/2 clusters succeeded, 1 failed\s+\(` + idB + `:\s+dev:\s+Non-Compliant\)`),
			},
			{
				Config: cfg(`{ clusters = ["aks-dev"] }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Ambiguous expected cluster.*expected cluster "aks-dev" names 2 clusters.*` + idA + `,\s+` + idB),
			},
			{
				// Both Compliant, rg-b's without a time: rg-b is not soaked, so dev is progressing.
				PreConfig: func() {
					undated := row("rg-b", "Compliant")
					undated["statusUpdatedAt"] = "not a time"
					s.SetRows([]map[string]any{row("rg-a", "Compliant"), undated})
				},
				Config: cfg(fmt.Sprintf(`{ clusters = [%q, %q] }`, idA, strings.ToUpper(idB))),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("state"), knownvalue.StringExact("progressing")),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("succeeded_commit"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.kalypso_rollout.dev", tfjsonpath.New("clusters"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(idA), "state": knownvalue.StringExact("succeeded")}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(idB), "state": knownvalue.StringExact("progressing"),
							"message": knownvalue.StringExact("succeeded, but the report carries no valid time, so the soak of 30m0s cannot start")}),
					})),
				},
			},
		},
	})
}
