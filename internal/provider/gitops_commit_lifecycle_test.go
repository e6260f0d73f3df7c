// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// These acceptance tests drive the real terraform CLI (newTerraformCLI) through the lifecycle edges of
// kalypso_gitops_commit beyond an update: destroy, drift checks, moves and concurrent creates. Each
// asserts the repository afterwards with git. No apply may delete or change a file on a branch unless
// its plan listed that file.

// lifecycleRig is a working directory with a local bare repository.
type lifecycleRig struct {
	t    *testing.T
	tf   *terraformCLI
	work string
	root string
	repo string
}

func newLifecycleRig(t *testing.T, seed map[string]string) *lifecycleRig {
	t.Helper()
	return newLifecycleRigWith(t, "terraform", seed)
}

// newLifecycleRigWith runs bin instead of terraform (an OpenTofu binary, see tofuBinary).
func newLifecycleRigWith(t *testing.T, bin string, seed map[string]string) *lifecycleRig {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	r := &lifecycleRig{t: t, work: t.TempDir(), root: t.TempDir()}
	r.repo = gitserver.NewSeededRepo(t, r.root, "fleet.git", "main", seed)
	r.tf = newTerraformCLI(t, r.work)
	r.tf.bin = bin
	return r
}

// tofuBinary is the OpenTofu binary named by KALYPSO_TOFU, or the one CI caches; "" when there is none.
func tofuBinary() string {
	for _, p := range []string{os.Getenv("KALYPSO_TOFU"), filepath.Join(userCacheDirBeforeTests, "kalypso-ci", "tofu-v1.10.10")} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// write replaces main.tf with the provider requirement and body.
func (r *lifecycleRig) write(body string) {
	r.t.Helper()
	// The full source address: OpenTofu's default registry is another host.
	cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"registry.terraform.io/kalypso/kalypso\" }\n  }\n}\n\n" +
		"provider \"kalypso\" {\n  cache_dir = " + gitopsHCL(filepath.Join(r.work, "cache")) + "\n}\n\n" + body
	if err := os.WriteFile(filepath.Join(r.work, "main.tf"), []byte(cfg), 0o600); err != nil {
		r.t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.work, ".terraform")); err != nil {
		r.tf.mustRun("init", "-input=false", "-no-color")
	}
}

func (r *lifecycleRig) run(args ...string) (string, int) {
	r.t.Helper()
	return r.tf.run(append([]string{args[0], "-input=false", "-no-color"}, args[1:]...)...)
}

func (r *lifecycleRig) must(args ...string) string {
	r.t.Helper()
	out, code := r.run(args...)
	if code != 0 {
		r.t.Fatalf("terraform %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// expectExit runs terraform and fails unless it exits with code.
func (r *lifecycleRig) expectExit(code int, args ...string) string {
	r.t.Helper()
	out, got := r.run(args...)
	if got != code {
		r.t.Fatalf("terraform %s exited %d, want %d:\n%s", strings.Join(args, " "), got, code, out)
	}
	return out
}

// expectOutput fails unless out matches every pattern.
func expectOutput(t *testing.T, what, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(spaceTolerant(p)).MatchString(out) {
			t.Errorf("%s does not match %q:\n%s", what, p, out)
		}
	}
}

// expectMain compares the whole tree of branch main with want, and its commit count.
func (r *lifecycleRig) expectMain(want map[string]string, commits int) {
	const branch = "main"
	r.t.Helper()
	if got := gitserver.Files(r.t, r.repo, branch); !reflect.DeepEqual(got, want) {
		r.t.Errorf("branch %s tree:\n got %v\nwant %v", branch, got, want)
	}
	if n := gitserver.CommitCount(r.t, r.repo, branch); n != commits {
		r.t.Errorf("branch %s has %d commits, want %d", branch, n, commits)
	}
}

// lifecycleResource is a files-mode resource named test at path clusters of branch main.
func lifecycleResource(url string, files map[string]string, extra string) string {
	return strings.TrimPrefix(gitopsCfg{URL: url, Branch: "main", Path: "clusters", Files: files, Extra: extra}.String(), "provider \"kalypso\" {\n\n}\n\n")
}

// TestAccGitopsCommit_DestroyProtection: with deletion_protection on (the default), a destroy is refused
// at plan with the counts per directory and both ways out, and the branch is intact; with it off, the
// destroy plan warns with the counts and the apply removes the files in one commit that says it is a
// removal.
func TestAccGitopsCommit_DestroyProtection(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	files := map[string]string{"drone/README.md": "drone", "drone/t1/namespace.yaml": "kind: Namespace\n", "large/README.md": "large"}
	delivered := fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files))
	r.write(lifecycleResource(url, files, "  deletion_protection = true"))
	r.must("apply", "-auto-approve")
	r.expectMain(delivered, 2)
	head := gitserver.Head(t, r.repo, "main")

	for _, args := range [][]string{{"plan", "-destroy"}, {"destroy", "-auto-approve"}} {
		out := r.expectExit(1, args...)
		expectOutput(t, "terraform "+args[0], out, `Error: Deletion protection`, `deletion_protection is on, and destroying the resource deletes 3 files under path "clusters" on branch "main"`,
			`drone \(2\), large \(1\)`, `retain_on_destroy = true`, `deletion_protection = false`)
	}
	if got := gitserver.Head(t, r.repo, "main"); got != head {
		t.Fatalf("a refused destroy moved the branch")
	}
	r.expectMain(delivered, 2)

	// Applied first, deletion_protection = false allows the destroy; that apply writes nothing.
	r.write(lifecycleResource(url, files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	r.expectMain(delivered, 2)
	out := r.expectExit(0, "plan", "-destroy")
	expectOutput(t, "terraform plan -destroy", out, `Warning: Files are deleted from the Git branch`,
		`destroying the resource deletes 3 files under path "clusters" on branch "main" of file://.*: drone \(2\), large \(1\); and the root file "clusters/.kalypso-gitops-commit"`)
	r.must("destroy", "-auto-approve")
	r.expectMain(gitopsOutside, 3)
	msg := gitserver.Git(t, "", nil, "--git-dir", r.repo, "log", "-1", "--format=%B", "main")
	if !strings.HasPrefix(msg, "Remove clusters from branch main (resource destroyed): 3 removed\n\nFolders: drone (2 removed), large (1 removed)\n") {
		t.Errorf("removal commit message %q", msg)
	}
}

// TestAccGitopsCommit_DestroyRetained: retain_on_destroy = true keeps the files, protected or not.
func TestAccGitopsCommit_DestroyRetained(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	files := map[string]string{"drone/README.md": "drone"}
	r.write(lifecycleResource("file://"+r.repo, files, "  deletion_protection = true\n  retain_on_destroy = true"))
	r.must("apply", "-auto-approve")
	out := r.must("destroy", "-auto-approve")
	expectOutput(t, "terraform destroy", out, `retain_on_destroy = true: destroying the resource keeps the files under path "clusters"`)
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)
}

// TestAccGitopsCommit_DriftChecksQuiet: right after an apply, a refresh-only plan and a plan both exit 0
// with -detailed-exitcode (HCP Terraform's drift detection runs the first); an out-of-band edit under
// path shows in both (exit 2), and once repaired both are quiet again.
func TestAccGitopsCommit_DriftChecksQuiet(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testDriftChecksQuiet(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testDriftChecksQuiet(t, tofuOrSkip(t)) })
}

func testDriftChecksQuiet(t *testing.T, bin string) {
	r := newLifecycleRigWith(t, bin, gitopsOutside)
	files := map[string]string{"drone/README.md": "drone", "large/README.md": "large"}
	r.write(lifecycleResource("file://"+r.repo, files, ""))
	quiet := func(when string) {
		t.Helper()
		for _, args := range [][]string{{"plan", "-refresh-only", "-detailed-exitcode"}, {"plan", "-detailed-exitcode"}} {
			if out, code := r.run(args...); code != 0 {
				t.Errorf("%s: terraform %s exited %d, want 0:\n%s", when, strings.Join(args, " "), code, out)
			}
		}
	}
	r.must("apply", "-auto-approve")
	quiet("after the first apply")
	r.write(lifecycleResource("file://"+r.repo, map[string]string{"drone/README.md": "drone v2"}, ""))
	r.must("apply", "-auto-approve")
	quiet("after an update")

	gitserver.Commit(t, r.repo, "main", "hand edit", map[string]string{"clusters/drone/README.md": "edited by hand"}, nil)
	out := r.expectExit(2, "plan", "-refresh-only", "-detailed-exitcode")
	expectOutput(t, "refresh-only plan after an out-of-band edit", out, `content_hash`)
	out = r.expectExit(2, "plan", "-detailed-exitcode")
	expectOutput(t, "plan after an out-of-band edit", out, `"clusters/drone/README.md" = \{`, `-edited by hand`)
	r.must("apply", "-auto-approve")
	quiet("after the repair")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", map[string]string{"drone/README.md": "drone v2"})), 5)
}

// TestAccGitopsCommit_NewOverlappingPathsRefused: two new resources whose paths overlap on one branch
// have written no ownership record yet; the plan refuses them anyway, naming both, and an apply writes
// nothing. Respelled URLs of one repository overlap too.
func TestAccGitopsCommit_NewOverlappingPathsRefused(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	refs := gitopsRefs(t, r.repo)
	block := func(name, url, dir string) string {
		return "resource \"kalypso_gitops_commit\" \"" + name + "\" {\n  repository_url = " + gitopsHCL(url) + "\n  branch = \"main\"\n  path = " + gitopsHCL(dir) +
			"\n  deletion_protection = false\n  files = { \"README.md\" = \"x\" }\n}\n"
	}
	r.write(block("whole", "file://"+r.repo, "clusters") + block("drone", r.repo+"/", "clusters/drone"))
	for _, args := range [][]string{{"plan"}, {"apply", "-auto-approve"}} {
		out := r.expectExit(1, args...)
		expectOutput(t, "terraform "+args[0], out, `Error: Overlapping paths on one branch`,
			`deliver to overlapping paths of branch "main": `+regexp.QuoteMeta(r.repo)+`///clusters/drone\?ref=main and file://`+regexp.QuoteMeta(r.repo)+`//clusters\?ref=main`,
			`Nothing was written`)
	}
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("refused plans wrote to the repository:\n%s\nwas\n%s", got, refs)
	}
	r.expectMain(gitopsOutside, 1)
	// Two resources spelled exactly alike are one location to the provider; their different files tell
	// them apart.
	twin := strings.Replace(block("twin", "file://"+r.repo, "clusters"), `"x"`, `"y"`, 1)
	r.write(block("whole", "file://"+r.repo, "clusters") + twin)
	out := r.expectExit(1, "plan")
	expectOutput(t, "terraform plan of two alike resources", out, `Error: Overlapping paths on one branch`,
		`deliver different files to the same location file://`+regexp.QuoteMeta(r.repo)+`//clusters\?ref=main \(branch "main"\)`, `Nothing was written`)
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("a refused plan wrote to the repository:\n%s\nwas\n%s", got, refs)
	}
	// Side by side they plan and apply.
	r.write(block("dev", "file://"+r.repo, "clusters/dev") + block("drone", r.repo, "clusters/drone"))
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters/dev", map[string]string{"README.md": "x"}), gitopsManaged("clusters/drone", map[string]string{"README.md": "x"})), 3)
}

// respellings are four other spellings of the local repository at repo: a plain path, a trailing `/`,
// `file://` with a trailing `/`, and a `./` segment.
func respellings(repo string) []string {
	dir, name := filepath.Split(repo)
	return []string{repo, repo + "/", "file://" + repo + "/", "file://" + dir + "./" + name}
}

// TestAccGitopsCommit_RespelledRepositoryIsNoChange: applied with `file://`, the resource sees four other
// spellings of the same repository as no change: each plan is empty (plancheck.ExpectEmptyPlan), the state
// keeps the spelling it was applied with, and the branch gets no commit.
func TestAccGitopsCommit_RespelledRepositoryIsNoChange(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	files := map[string]string{"drone/README.md": "drone"}
	url := "file://" + repo
	delivered := fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files))
	var head string
	steps := []resource.TestStep{{
		Config: gitopsCfg{URL: url, Branch: "main", Path: "clusters", Files: files}.String(),
		ConfigStateChecks: []statecheck.StateCheck{
			gitopsExpectRepo(t, repo, "main", delivered, 2),
			gitopsRepoCheck(func() error { head = gitserver.Head(t, repo, "main"); return nil }),
		},
	}}
	for _, other := range respellings(repo) {
		steps = append(steps, resource.TestStep{
			Config:           gitopsCfg{URL: other, Branch: "main", Path: "clusters", Files: files}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("repository_url"), knownvalue.StringExact(url)),
				statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("id"), knownvalue.StringExact(url+"//clusters?ref=main")),
				gitopsExpectRepo(t, repo, "main", delivered, 2),
				gitopsRepoCheck(func() error {
					if got := gitserver.Head(t, repo, "main"); got != head {
						return fmt.Errorf("repository_url = %q moved branch main from %s to %s", other, head, got)
					}
					return nil
				}),
			},
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccGitopsCommit_RespelledRepositoryIsNoChangeBothCLIs: the same with the CLIs themselves, Terraform
// and OpenTofu: `plan -detailed-exitcode` exits 0 with "No changes." for each spelling, and the apply
// writes no commit.
func TestAccGitopsCommit_RespelledRepositoryIsNoChangeBothCLIs(t *testing.T) {
	t.Parallel()
	t.Run("terraform", func(t *testing.T) { t.Parallel(); testRespelledRepository(t, "terraform") })
	t.Run("opentofu", func(t *testing.T) { t.Parallel(); testRespelledRepository(t, tofuOrSkip(t)) })
}

func testRespelledRepository(t *testing.T, bin string) {
	r := newLifecycleRigWith(t, bin, gitopsOutside)
	files := map[string]string{"drone/README.md": "drone"}
	r.write(lifecycleResource("file://"+r.repo, files, ""))
	r.must("apply", "-auto-approve")
	head := gitserver.Head(t, r.repo, "main")
	for _, url := range respellings(r.repo) {
		r.write(lifecycleResource(url, files, ""))
		out := r.expectExit(0, "plan", "-detailed-exitcode")
		expectOutput(t, "plan of repository_url = "+url, out, `No changes\.`)
		r.must("apply", "-auto-approve")
	}
	if got := gitserver.Head(t, r.repo, "main"); got != head {
		t.Errorf("an apply of a respelled URL wrote to the branch")
	}
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)
}

// tofuOrSkip is tofuBinary, skipping the test when there is none unless KALYPSO_REQUIRE_TOFU is set.
func tofuOrSkip(t *testing.T) string {
	t.Helper()
	bin := tofuBinary()
	if bin == "" {
		if os.Getenv("KALYPSO_REQUIRE_TOFU") != "" {
			t.Fatal("KALYPSO_REQUIRE_TOFU is set but no OpenTofu binary was found (set KALYPSO_TOFU, or run scripts/tofu.sh)")
		}
		t.Skip("no OpenTofu binary: set KALYPSO_TOFU")
	}
	return bin
}

// moveResource is a files-mode resource named test.
func moveResource(url, branch, dir string, files map[string]string, extra string) string {
	return strings.TrimPrefix(gitopsCfg{URL: url, Branch: branch, Path: dir, Files: files, Extra: extra}.String(), "provider \"kalypso\" {\n\n}\n\n")
}

// TestAccGitopsCommit_Moves: a change of path, of branch and of repository_url is one planned update that
// shows both sides (the files created at the new location, the deletions at the old one, with their
// content); deletion_protection, as applied, refuses it; on one branch the apply writes both sides in one
// commit, elsewhere it writes the new location first and removes the old one after; the re-plan is empty.
func TestAccGitopsCommit_Moves(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	other := gitserver.NewSeededRepo(t, r.root, "other.git", "main", map[string]string{"README.md": "# other\n"})
	url := "file://" + r.repo
	files := map[string]string{"drone/README.md": "drone", "large/t1/namespace.yaml": "kind: Namespace\n"}
	r.write(moveResource(url, "main", "clusters", files, "  deletion_protection = true"))
	r.must("apply", "-auto-approve")

	// Protected, as applied: the move is refused at plan, naming the old files.
	r.write(moveResource(url, "main", "envs/dev", files, "  deletion_protection = true"))
	out := r.expectExit(1, "plan")
	expectOutput(t, "plan of a protected move", out, `Error: The move deletes files at the old location`,
		`deletion_protection is on, and moving the resource to .*//envs/dev\?ref=main deletes 2 files under path "clusters" on branch "main"`)
	r.write(moveResource(url, "main", "clusters", files, "  deletion_protection = false"))
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)

	// A move of path on one branch.
	r.write(moveResource(url, "main", "envs/dev", files, "  deletion_protection = false"))
	out = r.expectExit(2, "plan", "-detailed-exitcode", "-out=move.tfplan")
	expectOutput(t, "plan of a path move", out, `Warning: The resource moves: files are deleted at the old location`,
		`will be updated in-place`, `Plan: 0 to add, 1 to change, 0 to destroy`)
	changes := r.plannedChanges("move.tfplan")
	for k, want := range map[string]string{"envs/dev/drone/README.md": "create drone", "clusters/drone/README.md": "delete drone",
		"clusters/large/t1/namespace.yaml": "delete kind: Namespace\n", "envs/dev/.kalypso-gitops-commit": "create"} {
		if got := changes[k]; !strings.HasPrefix(got, want) {
			t.Errorf("path move: changes[%q] = %q, want %q", k, got, want)
		}
	}
	before := gitserver.Head(t, r.repo, "main")
	r.must("apply", "move.tfplan")
	// Both sides on one branch land in one commit: the new location and the removal of the old one.
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("envs/dev", files)), 3)
	if parent := gitserver.Git(t, "", nil, "--git-dir", r.repo, "rev-parse", "main~1"); strings.TrimSpace(parent) != before {
		t.Errorf("the move is not one commit on %s: main~1 is %s", before, parent)
	}
	log := gitserver.Git(t, "", nil, "--git-dir", r.repo, "log", "-1", "--format=%B", "main")
	if !strings.HasPrefix(log, "Move clusters to envs/dev on branch main: 2 added, 2 removed\n\nFolders: drone (1 added), large (1 added)\n"+
		"Removed from clusters: drone (1 removed), large (1 removed)\nRoot files: clusters/.kalypso-gitops-commit, envs/dev/.kalypso-gitops-commit\n") {
		t.Errorf("the move's commit message:\n%s", log)
	}
	stat := gitserver.Git(t, "", nil, "--git-dir", r.repo, "show", "--no-renames", "--name-status", "--format=", "main")
	if want := "D\tclusters/.kalypso-gitops-commit\nD\tclusters/drone/README.md\nD\tclusters/large/t1/namespace.yaml\n" +
		"A\tenvs/dev/.kalypso-gitops-commit\nA\tenvs/dev/drone/README.md\nA\tenvs/dev/large/t1/namespace.yaml"; strings.TrimSpace(stat) != want {
		t.Errorf("the move's commit changes:\n%s\nwant\n%s", stat, want)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")

	// A move of branch (a new branch).
	r.write(moveResource(url, "dev", "envs/dev", files, "  deletion_protection = false\n  create_branch = true"))
	changes = r.plannedChangesOf(r.expectExit(2, "plan", "-detailed-exitcode", "-out=branch.tfplan"), "branch.tfplan")
	if changes["envs/dev/drone/README.md"] != "create drone" || changes["main:envs/dev/drone/README.md"] != "delete drone" {
		t.Errorf("branch move: changes %v", changes)
	}
	r.must("apply", "branch.tfplan")
	// Another branch: the new location is written first, then the old one removed in a commit of its own.
	r.expectMain(gitopsOutside, 4)
	if log := gitserver.Git(t, "", nil, "--git-dir", r.repo, "log", "-1", "--format=%s", "main"); !regexp.MustCompile(`^Remove envs/dev from branch main \(moved to .*//envs/dev\?ref=dev\): 2 removed\n?$`).MatchString(log) {
		t.Errorf("the removal at the old branch:\n%s", log)
	}
	if got := gitserver.Files(t, r.repo, "dev"); !reflect.DeepEqual(got, gitopsManaged("envs/dev", files)) {
		t.Errorf("branch dev: %v", got)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")

	// A move to another repository.
	r.write(moveResource("file://"+other, "main", "clusters", files, "  deletion_protection = false"))
	changes = r.plannedChangesOf(r.expectExit(2, "plan", "-detailed-exitcode", "-out=repo.tfplan"), "repo.tfplan")
	if changes["clusters/drone/README.md"] != "create drone" || changes[url+"@dev:envs/dev/drone/README.md"] != "delete drone" {
		t.Errorf("repository move: changes %v", changes)
	}
	r.must("apply", "repo.tfplan")
	if got := gitserver.Files(t, other, "main"); !reflect.DeepEqual(got, fixtures.Merge(map[string]string{"README.md": "# other\n"}, gitopsManaged("clusters", files))) {
		t.Errorf("the other repository: %v", got)
	}
	if got := gitserver.Files(t, r.repo, "dev"); len(got) != 0 {
		t.Errorf("the old branch still holds %v", got)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")
}

// plannedChanges reads `changes` of kalypso_gitops_commit.test from a saved plan as "<action> <diff>".
func (r *lifecycleRig) plannedChanges(planFile string) map[string]string {
	r.t.Helper()
	var plan struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					Changes map[string]struct{ Action, Diff string } `json:"changes"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	js := r.tf.mustRun("show", "-json", planFile)
	if err := json.Unmarshal([]byte(js), &plan); err != nil || len(plan.ResourceChanges) != 1 {
		r.t.Fatalf("show -json %s: %v\n%s", planFile, err, js)
	}
	out := map[string]string{}
	for k, c := range plan.ResourceChanges[0].Change.After.Changes {
		out[k] = strings.TrimSpace(c.Action + " " + c.Diff)
		if c.Action == "delete" || c.Action == "create" {
			out[k] = c.Action + " " + c.Diff
		}
	}
	return out
}

// plannedChangesOf is plannedChanges of a plan whose output the caller already checked.
func (r *lifecycleRig) plannedChangesOf(_ string, planFile string) map[string]string {
	return r.plannedChanges(planFile)
}

// TestAccWorkloadRegistration_BrokenSourceKeepsTargets: a Workload file in the application team's
// repository that no longer parses does not stop the platform team's plan: the registration keeps its
// previous deployment targets, with a warning naming the file, the line and the commit. On create there is
// nothing to keep, so it is an error.
func TestAccWorkloadRegistration_BrokenSourceKeepsTargets(t *testing.T) {
	t.Parallel()
	const workload = "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets:\n" +
		"    - name: dev\n      environment: dev\n      manifests:\n        repo: https://github.com/org/app-gitops\n        branch: dev\n        path: ./dev\n"
	r := newLifecycleRig(t, map[string]string{"workload/workload.yaml": workload})
	cfg := func(name string) string {
		return "resource \"kalypso_workload_registration\" \"" + name + "\" {\n  name = \"" + name + "\"\n  workspace = \"team-a\"\n" +
			"  source = { repo = " + gitopsHCL("file://"+r.repo) + ", branch = \"main\", path = \"workload\" }\n}\n" +
			"output \"" + name + "_targets\" { value = [for t in kalypso_workload_registration." + name + ".deployment_targets : t.name] }\n"
	}
	r.write(cfg("app"))
	r.must("apply", "-auto-approve")
	good := gitserver.Head(t, r.repo, "main")
	broken := gitserver.Commit(t, r.repo, "main", "broken", map[string]string{"workload/workload.yaml": workload + "---apiVersion: v1\n"}, nil)

	out := r.expectExit(0, "plan", "-detailed-exitcode")
	expectOutput(t, "plan after the Workload file broke", out, `Warning: Invalid Workload in the workload source: the previous deployment targets are kept`,
		`file workload.yaml`, `line 13`, `commit `+broken, `keeps the deployment targets, source_commit and manifest of its last successful read`)
	r.must("apply", "-auto-approve")
	if got := strings.TrimSpace(r.tf.mustRun("output", "-json", "app_targets")); got != `["app-dev"]` {
		t.Errorf("targets after the broken file: %s", got)
	}
	st := r.tf.mustRun("show", "-json")
	if !strings.Contains(st, `"source_commit":"`+good+`"`) {
		t.Errorf("the state no longer records the last good commit %s:\n%s", good, st)
	}
	// A new registration of the broken source has nothing to keep: an error.
	r.write(cfg("app") + cfg("other"))
	out = r.expectExit(1, "plan")
	expectOutput(t, "plan of a new registration of the broken source", out, `Error: Invalid Workload in the workload source`, `with kalypso_workload_registration.other`)
}

// TestAccGitopsCommit_EmptyRenderAndFilePathRefused: a render with no files, and a path that names a
// file on the branch, are errors at plan time; nothing is written.
func TestAccGitopsCommit_EmptyRenderAndFilePathRefused(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, fixtures.Merge(gitopsOutside, map[string]string{"clusters/drone/README.md": "x", "notes": "a file"}))
	refs := gitopsRefs(t, r.repo)
	for _, manifests := range []string{`[]`, `[""]`, `["", "# only a comment\n"]`} {
		r.write(`resource "kalypso_gitops_commit" "test" {
  repository_url = ` + gitopsHCL("file://"+r.repo) + `
  branch         = "main"
  path           = "clusters"
  render         = { environment = "dev", manifests = ` + manifests + ` }
}
`)
		out := r.expectExit(1, "plan")
		expectOutput(t, "plan of render.manifests = "+manifests, out, `Error: The render produced no files`, `environment "dev" renders no file`)
	}
	r.write(strings.Replace(lifecycleResource("file://"+r.repo, map[string]string{"a.yaml": "a"}, ""), `path = "clusters"`, `path = "notes/dev"`, 1))
	out := r.expectExit(1, "plan")
	expectOutput(t, "plan of a path under a file", out, `Error: path names a file`, `"notes" is a file on branch "main"`)
	if got := gitopsRefs(t, r.repo); got != refs {
		t.Errorf("refused plans wrote to the repository")
	}
}

// TestAccGitopsCommit_PromotedCommitUnderPath: with path = ".github", the promoted-commit file is one of
// the managed files; the plan converges after each apply.
func TestAccGitopsCommit_PromotedCommitUnderPath(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	files := map[string]string{"CODEOWNERS": "* @platform\n"}
	for i, id := range []string{strings.Repeat("a", 40), strings.Repeat("b", 40)} {
		r.write(strings.Replace(lifecycleResource("file://"+r.repo, files, `  promoted_commit_id = "`+id+`"`), `path = "clusters"`, `path = ".github"`, 1))
		r.must("apply", "-auto-approve")
		if out, code := r.run("plan", "-detailed-exitcode"); code != 0 {
			t.Errorf("promoted commit %d: the plan after the apply is not empty (exit %d):\n%s", i, code, out)
		}
		got := gitserver.Files(t, r.repo, "main")
		if got[".github/tracking/Promoted_Commit_Id"] != id || got[".github/CODEOWNERS"] != files["CODEOWNERS"] || got[".github/workflows/ci.yaml"] != "" {
			t.Errorf("promoted commit %d: branch %v", i, got)
		}
	}
}
