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
			r.expectExit(0, "plan", "-detailed-exitcode")
			r.expectExit(0, "plan", "-refresh-only", "-detailed-exitcode")
			r.expectNoToken(out)
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
	r.expectNoToken(out)
}

// expectNoToken fails when the rig's token is in the state or in one of outputs (plans, applies).
func (r *proposalRig) expectNoToken(outputs ...string) {
	r.t.Helper()
	st, err := os.ReadFile(filepath.Join(r.work, "terraform.tfstate"))
	if err != nil {
		r.t.Fatal(err)
	}
	for i, out := range append(outputs, string(st), r.tf.mustRun("show", "-json")) {
		if strings.Contains(out, r.token) {
			r.t.Errorf("the token is in output %d", i)
		}
	}
}

// TestAccGitopsCommit_ProposalRetargetedByABranchMove_MockGitHubAPI: pull request #2 open on top of a
// merged #1, then a change of branch. The old location holds files on main, so their removal is proposed
// on the old head branch: the plan says #2 is updated to propose it, the apply opens #3 into dev and turns
// #2 into the removal. Nothing reaches main without review, and no token reaches the state or the output.
func TestAccGitopsCommit_ProposalRetargetedByABranchMove_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newProposalRig(t, "ghp_RETARGETmove0123456789abcdefABC", gitopsOutside)
	gitserver.Commit(t, r.repo, "dev", "dev", map[string]string{"README.md": "dev\n"}, nil)
	cfg := func(branch string, files map[string]string) string {
		return gitopsCfg{URL: "https://github.com/org/fleet.git", Branch: branch, Path: "clusters", Files: files, Extra: "  pull_request = {}\n"}.String()[len("provider \"kalypso\" {\n\n}\n\n"):]
	}
	v1, v2 := map[string]string{"drone/a.yaml": "a: 1\n"}, map[string]string{"drone/a.yaml": "a: 2\n"}
	r.write(cfg("main", v1))
	outs := []string{r.must("apply", "-auto-approve")}
	gitserver.Git(t, "", nil, "--git-dir", r.repo, "update-ref", "refs/heads/main", gitserver.Head(t, r.repo, "kalypso/main"))
	r.gh.SetState("org/fleet", 1, true)
	merged := gitserver.Head(t, r.repo, "main")
	r.write(cfg("main", v2))
	outs = append(outs, r.must("apply", "-auto-approve"))
	r.expectPRs("after the second change", mockgithub.PR{Number: 1, State: "closed", Merged: true, Head: "kalypso/main", Base: "main"},
		mockgithub.PR{Number: 2, State: "open", Head: "kalypso/main", Base: "main"})

	r.write(cfg("dev", v2))
	out := r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "plan of the branch move", out, `Warning: The apply updates pull request #2 to propose the removal at the old location`,
		`so pull request #2 \(kalypso/main into main\) no longer proposes its files: the apply updates it to propose the removal of the 2 files the old location holds on "main"`)
	outs = append(outs, out, r.must("apply", "-auto-approve"))
	r.expectPRs("after the branch move", mockgithub.PR{Number: 1, State: "closed", Merged: true, Head: "kalypso/main", Base: "main"},
		mockgithub.PR{Number: 2, State: "open", Head: "kalypso/main", Base: "main"}, mockgithub.PR{Number: 3, State: "open", Head: "kalypso/dev", Base: "dev"})
	if title := r.gh.PRs("org/fleet")[1].Title; !strings.Contains(title, "remove clusters from main") {
		t.Errorf("pull request #2 does not propose the removal: %q", title)
	}
	if got := gitserver.Files(t, r.repo, "kalypso/main"); got["clusters/drone/a.yaml"] != "" || got["README.md"] == "" {
		t.Errorf("the old head branch after the move: %v", got)
	}
	if got := gitserver.Head(t, r.repo, "main"); got != merged {
		t.Errorf("the move wrote main")
	}
	r.expectExit(0, "plan", "-detailed-exitcode")
	r.expectNoToken(outs...)
}

// TestAccGitopsCommit_ProposalClosedWhenPullRequestModeEnds_MockGitHubAPI: with pull request #1 open,
// removing pull_request pushes the change to the branch directly; the plan says the apply closes #1, which
// would otherwise propose the same files a second time, and the apply does.
func TestAccGitopsCommit_ProposalClosedWhenPullRequestModeEnds_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newProposalRig(t, "ghp_DIRECTmode0123456789abcdefABCDE", gitopsOutside)
	files := map[string]string{"drone/a.yaml": "a: 1\n"}
	cfg := func(extra string) string {
		return gitopsCfg{URL: "https://github.com/org/fleet.git", Branch: "main", Path: "clusters", Files: files, Extra: extra}.String()[len("provider \"kalypso\" {\n\n}\n\n"):]
	}
	r.write(cfg("  pull_request = {}\n"))
	outs := []string{r.must("apply", "-auto-approve")}
	r.expectPRs("after the proposal", mockgithub.PR{Number: 1, State: "open", Head: "kalypso/main", Base: "main"})

	r.write(cfg(""))
	out := r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "plan without pull_request", out, `Warning: The apply closes pull request #1`,
		`pull_request was removed, so the apply pushes to branch "main" directly and closes pull request #1`)
	outs = append(outs, out, r.must("apply", "-auto-approve"))
	r.expectPRs("after the direct push", mockgithub.PR{Number: 1, State: "closed", Head: "kalypso/main", Base: "main"})
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)
	r.expectExit(0, "plan", "-detailed-exitcode")
	r.expectNoToken(outs...)
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
	r.expectNoToken(out)
}

// TestAccGitopsCommit_ErrorsNameTheRealProblem: a change of repository_url to a repository that does not
// exist, of branch to one that does not exist, and to a server that refuses the credentials were each
// reported as "The move deletes files at the old location" (the move's guard ran before anything read
// the new location); each now has its own message with what to do, and a real move keeps its own.
// Nothing is written.
func TestAccGitopsCommit_ErrorsNameTheRealProblem(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	gitserver.NewSeededRepo(t, r.root, "private.git", "main", gitopsOutside)
	srv := gitserver.Start(t, r.root, gitserver.Options{Token: "ghp_SERVERonly0123456789abcdefABCD"})
	files := map[string]string{"drone/a.yaml": "a: 1\n"}
	res := func(url, branch, path string) string {
		return gitopsCfg{URL: url, Branch: branch, Path: path, Files: files, Extra: "  deletion_protection = true\n"}.String()[len("provider \"kalypso\" {\n\n}\n\n"):]
	}
	here := "file://" + r.repo
	r.write(res(here, "main", "clusters"))
	r.must("apply", "-auto-approve")
	refs := gitopsRefs(t, r.repo)
	for _, c := range []struct {
		what, url, branch, path string
		want                    []string
	}{
		{"a missing repository", "file://" + filepath.Join(r.root, "missing.git"), "main", "clusters",
			[]string{`Error: Git repository not found`, `repository_url = `, `The provider does not create repositories: create it first`}},
		{"a missing branch", here, "envs-dev", "clusters",
			[]string{`Error: Git branch does not exist`, `branch "envs-dev" does not exist`, `Nothing was written`}},
		{"credentials the server refuses", srv.RepoURL("private.git"), "main", "clusters",
			[]string{`Error: Git authentication failed`, `Check the provider's git_token`}},
		{"a real move", here, "main", "envs/dev",
			[]string{`Error: The move deletes files at the old location`}},
	} {
		r.write(res(c.url, c.branch, c.path))
		out := r.expectExit(1, "plan")
		expectOutput(t, "plan of "+c.what, out, c.want...)
		if c.what != "a real move" && strings.Contains(out, "The move deletes files") {
			t.Errorf("%s is reported as a move:\n%s", c.what, out)
		}
	}
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("refused plans wrote to the repository")
	}
	// A new resource on a missing repository gets the same message.
	r.write(strings.Replace(res("file://"+filepath.Join(r.root, "missing.git"), "main", "clusters"), `"test"`, `"other"`, 1) + res(here, "main", "clusters"))
	expectOutput(t, "plan of a new resource on a missing repository", r.expectExit(1, "plan"), `Error: Git repository not found`, `with kalypso_gitops_commit.other`)
}
