// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

const registryAddress = "registry.terraform.io/kalypso/kalypso"

// terraformCLI runs the real terraform binary against an in-process provider that Terraform reattaches to,
// so that an example can be run as users run it: with its own terraform block, for_each and all.
// (terraform-plugin-testing cannot read back state that holds for_each instances keyed by string.)
type terraformCLI struct {
	t        *testing.T
	dir      string
	reattach string
	// bin is the CLI run: "terraform", or an OpenTofu binary (tofuBinary).
	bin string
	// lastPlan is the output of the last plan, with its warnings.
	lastPlan string
}

func newTerraformCLI(t *testing.T, dir string) *terraformCLI {
	t.Helper()
	return newTerraformCLIWith(t, dir, New("test", testCaches))
}

// newTerraformCLIWith is newTerraformCLI with a provider of the test's own (rolloutAzureFactories' reads
// Resource Graph from a local server).
func newTerraformCLIWith(t *testing.T, dir string, newProvider func() provider.Provider) *terraformCLI {
	t.Helper()
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform is not on PATH")
	}
	ctx, cancel := context.WithCancel(context.Background())
	configCh := make(chan *plugin.ReattachConfig)
	closeCh := make(chan struct{})
	go func() {
		err := tf6server.Serve(registryAddress,
			NewProtocol6Server(newProvider),
			tf6server.WithDebug(ctx, configCh, closeCh),
			tf6server.WithGoPluginLogger(hclog.New(&hclog.LoggerOptions{Output: io.Discard})),
			// Provider logs follow TF_LOG as in terraform-plugin-testing, instead of flooding stderr at trace level.
			tf6server.WithLoggingSink(t),
		)
		if err != nil {
			t.Errorf("serving the provider: %v", err)
		}
	}()
	cfg := <-configCh
	t.Cleanup(func() {
		cancel()
		<-closeCh
	})
	reattach, err := json.Marshal(map[string]any{registryAddress: map[string]any{
		"Protocol": string(cfg.Protocol), "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": cfg.Test,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &terraformCLI{t: t, dir: dir, reattach: string(reattach), bin: "terraform"}
}

// run executes terraform and returns stdout; exitCode is returned for -detailed-exitcode callers.
func (c *terraformCLI) run(args ...string) (string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+c.reattach, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=/dev/null")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return stdout.String() + stderr.String(), exitErr.ExitCode()
	}
	if err != nil {
		c.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), 0
}

func (c *terraformCLI) mustRun(args ...string) string {
	c.t.Helper()
	out, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("terraform %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// plannedChanges is the part of `terraform show -json <plan>` the test reads.
type plannedChanges struct {
	ResourceChanges []struct {
		Address string `json:"address"`
		Change  struct {
			Actions []string       `json:"actions"`
			After   map[string]any `json:"after"`
			Unknown map[string]any `json:"after_unknown"`
		} `json:"change"`
	} `json:"resource_changes"`
	OutputChanges map[string]struct {
		After        any  `json:"after"`
		AfterUnknown bool `json:"after_unknown"`
	} `json:"output_changes"`
}

func (p *plannedChanges) actions(address string) string {
	for _, rc := range p.ResourceChanges {
		if rc.Address == address {
			return strings.Join(rc.Change.Actions, ",")
		}
	}
	return "absent"
}

// renderSummary reads the planned `render_summary` of a kalypso_gitops_commit.
func (p *plannedChanges) renderSummary(t *testing.T, address string) map[string]any {
	t.Helper()
	for _, rc := range p.ResourceChanges {
		if rc.Address == address {
			summary, _ := rc.Change.After["render_summary"].(map[string]any)
			return summary
		}
	}
	t.Fatalf("no planned change for %s", address)
	return nil
}

// fileChange is one entry of kalypso_gitops_commit's planned `changes`.
type fileChange struct {
	Action string `json:"action"`
	Diff   string `json:"diff"`
}

// changes reads the planned `changes` of a kalypso_gitops_commit, which must be known at plan time.
func (p *plannedChanges) changes(t *testing.T, address string) map[string]fileChange {
	t.Helper()
	for _, rc := range p.ResourceChanges {
		if rc.Address == address {
			if rc.Change.Unknown["changes"] == true {
				t.Fatalf("%s.changes is unknown in the plan", address)
			}
			b, _ := json.Marshal(rc.Change.After["changes"])
			out := map[string]fileChange{}
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("no planned change for %s", address)
	return nil
}

// deliveredTree is a branch of the GitOps repository without the ownership record and `.github/`,
// comparable with the upstream fixtures' expected trees.
func deliveredTree(t *testing.T, repo, branch string) map[string]string {
	t.Helper()
	all := gitserver.Files(t, repo, branch)
	if _, ok := all[".kalypso-gitops-commit"]; !ok {
		t.Errorf("branch %s has no ownership record", branch)
	}
	delete(all, ".kalypso-gitops-commit")
	tree, _ := fixtures.SplitTracking(all)
	return tree
}

func (c *terraformCLI) plan(varFile string, stage int) *plannedChanges {
	c.t.Helper()
	c.lastPlan = c.mustRun("plan", "-input=false", "-no-color", "-var-file="+varFile, "-var", "stage="+string(rune('0'+stage)), "-out=tfplan")
	var p plannedChanges
	if err := json.Unmarshal([]byte(c.mustRun("show", "-json", "tfplan")), &p); err != nil {
		c.t.Fatalf("reading the plan: %v", err)
	}
	return &p
}

// startTutorial copies examples/tutorial, unmodified, into a temporary directory, seeds its application and
// service source repositories and an empty GitOps repository, writes the variables file (the sources reached
// through git_url_rewrites, plus extra) and runs terraform init. It returns the example's directory, the CLI,
// the variables file and the GitOps repository.
func startTutorial(t *testing.T, extra map[string]any) (example string, tf *terraformCLI, varFile, gitops string) {
	t.Helper()
	example = filepath.Join("..", "..", "examples", "tutorial")
	work := t.TempDir()
	fixtures.WriteTree(t, work, fixtures.ReadTree(t, example, nil))
	root := t.TempDir()
	appSrc := gitserver.NewSeededRepo(t, root, "app-src.git", "main", fixtures.ReadTree(t, filepath.Join(example, "app-src"), nil))
	svcSrc := gitserver.NewSeededRepo(t, root, "svc-src.git", "main", fixtures.ReadTree(t, filepath.Join(example, "svc-src"), nil))
	gitops = gitserver.NewBareRepo(t, root, "gitops.git", "main")
	vars := map[string]any{
		"gitops_repo": "file://" + filepath.ToSlash(gitops),
		"git_url_rewrites": map[string]string{
			"https://github.com/microsoft/kalypso-app-src": "file://" + filepath.ToSlash(appSrc),
			"https://github.com/microsoft/kalypso-svc-src": "file://" + filepath.ToSlash(svcSrc),
		},
	}
	maps.Copy(vars, extra)
	text, err := json.Marshal(vars)
	if err != nil {
		t.Fatal(err)
	}
	varFile = filepath.Join(work, "local.tfvars.json")
	if err := os.WriteFile(varFile, text, 0o600); err != nil {
		t.Fatal(err)
	}
	tf = newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	return example, tf, varFile, gitops
}

// TestAccExampleTutorial_fiveStages runs examples/tutorial, unmodified, through its five stages with the
// terraform CLI against local bare repositories, as `make demo` does, and checks every stage's plan and the
// trees committed to the GitOps repository.
func TestAccExampleTutorial_fiveStages(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	_, tf, varFile, gitops := startTutorial(t, nil)
	devExpected := fixtures.Load(t, "tutorial-dev")
	stageExpected := fixtures.Load(t, "tutorial-stage")

	// Stage 1: hello-world-app is onboarded; only observability has a Dev policy, so the app is unscheduled.
	p := tf.plan(varFile, 1)
	if got := p.renderSummary(t, "kalypso_gitops_commit.dev")["unscheduled_deployment_targets"]; !jsonEqual(got, []any{"hello-world-app-functional-test", "hello-world-app-performance-test"}) {
		t.Errorf("stage 1: render_summary.unscheduled_deployment_targets = %v", got)
	}
	// The engine's warnings are plan warnings of the render-mode resource (the function cannot emit any),
	// each printed once: the tutorial has no check block that would repeat them.
	if !regexp.MustCompile(`(?s)Warning: Unscheduled deployment targets.*with kalypso_gitops_commit.dev`).MatchString(tf.lastPlan) {
		t.Errorf("stage 1: the plan does not warn about the unscheduled deployment targets on kalypso_gitops_commit.dev:\n%s", tf.lastPlan)
	}
	for _, once := range []string{"Unscheduled deployment targets", "API version not served by current reconcilers"} {
		if n := strings.Count(tf.lastPlan, once); n != 1 {
			t.Errorf("stage 1: the plan says %q %d times, want once:\n%s", once, n, tf.lastPlan)
		}
	}
	reconciler := "large/observability-prometheus/reconciler.yaml"
	if got := p.changes(t, "kalypso_gitops_commit.dev")[reconciler]; got.Action != "create" || got.Diff != devExpected.Expected[reconciler] {
		t.Errorf("stage 1: the planned observability reconciler differs from upstream: %+v", got)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")

	// Stage 2: the Dev policies place the app; the plan lists exactly the files that differ from the branch,
	// each with upstream's content, and the branch then holds upstream's tree byte for byte.
	p = tf.plan(varFile, 2)
	if a := p.actions("kalypso_gitops_commit.dev"); a != "update" {
		t.Errorf("stage 2: kalypso_gitops_commit.dev action = %s, want update", a)
	}
	for path, c := range p.changes(t, "kalypso_gitops_commit.dev") {
		want, ok := devExpected.Expected[path]
		switch {
		case !ok:
			t.Errorf("stage 2: planned change of %s, which upstream's tree does not hold", path)
		case c.Action == "create" && c.Diff != want:
			t.Errorf("stage 2: planned content of %s differs from upstream:\n%s", path, c.Diff)
		case c.Action == "update" && !strings.HasPrefix(c.Diff, "--- a/"+path+"\n+++ b/"+path+"\n@@ "):
			t.Errorf("stage 2: planned update of %s is not a unified diff:\n%s", path, c.Diff)
		case c.Action == "delete":
			t.Errorf("stage 2: planned deletion of %s", path)
		}
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")
	if d := fixtures.DiffTrees(devExpected.Expected, deliveredTree(t, gitops, "dev")); d != "" {
		t.Errorf("stage 2: the Dev branch differs from upstream:\n%s", d)
	}

	// Stage 3: promotion creates Stage, byte for byte as upstream; Dev is untouched.
	p = tf.plan(varFile, 3)
	if a := p.actions("kalypso_gitops_commit.stage[0]"); a != "create" {
		t.Errorf("stage 3: kalypso_gitops_commit.stage[0] action = %s, want create", a)
	}
	if a := p.actions("kalypso_gitops_commit.dev"); a != "no-op" {
		t.Errorf("stage 3: kalypso_gitops_commit.dev action = %s, want no-op", a)
	}
	if n := len(p.changes(t, "kalypso_gitops_commit.stage[0]")); n != len(stageExpected.Expected)+2 { // + ownership record and Promoted_Commit_Id
		t.Errorf("stage 3: %d planned changes, want %d", n, len(stageExpected.Expected)+2)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")
	if d := fixtures.DiffTrees(stageExpected.Expected, deliveredTree(t, gitops, "stage")); d != "" {
		t.Errorf("stage 3: the Stage branch differs from upstream:\n%s", d)
	}

	// Stage 4: one platform config change changes exactly one Stage file, shown as a unified diff.
	p = tf.plan(varFile, 4)
	stage4 := p.changes(t, "kalypso_gitops_commit.stage[0]")
	c, ok := stage4["large/hello-world-app-uat-test/platform-config.yaml"]
	if len(stage4) != 1 || !ok || c.Action != "update" ||
		!regexp.MustCompile(`(?m)^\+\s*DATABASE_URL: mysql://west-stage:8806/mysql-stage$`).MatchString(c.Diff) {
		t.Errorf("stage 4: changes = %+v, want only an update of large/hello-world-app-uat-test/platform-config.yaml adding the new DATABASE_URL", stage4)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")

	// Stage 5: a new cluster type joins Stage and the UAT policy, which selects every cluster type, places the app on it.
	p = tf.plan(varFile, 5)
	wantStage := map[string]any{
		"drone/hello-world-app-uat-test": []any{"uat-test-policy"},
		"large/hello-world-app-uat-test": []any{"uat-test-policy"},
		"small/hello-world-app-uat-test": []any{"uat-test-policy"},
	}
	if got := p.OutputChanges["stage_assignments"].After; !jsonEqual(got, wantStage) {
		t.Errorf("stage 5: stage_assignments = %v", got)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")

	// Converged: nothing left to do.
	if out, code := tf.run("plan", "-input=false", "-no-color", "-detailed-exitcode", "-var-file="+varFile, "-var", "stage=5"); code != 0 {
		t.Errorf("plan after stage 5 is not empty (exit %d):\n%s", code, out)
	}

	// One commit per change: Dev at stages 1 and 2, Stage at 3, 4 and 5.
	if n := gitserver.CommitCount(t, gitops, "dev"); n != 2 {
		t.Errorf("dev branch has %d commits, want 2", n)
	}
	if n := gitserver.CommitCount(t, gitops, "stage"); n != 3 {
		t.Errorf("stage branch has %d commits, want 3", n)
	}
	got := gitserver.Files(t, gitops, "stage")
	if got[".github/tracking/Promoted_Commit_Id"] != stageExpected.PromotedCommit {
		t.Errorf("Promoted_Commit_Id = %q, want %q", got[".github/tracking/Promoted_Commit_Id"], stageExpected.PromotedCommit)
	}
	if _, ok := got["small/hello-world-app-uat-test/reconciler.yaml"]; !ok {
		t.Errorf("stage branch lacks the stage-5 assignment")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// promotionOutput is the tutorial's `promotion` output in a plan.
func (p *plannedChanges) promotion(t *testing.T) (moves bool, reason string) {
	t.Helper()
	out, ok := p.OutputChanges["promotion"].After.(map[string]any)
	if !ok {
		t.Fatalf("the plan has no promotion output: %v", p.OutputChanges["promotion"])
	}
	moves, _ = out["moves"].(bool)
	reason, _ = out["reason"].(string)
	return moves, reason
}

// TestAccExampleTutorial_promotionStage_MockGitHubAPI runs the tutorial's stage 6, unmodified, with the
// terraform CLI, as `make demo` does: a registration lands on the control plane's main, Dev renders it,
// and Stage stays while Dev's cluster reports nothing, pending and a failure (statuses posted to the
// GitHub REST contract mock as Flux's notification-controller posts them), then moves.
func TestAccExampleTutorial_promotionStage_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	controlPlane := gitserver.NewSeededRepo(t, t.TempDir(), "control-plane.git", "main", map[string]string{"README.md": "Promoted through the environments."})
	cp0 := gitserver.Head(t, controlPlane, "main")
	gh := mockgithub.Start(t, "")
	example, tf, varFile, gitops := startTutorial(t, map[string]any{
		"control_plane_commit":     cp0,
		"control_plane_repo":       "file://" + filepath.ToSlash(controlPlane),
		"github_base_url":          gh.BaseURL(),
		"gitops_github_repository": "microsoft/kalypso-gitops",
	})
	tf.plan(varFile, 5)
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")

	registration, err := os.ReadFile(filepath.Join(example, "control-plane", "podinfo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cp1 := gitserver.Commit(t, controlPlane, "main", "Register podinfo", map[string]string{"podinfo.yaml": string(registration)}, nil)
	stays := "stage stays at main@" + cp0[:7]

	// Dev renders main's new registration; nothing reported yet, so Stage stays, with both warnings.
	devBefore := gitserver.Head(t, gitops, "dev")
	p := tf.plan(varFile, 6)
	if c := p.changes(t, "kalypso_gitops_commit.dev")["drone/podinfo-functional-test/reconciler.yaml"]; c.Action != "create" {
		t.Errorf("dev: podinfo's functional-test reconciler is not created: %+v", c)
	}
	if a := p.actions("kalypso_gitops_commit.stage[0]"); a != "no-op" {
		t.Errorf("no report: kalypso_gitops_commit.stage[0] action = %s, want no-op", a)
	}
	if moves, reason := p.promotion(t); moves || !strings.HasSuffix(reason, "(0 clusters reported, 1 expected); "+stays) {
		t.Errorf("no report: moves %v, reason %q", moves, reason)
	}
	// Dev's head, written at stage 2 without promoted_commit_id, is named as such (never "main@(none)"), and
	// the warning names the repository whose statuses were read.
	if _, reason := p.promotion(t); !strings.HasPrefix(reason, "dev's GitOps head "+devBefore[:7]+" carries no promoted commit (no .github/tracking/Promoted_Commit_Id): ") {
		t.Errorf("no report: reason %q does not name dev's head %s", reason, devBefore[:7])
	}
	plan := strings.Join(strings.Fields(tf.lastPlan), " ") // terraform wraps diagnostics
	for _, w := range []string{"Warning: No cluster reported", "Warning: Promotion to stage held",
		"The statuses were read from the GitHub repository microsoft/kalypso-gitops;"} {
		if !strings.Contains(plan, w) {
			t.Errorf("no report: the plan lacks %q", w)
		}
	}
	if strings.Contains(plan, "(none)") {
		t.Errorf("no report: the plan names an empty commit:\n%s", tf.lastPlan)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")
	devHead := gitserver.Head(t, gitops, "dev")
	if got := gitserver.Files(t, gitops, "dev")[".github/tracking/Promoted_Commit_Id"]; got != cp1 {
		t.Errorf("dev's Promoted_Commit_Id = %q, want main's head %s", got, cp1)
	}

	for _, step := range []struct{ state, description, reason string }{
		{"pending", "reconciliation in progress", "dev is at main@" + cp1[:7] + ": 0/1 clusters succeeded, 1 progressing; " + stays},
		{"failure", "health check failed", "dev is at main@" + cp1[:7] + ": 0/1 clusters succeeded, 1 failed (4f0c2a11: dev: health check failed); " + stays},
	} {
		postFluxStatusTo(t, gh, "microsoft/kalypso-gitops", devHead, "4f0c2a11", step.state, step.description)
		p = tf.plan(varFile, 6)
		if a := p.actions("kalypso_gitops_commit.stage[0]"); a != "no-op" {
			t.Errorf("%s: kalypso_gitops_commit.stage[0] action = %s, want no-op", step.state, a)
		}
		if moves, reason := p.promotion(t); moves || reason != step.reason {
			t.Errorf("%s: moves %v, reason %q\nwant %q", step.state, moves, reason, step.reason)
		}
	}

	// Success: Stage moves to main's new commit with the files its registration brings.
	postFluxStatusTo(t, gh, "microsoft/kalypso-gitops", devHead, "4f0c2a11", "success", "reconciliation succeeded")
	p = tf.plan(varFile, 6)
	if moves, reason := p.promotion(t); !moves || reason != "dev is at main@"+cp1[:7]+": 1/1 clusters succeeded; stage moves main@"+cp0[:7]+" → main@"+cp1[:7] {
		t.Errorf("success: moves %v, reason %q", moves, reason)
	}
	var created []string
	for path, c := range p.changes(t, "kalypso_gitops_commit.stage[0]") {
		if c.Action == "create" {
			created = append(created, path)
		}
	}
	sort.Strings(created)
	var want []string
	for _, ct := range []string{"drone", "large", "small"} {
		for _, f := range []string{"namespace.yaml", "platform-config.yaml", "reconciler.yaml"} {
			want = append(want, ct+"/podinfo-uat-test/"+f)
		}
	}
	if strings.Join(created, " ") != strings.Join(want, " ") {
		t.Errorf("success: stage creates %v, want %v", created, want)
	}
	tf.mustRun("apply", "-input=false", "-no-color", "tfplan")
	if got := gitserver.Files(t, gitops, "stage")[".github/tracking/Promoted_Commit_Id"]; got != cp1 {
		t.Errorf("stage's Promoted_Commit_Id = %q, want %s", got, cp1)
	}
}
