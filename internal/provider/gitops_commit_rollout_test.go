// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

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

// rolloutRepo is a GitOps repository org/gitops whose dev branch holds a README, and the control-plane
// commits m1 and m2 the environment is promoted to.
func rolloutRepo(t *testing.T) (gitops string, m1, m2 string) {
	t.Helper()
	root := t.TempDir()
	gitops = gitserver.NewSeededRepo(t, filepath.Join(root, "org"), "gitops", "dev", map[string]string{"README.md": "dev"})
	return gitops, strings.Repeat("1", 40), strings.Repeat("2", 40)
}

// rolloutFilesConfig delivers version to four cluster types in three waves: a canary (drone), the west
// (west-1, west-2) and the rest (east), reading the statuses Flux posts to the GitHub REST mock.
func rolloutFilesConfig(gh *mockgithub.Server, gitops, version, promoted, extra string) string {
	files := map[string]string{}
	for _, ct := range []string{"drone", "west-1", "west-2", "east"} {
		files[ct+"/app.yaml"] = "version: " + version + "\n"
	}
	return rolloutResource(gh, gitops, promoted, fmt.Sprintf(`  files = %s
  rollout = {
    waves = [
      { name = "canary", cluster_types = ["drone"], soak_time = "30m" },
      { name = "west", cluster_types = ["west-1", "west-2"], max_failures = 1 },
      { name = "rest" },
    ]
    expected = { clusters = { drone = ["d0000001"], "west-1" = ["a0000001"], "west-2" = ["b0000001", "b0000002"], east = ["e0000001"] } }
    github_statuses = { repository = "org/gitops" }
    %s
  }
`, hclMap(files), extra))
}

// rolloutResource is the provider reading the GitHub REST mock gh and kalypso_gitops_commit.dev writing
// path clusters of gitops' dev branch with promoted, and body.
func rolloutResource(gh *mockgithub.Server, gitops, promoted, body string) string {
	return fmt.Sprintf(`
provider "kalypso" {
  github_base_url     = %q
  git_token           = %q
  allow_loopback_http = true # the GitHub REST mock is plain http on 127.0.0.1
}

resource "kalypso_gitops_commit" "dev" {
  repository_url      = %q
  branch              = "dev"
  path                = "clusters"
  deletion_protection = false
  promoted_commit_id  = %q
%s}
`, gh.BaseURL(), rolloutToken, "file://"+filepath.ToSlash(gitops), promoted, body)
}

// waveStates checks rollout_status's wave states, in order.
func waveStates(states ...string) []knownvalue.Check {
	var out []knownvalue.Check
	for _, s := range states {
		out = append(out, knownvalue.ObjectPartial(map[string]knownvalue.Check{"state": knownvalue.StringExact(s)}))
	}
	return out
}

// branchVersions is what each cluster type's folder holds on dev, and the promoted commit.
func branchVersions(t *testing.T, gitops string) string {
	t.Helper()
	files := gitserver.Files(t, gitops, "dev")
	var out []string
	for k, v := range files {
		if ct, ok := strings.CutSuffix(strings.TrimPrefix(k, "clusters/"), "/app.yaml"); ok {
			out = append(out, ct+"="+strings.TrimSpace(strings.TrimPrefix(v, "version: ")))
		}
	}
	sort.Strings(out)
	promoted := files[".github/tracking/Promoted_Commit_Id"]
	if len(promoted) > 7 {
		promoted = promoted[:7]
	}
	return strings.Join(out, " ") + " promoted=" + promoted
}

func expectBranch(t *testing.T, gitops, want string) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := branchVersions(t, gitops); got != want {
			return fmt.Errorf("dev holds %s\nwant      %s", got, want)
		}
		return nil
	}
}

// A progressive rollout through the terraform CLI, against a real bare repository and the GitHub REST
// mock with statuses as Flux's notification-controller posts them: the first apply writes only the
// canary; the plan holds while the canary's status is missing, pending, on an older commit or younger
// than the soak; once it succeeded the west is written, a failure beyond max_failures halts with nothing
// written, paused writes nothing, a new version restarts at the canary while the west keeps what it has,
// the promoted commit moves only with the last wave, and the plan after the last wave is empty.
func TestAccGitopsCommit_rolloutWaves_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	gitops, m1, m2 := rolloutRepo(t)
	gh := mockgithub.Start(t, rolloutToken)
	v1 := rolloutFilesConfig(gh, gitops, "1", m1, "")
	head := func() string { return gitserver.Head(t, gitops, "dev") }
	post := func(sha, cluster, state string, ago time.Duration) {
		gh.AddStatus("org/gitops", sha, mockgithub.Status{State: state, Context: "kustomization/dev/" + cluster, Description: "reconciliation " + state, UpdatedAt: time.Now().Add(-ago)})
	}
	var canaryCommit string
	status := func(states ...string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status"), knownvalue.ListExact(waveStates(states...)))
	}
	changes := func(files ...string) plancheck.PlanCheck {
		m := map[string]knownvalue.Check{}
		for _, f := range files {
			m[f] = knownvalue.NotNull()
		}
		return plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("changes"), knownvalue.MapExact(m))
	}
	noWrite := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	// held checks that the step wrote nothing: the branch's head did not move (a plan that changes only
	// rollout_status updates the state, not the branch).
	var lastHead string
	held := func(want string) func(*terraform.State) error {
		return func(s *terraform.State) error {
			if h := head(); h != lastHead {
				return fmt.Errorf("the branch moved to %s", h)
			}
			return expectBranch(t, gitops, want)(s)
		}
	}
	wrote := func(want string) func(*terraform.State) error {
		return func(s *terraform.State) error {
			if h := head(); h == lastHead {
				return fmt.Errorf("nothing was written")
			}
			lastHead = head()
			return expectBranch(t, gitops, want)(s)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The first apply writes only the canary.
				Config: v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changes("clusters/drone/app.yaml", "clusters/.kalypso-gitops-commit"), status("current", "waiting", "waiting"),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": knownvalue.StringExact("canary"), "cluster_types": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("drone")}),
						"state": knownvalue.StringExact("current"), "pending_files": knownvalue.StringExact("0"), "pending_cluster_types": knownvalue.StringExact("0 of 4"),
						"reason": knownvalue.StringExact("waits: 0/1 clusters succeeded; d0000001 has not reported")})),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status").AtSliceIndex(1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"pending_files": knownvalue.StringExact("2"), "pending_cluster_types": knownvalue.StringExact("2 of 4"), "reason": knownvalue.StringExact("waits for canary")})),
				}},
				Check: func(s *terraform.State) error {
					canaryCommit = head()
					return wrote("drone=1 promoted=")(s)
				},
			},
			{
				// No status, then a pending one, then a success on the commit before the canary's: nothing to write.
				Config: v1, ConfigPlanChecks: noWrite, Check: held("drone=1 promoted="),
			},
			{
				PreConfig: func() {
					post(canaryCommit, "d0000001", "pending", 0)
					post(strings.TrimSpace(gitserver.Git(t, "", nil, "--git-dir", gitops, "rev-parse", "dev~1")), "d0000001", "success", time.Hour)
				},
				Config: v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("current", "waiting", "waiting"),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status").AtSliceIndex(0).AtMapKey("reason"),
						knownvalue.StringExact("waits: 0/1 clusters succeeded; d0000001: dev: reconciliation pending"))}},
				Check: held("drone=1 promoted="),
			},
			{
				// A success younger than the soak: still nothing.
				PreConfig: func() { post(canaryCommit, "d0000001", "success", 10*time.Minute) },
				Config:    v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status").AtSliceIndex(0).AtMapKey("reason"),
						knownvalue.StringExact("waits: 0/1 clusters succeeded; d0000001 soaking (soak 30m0s)"))}},
				Check: held("drone=1 promoted="),
			},
			{
				// Soaked: the west is written.
				PreConfig: func() { gh.Age("org/gitops", canaryCommit, 30*time.Minute) },
				Config:    v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changes("clusters/west-1/app.yaml", "clusters/west-2/app.yaml"), status("done", "current", "waiting")}},
				Check: wrote("drone=1 west-1=1 west-2=1 promoted="),
			},
			{
				// Two of the west's three clusters fail, more than max_failures 1: halted, nothing written.
				PreConfig: func() {
					post(head(), "a0000001", "success", time.Hour)
					post(head(), "b0000001", "failure", time.Hour)
					post(head(), "b0000002", "failure", time.Hour)
				},
				Config:           v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("done", "halted", "blocked")}},
				Check:            held("drone=1 west-1=1 west-2=1 promoted="),
			},
			{
				// One recovers: within max_failures; paused writes nothing even so.
				PreConfig:        func() { post(head(), "b0000002", "success", time.Hour) },
				Config:           rolloutFilesConfig(gh, gitops, "1", m1, "paused = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("done", "done", "paused")}},
				Check:            held("drone=1 west-1=1 west-2=1 promoted="),
			},
			{
				// Unpaused: the last wave writes the east and the promoted commit.
				Config: v1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changes("clusters/east/app.yaml", ".github/tracking/Promoted_Commit_Id"), status("done", "done", "current")}},
				Check: wrote("drone=1 east=1 west-1=1 west-2=1 promoted=" + m1[:7]),
			},
			{
				// A new version while the east has not reported: the rollout starts again at the canary; the
				// other folders keep version 1, and the promoted commit stays m1.
				Config: rolloutFilesConfig(gh, gitops, "2", m2, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changes("clusters/drone/app.yaml"), status("current", "waiting", "waiting")}},
				Check: wrote("drone=2 east=1 west-1=1 west-2=1 promoted=" + m1[:7]),
			},
			{
				// Every cluster reports version 2 where it has it: wave by wave to the end.
				PreConfig: func() { post(head(), "d0000001", "success", time.Hour) },
				Config:    rolloutFilesConfig(gh, gitops, "2", m2, ""),
				Check:     wrote("drone=2 east=1 west-1=2 west-2=2 promoted=" + m1[:7]),
			},
			{
				PreConfig: func() {
					for _, c := range []string{"d0000001", "a0000001", "b0000001", "b0000002"} {
						post(head(), c, "success", time.Hour)
					}
				},
				Config: rolloutFilesConfig(gh, gitops, "2", m2, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changes("clusters/east/app.yaml", ".github/tracking/Promoted_Commit_Id"), status("done", "done", "current")}},
				Check: wrote("drone=2 east=2 west-1=2 west-2=2 promoted=" + m2[:7]),
			},
			{
				// After the last wave the plan is empty, and stays so once the east reports.
				PreConfig:         func() { post(head(), "e0000001", "success", time.Hour) },
				Config:            rolloutFilesConfig(gh, gitops, "2", m2, ""),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("done", "done", "done")}},
				Check:             held("drone=2 east=2 west-1=2 west-2=2 promoted=" + m2[:7]),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact(m2))},
			},
		},
	})
}

// Render mode through the terraform CLI: waves by name, by labels and the rest over the tutorial's dev
// environment (drone; the west-us cluster types small and large; command-center). Two plans of the same
// inputs give the same membership in their JSON, the plan warns which waves stay behind, and the apply
// writes only the canary's folder.
func TestAccGitopsCommit_rolloutRenderModeMembership_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	c := fixtures.Load(t, "tutorial-dev")
	gitops, _, _ := rolloutRepo(t)
	gh := mockgithub.Start(t, rolloutToken)
	dir := t.TempDir()
	main := "terraform {\n  required_providers {\n    kalypso = { source = \"" + registryAddress + "\" }\n  }\n}\n" +
		rolloutResource(gh, gitops, c.PromotedCommit, fmt.Sprintf(`  render = { environment = "dev", manifests = %s }
  rollout = {
    waves = [
      { name = "canary", cluster_types = ["drone"], soak_time = "30m" },
      { name = "west", cluster_type_labels = { region = "west-us" } },
      { name = "rest" },
    ]
    github_statuses = {}
  }
`, hclManifestList(t, c)))
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLI(t, dir)
	tf.mustRun("init", "-input=false", "-no-color")
	membership := func(planFile string) string {
		out := tf.mustRun("plan", "-input=false", "-no-color", "-out="+planFile)
		if !strings.Contains(out, "Warning: Rollout: waves stay behind") || !strings.Contains(out, "this apply writes wave canary (drone:") {
			t.Errorf("the plan does not say which waves stay behind:\n%s", out)
		}
		var p plannedChanges
		if err := json.Unmarshal([]byte(tf.mustRun("show", "-json", planFile)), &p); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p.ResourceChanges[0].Change.After["rollout_status"])
		return string(b)
	}
	first, second := membership("p1"), membership("p2")
	if first != second {
		t.Errorf("two plans of the same inputs differ:\n%s\n%s", first, second)
	}
	for _, want := range []string{`"cluster_types":["drone"],"name":"canary"`, `"cluster_types":["large","small"],"name":"west"`, `"cluster_types":["command-center"],"name":"rest"`} {
		if !strings.Contains(first, want) {
			t.Errorf("rollout_status lacks %s:\n%s", want, first)
		}
	}
	tf.mustRun("apply", "-input=false", "-no-color", "p2")
	var folders []string
	for f := range gitserver.Files(t, gitops, "dev") {
		if rel, ok := strings.CutPrefix(f, "clusters/"); ok && strings.Contains(rel, "/") {
			folders = append(folders, strings.SplitN(rel, "/", 2)[0])
		}
	}
	sort.Strings(folders)
	if got := strings.Join(slices.Compact(folders), " "); got != "drone" {
		t.Errorf("the first apply wrote the folders %q, want only drone's", got)
	}
	if out, code := tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the canary's apply is not empty (exit %d):\n%s", code, out)
	}
}

// The same flow with the Azure Resource Graph source against its mock: the canary first; the rest once the
// canary's cluster is Compliant with the canary's commit; a Non-Compliant cluster beyond max_failures halts.
func TestAccGitopsCommit_rolloutWaves_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	gitops, m1, _ := rolloutRepo(t)
	s := mockresourcegraph.Start(t, nil)
	files := map[string]string{"drone/app.yaml": "v1", "west/app.yaml": "v1"}
	cfg := fmt.Sprintf(`
resource "kalypso_gitops_commit" "dev" {
  repository_url      = %[1]q
  branch              = "dev"
  path                = "clusters"
  deletion_protection = false
  files               = %[2]s
  promoted_commit_id  = %[3]q
  rollout = {
    waves    = [{ name = "canary", cluster_types = ["drone"] }, { name = "rest" }]
    expected = { clusters = { drone = ["drone-1"], west = ["west-1", "west-2"] } }
    azure_resource_graph = {
      endpoint       = %[4]q
      subscriptions  = ["0000"]
      repository_url = "https://github.com/org/gitops"
    }
  }
}
`, "file://"+filepath.ToSlash(gitops), hclMap(files), m1, s.URL)
	head := func() string { return gitserver.Head(t, gitops, "dev") }
	row := func(cluster, state string) map[string]any {
		return mockresourcegraph.FluxConfiguration(cluster, "dev", state, "dev@sha1:"+head(), time.Now().Add(-time.Hour))
	}
	status := func(states ...string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status"), knownvalue.ListExact(waveStates(states...)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: rolloutAzureFactories(s),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("current", "waiting")}},
				Check: expectBranch(t, gitops, "drone=v1 promoted=")},
			{
				PreConfig: func() { s.SetRows([]map[string]any{row("drone-1", "Non-Compliant")}) },
				Config:    cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("halted", "blocked"),
					plancheck.ExpectKnownValue("kalypso_gitops_commit.dev", tfjsonpath.New("rollout_status").AtSliceIndex(0).AtMapKey("reason"),
						knownvalue.StringRegexp(regexp.MustCompile(`^halted: 1 of 1 clusters failed, more than max_failures 0; 0/1 clusters succeeded$`)))}},
				Check: expectBranch(t, gitops, "drone=v1 promoted="),
			},
			{
				PreConfig: func() { s.SetRows([]map[string]any{row("drone-1", "Compliant")}) },
				Config:    cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{status("done", "current")}},
				Check: expectBranch(t, gitops, "drone=v1 west=v1 promoted="+m1[:7]),
			},
		},
	})
}

// examples/rollout over upstream's sample, through the terraform CLI and OpenTofu: each apply writes one
// wave of dev (drone; then the west-us cluster types large and small; then command-center with the
// promoted commit), each once the earlier waves' clusters posted success as Flux does, and the plan after
// each apply is empty until a cluster reports. The rolled-out branch is upstream's dev tree, byte for byte.
func TestAccGitopsCommit_rolloutExample_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "rollout", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{"terraform": "terraform"}
	if tofu := tofuBinary(); tofu != "" {
		bins["opentofu"] = tofu
	} else if os.Getenv("KALYPSO_REQUIRE_TOFU") != "" {
		t.Fatal("KALYPSO_REQUIRE_TOFU is set but no OpenTofu binary was found")
	}
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			org := filepath.Join(root, "microsoft")
			_, promoted := fixtures.ControlPlanePinnedRepo(t, org) // dev's BaseRepo pins main's first commit
			fixtures.SvcSrcRepo(t, org)
			gitops := gitserver.NewBareRepo(t, org, "kalypso-gitops", "main")
			gh := mockgithub.Start(t, "")
			dir := t.TempDir()
			cfg := strings.Replace(string(example), `source = "kalypso/kalypso"`, `source = "`+registryAddress+`"`, 1)
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			tf := newTerraformCLI(t, dir)
			tf.bin = bin
			vars := []string{"-input=false", "-no-color", "-var", "git_mirror=" + gitserver.Start(t, root, gitserver.Options{}).URL + "/",
				"-var", "github_base_url=" + gh.BaseURL(), "-var", "allow_loopback_http=true"}
			tf.mustRun("init", "-input=false", "-no-color")
			folders := func() string {
				seen := map[string]bool{}
				for f := range gitserver.Files(t, gitops, "dev") {
					if i := strings.IndexByte(f, '/'); i > 0 {
						seen[f[:i]] = true
					}
				}
				var out []string
				for f := range seen {
					out = append(out, f)
				}
				sort.Strings(out)
				return strings.Join(out, " ")
			}
			report := func(cts ...string) {
				head := gitserver.Head(t, gitops, "dev")
				for i, ct := range cts {
					gh.AddStatus("microsoft/kalypso-gitops", head, mockgithub.Status{State: "success", Context: fmt.Sprintf("kustomization/%s/%08x", ct, i+1),
						Description: "reconciliation succeeded", UpdatedAt: time.Now().Add(-time.Hour)})
				}
			}
			step := func(wantFolders, wantOutput string) {
				t.Helper()
				tf.mustRun(append([]string{"apply", "-auto-approve"}, vars...)...)
				if got := folders(); got != wantFolders {
					t.Errorf("after the apply dev holds %q, want %q", got, wantFolders)
				}
				if out := tf.mustRun("output", "-json", "rollout"); !strings.Contains(out, wantOutput) {
					t.Errorf("rollout output %s\nlacks %s", out, wantOutput)
				}
				if out, code := tf.run(append([]string{"plan", "-detailed-exitcode"}, vars...)...); code != 0 {
					t.Errorf("the plan after the apply is not empty (exit %d):\n%s", code, out)
				}
			}
			step("drone", `"canary (drone): current, waits: 0/1 clusters succeeded; no cluster of cluster type drone reported (at least 1 expected)"`)
			report("drone")
			step("drone large small", `"west (large, small): current, waits: 0/2 clusters succeeded; `)
			report("drone", "large", "small")
			west := gitserver.Head(t, gitops, "dev")
			step(".github command-center drone large small", `"rest (command-center): current, waits: 0/1 clusters succeeded;`)
			// Each wave's last known good, as the last apply's plan found it: the canary and the west are
			// healthy on the west's commit, command-center has not reported yet.
			if out := strings.TrimSpace(tf.mustRun("output", "-json", "last_known_good")); out != fmt.Sprintf(`{"canary":%q,"rest":null,"west":%q}`, west, west) {
				t.Errorf("last_known_good output %s", out)
			}
			files, got := fixtures.SplitTracking(gitserver.Files(t, gitops, "dev"))
			delete(files, ".kalypso-gitops-commit")
			if got != promoted {
				t.Errorf("Promoted_Commit_Id %q, want %s", got, promoted)
			}
			if d := fixtures.DiffTrees(want, files); d != "" {
				t.Errorf("the rolled-out branch differs from upstream's dev tree:\n%s", d)
			}
		})
	}
}

// A saved plan through the terraform CLI: a canary status that arrives between `plan -out` and `apply`
// does not change what the apply does (Terraform plans again before applying, and the plan's decision
// stands), and a canary failure that makes the saved plan's wave unsafe refuses the apply with nothing
// written instead of "inconsistent final plan".
func TestAccGitopsCommit_rolloutSavedPlan_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	gitops, m1, _ := rolloutRepo(t)
	gh := mockgithub.Start(t, rolloutToken)
	dir := t.TempDir()
	cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"" + registryAddress + "\" }\n  }\n}\n" + rolloutFilesConfig(gh, gitops, "1", m1, "")
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLI(t, dir)
	tf.mustRun("init", "-input=false", "-no-color")
	tf.mustRun("apply", "-input=false", "-no-color", "-auto-approve")
	head := gitserver.Head(t, gitops, "dev")
	post := func(state string, ago time.Duration) {
		gh.AddStatus("org/gitops", gitserver.Head(t, gitops, "dev"), mockgithub.Status{State: state, Context: "kustomization/dev/d0000001", UpdatedAt: time.Now().Add(-ago)})
	}

	post("pending", 0)
	tf.mustRun("plan", "-input=false", "-no-color", "-out=p1") // rollout_status changes; nothing to write
	post("success", time.Hour)                                 // the canary is done before the apply
	tf.mustRun("apply", "-input=false", "-no-color", "p1")
	if got := gitserver.Head(t, gitops, "dev"); got != head {
		t.Fatalf("the saved plan wrote nothing, but its apply moved the branch to %s", got)
	}

	out := tf.mustRun("plan", "-input=false", "-no-color", "-out=p2")
	if !strings.Contains(out, "this apply writes wave west (west-1, west-2: 2 files)") {
		t.Fatalf("the next plan does not write the west:\n%s", out)
	}
	post("failure", 0) // the canary fails before the apply
	out, code := tf.run("apply", "-input=false", "-no-color", "p2")
	if code == 0 || !strings.Contains(out, "The rollout changed since the plan") || !regexp.MustCompile(`Nothing\s+was\s+written`).MatchString(out) || strings.Contains(out, "inconsistent final plan") {
		t.Fatalf("the apply of a plan whose wave became unsafe (exit %d):\n%s", code, out)
	}
	if got := gitserver.Head(t, gitops, "dev"); got != head {
		t.Errorf("the refused apply moved the branch to %s", got)
	}
	if out := tf.mustRun("plan", "-input=false", "-no-color"); !strings.Contains(out, "Warning: Rollout halted") {
		t.Errorf("the plan after the refusal does not say the rollout halted:\n%s", out)
	}
}
