// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// These tests drive the real terraform binary (newTerraformCLI) against a real smart-HTTP Git server
// (git http-backend) whose handler is wrapped to inject faults between `terraform plan -out` and
// `terraform apply <plan>`, or to hold a push while Terraform is interrupted.

const (
	faultToken   = "ghp_FAULTS0123456789abcdefSECRET"
	faultRevoked = "ghp_REVOKED0123456789abcdefSECRET"
)

// faultOutsideFiles are outside path, or dot-entries at its root: no fault and no apply may change them.
var faultOutsideFiles = map[string]string{
	"README.md":                 "# fleet\n",
	"apps/team-a/deploy.yaml":   "kind: Deployment\n",
	".github/workflows/ci.yaml": "on: push\n",
	"clusters/.sops.yaml":       "creation_rules: []\n",
}

var (
	faultV1 = map[string]string{"drone/README.md": "drone", "drone/t1/namespace.yaml": "kind: Namespace\n"}
	faultV2 = map[string]string{"drone/README.md": "drone v2", "large/README.md": "large"}
)

type faultRig struct {
	t    *testing.T
	tf   *terraformCLI
	work string
	repo string
	path string // the resource's path
	srv  *gitserver.Server
	// outputs collects every terraform output, scanned for secrets at the end.
	outputs []string
}

func newFaultRig(t *testing.T, providerExtra string) *faultRig {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	root := t.TempDir()
	r := &faultRig{t: t, work: t.TempDir(), path: "clusters"}
	r.repo = gitserver.NewSeededRepo(t, root, "fleet.git", "main", faultOutsideFiles)
	r.srv = gitserver.Start(t, root, gitserver.Options{Token: faultToken})
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", faultToken)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH", filepath.Join(r.work, "tf-trace.log"))
	r.tf = newTerraformCLI(t, r.work)
	r.write(faultV1, providerExtra)
	r.must("init", "-input=false", "-no-color")
	return r
}

func (r *faultRig) write(files map[string]string, providerExtra string) {
	r.t.Helper()
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    kalypso = { source = \"kalypso/kalypso\" }\n  }\n}\n\n")
	fmt.Fprintf(&b, "provider \"kalypso\" {\n  cache_dir = %s\n%s\n}\n\n", gitopsHCL(filepath.Join(r.work, "cache")), providerExtra)
	fmt.Fprintf(&b, "resource \"kalypso_gitops_commit\" \"test\" {\n  repository_url = %s\n  branch = \"main\"\n  path = %s\n  files = {\n", gitopsHCL(r.srv.RepoURL("fleet.git")), gitopsHCL(r.path))
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "    %s = %s\n", gitopsHCL(n), gitopsHCL(files[n]))
	}
	b.WriteString("  }\n}\n")
	if err := os.WriteFile(filepath.Join(r.work, "main.tf"), []byte(b.String()), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func (r *faultRig) run(args ...string) (string, int) {
	r.t.Helper()
	out, code := r.tf.run(args...)
	r.outputs = append(r.outputs, out)
	return out, code
}

func (r *faultRig) must(args ...string) string {
	r.t.Helper()
	out, code := r.run(args...)
	if code != 0 {
		r.t.Fatalf("terraform %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// planExit runs `terraform plan -detailed-exitcode` (0: no changes, 2: changes) with extra flags.
func (r *faultRig) planExit(extra ...string) (string, int) {
	r.t.Helper()
	return r.run(append([]string{"plan", "-input=false", "-no-color", "-detailed-exitcode"}, extra...)...)
}

// state reads files and commit_sha of the resource from `terraform show -json`.
func (r *faultRig) state() (map[string]string, string) {
	r.t.Helper()
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(r.must("show", "-json")), &st); err != nil {
		r.t.Fatal(err)
	}
	for _, res := range st.Values.RootModule.Resources {
		if res.Address == gitopsAddr {
			files := map[string]string{}
			for k, v := range res.Values["files"].(map[string]any) {
				files[k] = v.(string)
			}
			sha, _ := res.Values["commit_sha"].(string)
			return files, sha
		}
	}
	r.t.Fatalf("%s not in state", gitopsAddr)
	return nil, ""
}

// expectRemote asserts the whole branch tree (outside files untouched, managed files == managed) and commit count.
func (r *faultRig) expectRemote(managed map[string]string, commits int) {
	r.t.Helper()
	want := fixtures.Merge(faultOutsideFiles, gitopsManaged(r.path, managed))
	if got := gitserver.Files(r.t, r.repo, "main"); !reflect.DeepEqual(got, want) {
		r.t.Errorf("branch tree:\n got %v\nwant %v", got, want)
	}
	if n := gitserver.CommitCount(r.t, r.repo, "main"); n != commits {
		r.t.Errorf("branch has %d commits, want %d", n, commits)
	}
	if n := gitserver.ParentCount(r.t, r.repo, "main"); n != 1 {
		r.t.Errorf("head has %d parents, want 1", n)
	}
}

// expectStateMatchesRemote asserts the state's files and commit_sha equal the branch.
func (r *faultRig) expectStateMatchesRemote(managed map[string]string) {
	r.t.Helper()
	files, sha := r.state()
	if !reflect.DeepEqual(files, managed) {
		r.t.Errorf("state files %v, want %v", files, managed)
	}
	if head := gitserver.Head(r.t, r.repo, "main"); sha != head {
		r.t.Errorf("state commit_sha %s, branch head %s", sha, head)
	}
}

// converge applies the configuration and checks the next plan is empty, the branch holds v2 in one
// more commit (commits in total), and the state matches it.
func (r *faultRig) converge(commits int) {
	r.t.Helper()
	r.must("apply", "-input=false", "-no-color", "-auto-approve")
	if out, code := r.planExit(); code != 0 {
		r.t.Errorf("plan after the converging apply is not empty (exit %d):\n%s", code, out)
	}
	if out, code := r.planExit("-refresh=false"); code != 0 {
		r.t.Errorf("plan -refresh=false after the converging apply is not empty (exit %d):\n%s", code, out)
	}
	r.expectRemote(faultV2, commits)
	r.expectStateMatchesRemote(faultV2)
}

// scan fails when a secret appears in any terraform output (plan, apply, diagnostics), any file of
// the working directory (state files and backups, saved plans, the TF_LOG=trace log of Terraform and
// of the provider), or the provider's Git cache (cache_dir).
func (r *faultRig) scan(secrets ...string) {
	r.t.Helper()
	for i, out := range r.outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				r.t.Errorf("terraform output %d contains a secret:\n%s", i, out)
			}
		}
	}
	var sawLog, sawState bool
	err := filepath.Walk(r.work, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sawLog = sawLog || strings.HasSuffix(p, "tf-trace.log") && bytes.Contains(b, []byte("kalypso_gitops_commit"))
		sawState = sawState || strings.HasSuffix(p, ".tfstate")
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				r.t.Errorf("secret found in %s", p)
			}
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	if !sawLog || !sawState {
		r.t.Errorf("the secret scan saw no trace log (%v) or state file (%v)", sawLog, sawState)
	}
}

// TestAccGitopsCommit_FaultsBetweenPlanAndApply injects each Git fault after `terraform plan -out` and
// before `terraform apply <plan>`. After the failed apply: the diagnostic is clear and holds no secret,
// the branch holds no partial commit and nothing outside path changed, the state still matches the
// remote (a refresh-only plan is empty, or for a push whose answer was lost shows exactly that drift),
// and a later apply converges with exactly one commit for the change.
func TestAccGitopsCommit_FaultsBetweenPlanAndApply(t *testing.T) { //nolint:paralleltest // newFaultRig sets GIT_TOKEN and TF_LOG with t.Setenv for the terraform it runs
	cases := []struct {
		name     string
		provider string
		arm      func(r *faultRig) (disarm func())
		// wantErr matches the failed apply's output; "" means the apply succeeds (force-push).
		wantErr string
		// landed: the push reached the branch although the apply failed.
		landed bool
		// stale: the branch changed under path after the plan; the apply refuses and writes nothing.
		stale bool
	}{
		{
			name: "500 on receive-pack",
			arm: func(r *faultRig) func() {
				r.srv.SetWrap(gitserver.Status(gitserver.ReceivePack, http.StatusInternalServerError, nil))
				return func() { r.srv.SetWrap(nil) }
			},
			wantErr: `Cannot deliver the files to Git`,
		},
		{
			name: "connection cut mid-pack",
			arm: func(r *faultRig) func() {
				r.srv.SetWrap(gitserver.CutRequest(gitserver.ReceivePack, 64, nil))
				return func() { r.srv.SetWrap(nil) }
			},
			wantErr: `Cannot deliver the files to Git`,
		},
		{
			name: "auth revoked",
			arm: func(r *faultRig) func() {
				r.srv.SetToken(faultRevoked)
				return func() { r.srv.SetToken(faultToken) }
			},
			// Terraform plans again right before applying a saved plan, so the revoked token is found there.
			wantErr: `(?s)Git authentication failed.*authentication failed.*git_token`,
		},
		{
			name:     "slow server beyond git_timeout",
			provider: `  git_timeout = "10s"`, // generous: every fetch of plan and apply must fit in it on a loaded machine
			arm: func(r *faultRig) func() {
				release := make(chan struct{})
				r.srv.SetWrap(gitserver.Block(gitserver.ReceivePack, release, nil, nil, nil))
				return func() { r.srv.SetWrap(nil); close(release) }
			},
			wantErr: `(?s)Cannot deliver the files to Git.*timed out.*git_timeout`,
		},
		{
			name: "answer lost after the push landed",
			arm: func(r *faultRig) func() {
				r.srv.SetWrap(gitserver.StatusAfter(gitserver.ReceivePack, http.StatusBadGateway, nil))
				return func() { r.srv.SetWrap(nil) }
			},
			wantErr: `Cannot deliver the files to Git`,
			landed:  true,
		},
		{
			name: "force-push by another writer rewrites the branch and edits under path",
			arm: func(r *faultRig) func() {
				// The other writer drops our v1 commit, edits a file outside path and writes one inside it.
				seed := gitserver.Git(r.t, "", nil, "--git-dir", r.repo, "rev-list", "--max-parents=0", "main")
				gitserver.Git(r.t, "", nil, "--git-dir", r.repo, "branch", "-f", "rewrite", seed)
				sha := gitserver.Commit(r.t, r.repo, "rewrite", "rewrite", map[string]string{
					"README.md":             "# fleet, rewritten\n",
					"clusters/drone/x.yaml": "by the other writer\n",
				}, nil)
				gitserver.Git(r.t, "", nil, "--git-dir", r.repo, "update-ref", "refs/heads/main", sha)
				return func() {}
			},
			wantErr: `(?s)The branch changed since the plan.*Nothing was written.*plan again`,
			stale:   true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newFaultRig(t, c.provider)
			r.must("apply", "-input=false", "-no-color", "-auto-approve")
			r.expectRemote(faultV1, 2)
			r.expectStateMatchesRemote(faultV1)
			headV1 := gitserver.Head(t, r.repo, "main")

			r.write(faultV2, c.provider)
			r.must("plan", "-input=false", "-no-color", "-out=tfplan")
			disarm := c.arm(r)
			out, code := r.run("apply", "-input=false", "-no-color", "tfplan")
			disarm()

			if code == 0 {
				t.Fatalf("apply succeeded despite the fault:\n%s", out)
			}
			if !regexp.MustCompile(c.wantErr).MatchString(out) {
				t.Errorf("apply output does not match %q:\n%s", c.wantErr, out)
			}
			if strings.Contains(out, "panic") {
				t.Errorf("panic:\n%s", out)
			}
			if c.stale {
				// Nothing of ours was written: the branch is the other writer's, v1 is gone with the rewrite.
				rewritten := fixtures.Merge(faultOutsideFiles, map[string]string{"README.md": "# fleet, rewritten\n", "clusters/drone/x.yaml": "by the other writer\n"})
				if got := gitserver.Files(t, r.repo, "main"); !reflect.DeepEqual(got, rewritten) {
					t.Errorf("branch tree after the refused apply:\n got %v\nwant %v", got, rewritten)
				}
				// A new plan shows the other writer's file under path as a deletion; its apply keeps the change outside path.
				out := r.must("plan", "-input=false", "-no-color")
				if !strings.Contains(out, `"clusters/drone/x.yaml" = {`) || !strings.Contains(out, `action = "delete"`) {
					t.Errorf("the new plan does not show the deletion of the other writer's file:\n%s", out)
				}
				r.must("apply", "-input=false", "-no-color", "-auto-approve")
				want := fixtures.Merge(faultOutsideFiles, map[string]string{"README.md": "# fleet, rewritten\n"}, gitopsManaged("clusters", faultV2))
				if got := gitserver.Files(t, r.repo, "main"); !reflect.DeepEqual(got, want) {
					t.Errorf("branch tree:\n got %v\nwant %v", got, want)
				}
				if n := gitserver.CommitCount(t, r.repo, "main"); n != 3 { // seed, rewrite, ours: v1 is gone
					t.Errorf("branch has %d commits, want 3", n)
				}
				r.expectStateMatchesRemote(faultV2)
				if out, code := r.planExit(); code != 0 {
					t.Errorf("plan after the apply is not empty (exit %d):\n%s", code, out)
				}
			} else if c.landed {
				r.expectRemote(faultV2, 3)
				// The state still says v1; a refresh-only plan shows exactly the landed files as drift.
				files, _ := r.state()
				if !reflect.DeepEqual(files, faultV1) {
					t.Errorf("state files after the failed apply %v, want the prior %v", files, faultV1)
				}
				out, code := r.planExit("-refresh-only")
				if code != 2 || !strings.Contains(out, `"drone v2"`) || !strings.Contains(out, `"large/README.md"`) {
					t.Errorf("refresh-only plan does not show the landed push as drift (exit %d):\n%s", code, out)
				}
				// The configuration already equals the remote: after refresh there is nothing to do.
				if out, code := r.planExit(); code != 0 {
					t.Errorf("plan after the lost answer is not empty (exit %d):\n%s", code, out)
				}
				r.must("apply", "-input=false", "-no-color", "-auto-approve")
				r.expectRemote(faultV2, 3)
				r.expectStateMatchesRemote(faultV2)
			} else {
				if head := gitserver.Head(t, r.repo, "main"); head != headV1 {
					t.Errorf("the branch moved despite the failed apply")
				}
				r.expectRemote(faultV1, 2)
				r.expectStateMatchesRemote(faultV1)
				if out, code := r.planExit("-refresh-only"); code != 0 {
					t.Errorf("refresh-only plan after the fault shows drift (exit %d):\n%s", code, out)
				}
				r.converge(3)
				if parent := gitserver.Git(t, "", nil, "--git-dir", r.repo, "rev-parse", "main^"); parent != headV1 {
					t.Errorf("the converging commit's parent is %s, want %s", parent, headV1)
				}
			}
			r.scan(faultToken, faultRevoked)
		})
	}
}

// startTerraform starts terraform in the rig's directory without waiting for it.
func (r *faultRig) startTerraform(args ...string) (*exec.Cmd, *bytes.Buffer) {
	r.t.Helper()
	cmd := exec.Command("terraform", args...)
	cmd.Dir = r.work
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+r.tf.reattach, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=/dev/null")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd, &out
}

// waitFor returns when ch receives, or fails the test when cmd exits first.
func waitFor(t *testing.T, ch <-chan struct{}, exited <-chan error, out *bytes.Buffer, what string) {
	t.Helper()
	select {
	case <-ch:
	case err := <-exited:
		t.Fatalf("terraform exited (%v) before %s:\n%s", err, what, out.String())
	}
}

// TestAccGitopsCommit_InterruptedApply kills Terraform while the provider's push is on the wire
// and checks that the next plan and apply converge without any state surgery:
//   - SIGINT: Terraform stops the provider, the push is abandoned, nothing lands, the state keeps v1;
//   - SIGKILL before the push lands: the provider's request is cancelled, nothing lands;
//   - SIGKILL after the push landed but before Terraform saved the state: the state still says v1,
//     refresh reads v2 from the branch, and the plan is empty because the configuration already holds.
func TestAccGitopsCommit_InterruptedApply(t *testing.T) { //nolint:paralleltest // newFaultRig sets GIT_TOKEN and TF_LOG with t.Setenv for the terraform it runs
	cases := []struct {
		name   string
		signal syscall.Signal
		landed bool
	}{
		{"SIGINT while the push is held", syscall.SIGINT, false},
		{"SIGKILL while the push is held", syscall.SIGKILL, false},
		{"SIGKILL after the push landed", syscall.SIGKILL, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newFaultRig(t, "")
			r.must("apply", "-input=false", "-no-color", "-auto-approve")
			r.expectRemote(faultV1, 2)
			headV1 := gitserver.Head(t, r.repo, "main")

			entered, gaveUp := make(chan struct{}, 1), make(chan struct{}, 1)
			release := make(chan struct{})
			defer close(release)
			if c.landed {
				r.srv.SetWrap(gitserver.LandThenHang(gitserver.ReceivePack, entered, gaveUp, nil))
			} else {
				r.srv.SetWrap(gitserver.Block(gitserver.ReceivePack, release, entered, gaveUp, nil))
			}
			r.write(faultV2, "")
			cmd, out := r.startTerraform("apply", "-input=false", "-no-color", "-auto-approve")
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitFor(t, entered, exited, out, "the push reached the server")

			if err := cmd.Process.Signal(c.signal); err != nil {
				t.Fatal(err)
			}
			err := <-exited
			r.outputs = append(r.outputs, out.String())
			// The provider gives up on the push: Stop (SIGINT) or a closed plugin connection (SIGKILL),
			// which a killed Terraform may not wait for; the signal is buffered.
			<-gaveUp
			if err == nil {
				t.Fatalf("interrupted apply exited 0:\n%s", out.String())
			}
			r.srv.SetWrap(nil)

			if c.landed {
				r.expectRemote(faultV2, 3)
				// Nothing to do: refresh finds v2, which is the configuration.
				if out, code := r.planExit(); code != 0 {
					t.Errorf("plan after the kill is not empty (exit %d):\n%s", code, out)
				}
				r.must("apply", "-input=false", "-no-color", "-auto-approve")
				r.expectRemote(faultV2, 3)
				r.expectStateMatchesRemote(faultV2)
			} else {
				if head := gitserver.Head(t, r.repo, "main"); head != headV1 {
					t.Fatalf("the branch moved although the push was abandoned")
				}
				r.expectRemote(faultV1, 2)
				if out, code := r.planExit(); code != 2 || !strings.Contains(out, "1 to change") {
					t.Errorf("plan after the interrupt does not update the resource (exit %d):\n%s", code, out)
				}
				r.converge(3)
			}
			if c.signal == syscall.SIGINT && !strings.Contains(out.String(), "Interrupt received") {
				t.Errorf("terraform did not report the interrupt:\n%s", out.String())
			}
			r.scan(faultToken)
		})
	}
}
