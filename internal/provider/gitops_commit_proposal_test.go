// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// proposalRig is a lifecycleRig in pull-request mode: GitHub's REST API is a mock (mockgithub, since
// github.com is unreachable from the test machines), Git a real bare repository reached through
// git_url_rewrites from https://github.com/org/fleet.git.
type proposalRig struct {
	*lifecycleRig
	gh    *mockgithub.Server
	token string
}

// The provider runs in the test process, where parallel tests cannot set GIT_TOKEN: the token is in the
// provider block.
func newProposalRig(t *testing.T, token string, seed map[string]string) *proposalRig {
	t.Helper()
	return &proposalRig{lifecycleRig: newLifecycleRig(t, seed), gh: mockgithub.Start(t, token), token: token}
}

// write replaces main.tf with the provider (mock GitHub, rewrites to the local repository) and body.
func (r *proposalRig) write(body string) {
	r.t.Helper()
	cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"registry.terraform.io/kalypso/kalypso\" }\n  }\n}\n\n" +
		fmt.Sprintf("provider \"kalypso\" {\n  cache_dir = %s\n  git_token = %s\n  allow_loopback_http = true # the GitHub REST mock is plain http on 127.0.0.1\n  github_base_url = %s\n  git_url_rewrites = { %s = %s }\n}\n\n",
			gitopsHCL(filepath.Join(r.work, "cache")), gitopsHCL(r.token), gitopsHCL(r.gh.BaseURL()), gitopsHCL("https://github.com/org/"), gitopsHCL("file://"+r.root+"/")) + body
	if err := os.WriteFile(filepath.Join(r.work, "main.tf"), []byte(cfg), 0o600); err != nil {
		r.t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.work, ".terraform")); err != nil {
		r.tf.mustRun("init", "-input=false", "-no-color")
	}
}

// expectPRs compares the mock's pull requests of org/fleet (number, state, merged, head, base) with want.
func (r *proposalRig) expectPRs(what string, want ...mockgithub.PR) {
	r.t.Helper()
	got := r.gh.PRs("org/fleet")
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		g, w := got[i], want[i]
		ok = g.Number == w.Number && g.State == w.State && g.Merged == w.Merged && g.Head == w.Head && g.Base == w.Base
	}
	if !ok {
		r.t.Fatalf("%s: pull requests %+v, want %+v", what, got, want)
	}
}

// TestAccGitopsCommit_RevertedProposalIsClosed_MockGitHubAPI: a change proposed as pull request #1 and
// reverted in the configuration before it was merged. The plan (against the proposal) says the apply
// closes #1 because nothing is left to propose; the apply closes it, writes no branch, and the re-plan is
// empty. Before, the apply found "nothing to propose", left #1 open with the reverted file on its head
// branch, and every later plan showed the same change. Files mode and render mode.
func TestAccGitopsCommit_RevertedProposalIsClosed_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	c := fixtures.Load(t, "tutorial-dev")
	files := map[string]string{"drone/a.yaml": "a: 1\n"}
	for _, mode := range []struct {
		name     string
		seed     map[string]string
		resource func(changed bool) string
	}{
		{"files", gitopsManaged("clusters", files), func(changed bool) string {
			f := map[string]string{"drone/a.yaml": "a: 1\n"}
			if changed {
				f["drone/b.yaml"] = "b: 1\n"
			}
			return lifecycleResource("https://github.com/org/fleet.git", f, "  pull_request = {}\n")
		}},
		{"render", gitopsManaged("clusters", c.Expected), func(changed bool) string {
			env := c.Environment
			if changed {
				env = "stage"
			}
			return fmt.Sprintf(`resource "kalypso_gitops_commit" "test" {
  repository_url      = "https://github.com/org/fleet.git"
  branch              = "main"
  path                = "clusters"
  deletion_protection = false
  max_delete_percent  = 100
  pull_request        = {}
  render = {
    environment = %q
    manifests   = %s
  }
}
`, env, hclManifestList(t, c))
		}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			r := newProposalRig(t, "ghp_REVERTtest0123456789abcdefABCD", fixtures.Merge(gitopsOutside, mode.seed))
			base := gitserver.Files(t, r.repo, "main")
			r.write(mode.resource(true))
			// The seed's ownership record is this resource's once imported (a create would find it owned).
			r.must("import", "kalypso_gitops_commit.test", "https://github.com/org/fleet.git//clusters?ref=main")
			r.must("apply", "-auto-approve")
			r.expectPRs("after the change", mockgithub.PR{Number: 1, State: "open", Head: "kalypso/main", Base: "main"})
			proposed := gitserver.Head(t, r.repo, "kalypso/main")

			r.write(mode.resource(false))
			out := r.expectExit(2, "plan", "-detailed-exitcode")
			expectOutput(t, "plan of the revert", out, `Warning: The apply closes pull request #1: nothing is left to propose`,
				`branch "main" already holds what the configuration asks for under clusters`, `the apply writes nothing to "main" and closes pull request #1`)
			r.must("apply", "-auto-approve")
			r.expectPRs("after the revert", mockgithub.PR{Number: 1, State: "closed", Head: "kalypso/main", Base: "main"})
			if body := r.gh.PRs("org/fleet")[0].Body; !strings.Contains(body, "Closed by terraform-provider-kalypso: `main` already holds what the configuration asks for under `clusters`") {
				t.Errorf("the closed pull request does not say why:\n%s", body)
			}
			r.expectMain(base, 1)
			if head := gitserver.Head(t, r.repo, "kalypso/main"); head != proposed {
				t.Errorf("the revert wrote the head branch: %s, was %s", head, proposed)
			}
			st := r.tf.mustRun("show", "-json")
			if !strings.Contains(st, `"pull_request_state":"closed"`) || !regexp.MustCompile(`"pull_request_number":"?1"?[,}]`).MatchString(st) {
				t.Errorf("state after the revert:\n%s", st)
			}
			// (-refresh-only -detailed-exitcode exits 2 here under Terraform 1.11 while pull_request_number is a number in
			// state, hashicorp/terraform#36403: issue 35 item 2.)
			r.expectExit(0, "plan", "-detailed-exitcode")
		})
	}
}

// TestAccGitopsCommit_ProposalFollowsAMove_MockGitHubAPI: with pull request #1 open (never merged), a
// change of branch says in the plan that the apply closes #1; the apply opens #2 into the new branch and
// closes #1, which before stayed open and untracked. A change of path on the same branch keeps the head
// branch: #2 is updated in place, with no warning about it. Each re-plan is empty.
func TestAccGitopsCommit_ProposalFollowsAMove_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newProposalRig(t, "ghp_MOVEproposal0123456789abcdefAB", gitopsOutside)
	gitserver.Commit(t, r.repo, "dev", "dev", map[string]string{"README.md": "dev\n"}, nil)
	files := map[string]string{"drone/a.yaml": "a: 1\n"}
	cfg := func(branch, path string) string {
		return gitopsCfg{URL: "https://github.com/org/fleet.git", Branch: branch, Path: path, Files: files, Extra: "  pull_request = {}\n"}.String()[len("provider \"kalypso\" {\n\n}\n\n"):]
	}
	r.write(cfg("main", "clusters"))
	r.must("apply", "-auto-approve")
	r.expectPRs("after the first apply", mockgithub.PR{Number: 1, State: "open", Head: "kalypso/main", Base: "main"})
	mainHead := gitserver.Head(t, r.repo, "main")

	r.write(cfg("dev", "clusters"))
	out := r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "plan of the branch move", out, `Warning: The apply closes pull request #1`,
		`the proposal moves from kalypso/main into main to kalypso/dev into dev, so the apply opens a new pull request there and closes pull request #1`)
	r.must("apply", "-auto-approve")
	r.expectPRs("after the branch move", mockgithub.PR{Number: 1, State: "closed", Head: "kalypso/main", Base: "main"},
		mockgithub.PR{Number: 2, State: "open", Head: "kalypso/dev", Base: "dev"})
	if got := gitserver.Head(t, r.repo, "main"); got != mainHead {
		t.Errorf("the branch move wrote main")
	}
	r.expectExit(0, "plan", "-detailed-exitcode")

	r.write(cfg("dev", "envs/dev"))
	out = r.expectExit(2, "plan", "-detailed-exitcode")
	if strings.Contains(out, "pull request #2") {
		t.Errorf("a path move on the same branch updates #2 in place; the plan says otherwise:\n%s", out)
	}
	r.must("apply", "-auto-approve")
	r.expectPRs("after the path move", mockgithub.PR{Number: 1, State: "closed", Head: "kalypso/main", Base: "main"},
		mockgithub.PR{Number: 2, State: "open", Head: "kalypso/dev", Base: "dev"})
	if got := gitserver.Files(t, r.repo, "kalypso/dev"); got["envs/dev/drone/a.yaml"] != "a: 1\n" || got["clusters/drone/a.yaml"] != "" {
		t.Errorf("the proposal after the path move: %v", got)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")
}

// TestAccGitopsCommit_ProposalMergedBetweenPlanAndApply_MockGitHubAPI: a path move planned (plan -out)
// while pull request #1 is open, #1 merged, then the saved plan applied: "The pull request was merged
// since the plan" with the way out, not "Provider produced inconsistent final plan", and nothing is
// written. A new plan then moves the merged files.
func TestAccGitopsCommit_ProposalMergedBetweenPlanAndApply_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newProposalRig(t, "ghp_MERGEDbetween0123456789abcdefA", gitopsOutside)
	files := map[string]string{"drone/a.yaml": "a: 1\n"}
	cfg := func(path string) string {
		return gitopsCfg{URL: "https://github.com/org/fleet.git", Branch: "main", Path: path, Files: files, Extra: "  pull_request = {}\n"}.String()[len("provider \"kalypso\" {\n\n}\n\n"):]
	}
	r.write(cfg("clusters"))
	r.must("apply", "-auto-approve")
	r.write(cfg("envs/dev"))
	r.expectExit(2, "plan", "-detailed-exitcode", "-out=move.tfplan")
	merged := gitserver.Head(t, r.repo, "kalypso/main")
	gitserver.Git(t, "", nil, "--git-dir", r.repo, "update-ref", "refs/heads/main", merged)
	r.gh.SetState("org/fleet", 1, true)
	refs := gitopsRefs(t, r.repo)

	out := r.expectExit(1, "apply", "move.tfplan")
	expectOutput(t, "apply of the saved plan", out, `Error: The pull request was merged since the plan`,
		`pull request #1 \(kalypso/main into main\) was merged after the plan was made`, `Nothing was written. Run terraform plan again`)
	if strings.Contains(out, "inconsistent final plan") {
		t.Errorf("the apply reports an inconsistent final plan:\n%s", out)
	}
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("the refused apply wrote:\n%s\nwant\n%s", got, refs)
	}
	r.expectPRs("after the refused apply", mockgithub.PR{Number: 1, State: "closed", Merged: true, Head: "kalypso/main", Base: "main"})

	r.must("apply", "-auto-approve")
	r.expectPRs("after the new plan", mockgithub.PR{Number: 1, State: "closed", Merged: true, Head: "kalypso/main", Base: "main"},
		mockgithub.PR{Number: 2, State: "open", Head: "kalypso/main", Base: "main"})
	r.expectExit(0, "plan", "-detailed-exitcode")
}
