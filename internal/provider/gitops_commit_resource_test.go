// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

const gitopsAddr = "kalypso_gitops_commit.test"

// gitopsStateCheckFunc adapts a function to statecheck.StateCheck; req.State is `terraform show -json`.
type gitopsStateCheckFunc func(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse)

func (f gitopsStateCheckFunc) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	f(ctx, req, resp)
}

// gitopsRepoCheck asserts on the bare repository after a step.
func gitopsRepoCheck(f func() error) statecheck.StateCheck {
	return gitopsStateCheckFunc(func(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
		if err := f(); err != nil {
			resp.Error = err
		}
	})
}

func gitopsHCL(s string) string {
	if strings.Contains(s, "${") || strings.Contains(s, "%{") {
		panic("test content must not contain template sequences")
	}
	return strconv.Quote(s)
}

type gitopsCfg struct {
	Provider string // provider block body
	URL      string
	Branch   string
	Path     string
	Files    map[string]string
	Extra    string // extra resource attributes
}

func (c gitopsCfg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider \"kalypso\" {\n%s\n}\n\n", c.Provider)
	fmt.Fprintf(&b, "resource \"kalypso_gitops_commit\" \"test\" {\n  repository_url = %s\n  branch = %s\n", gitopsHCL(c.URL), gitopsHCL(c.Branch))
	if !strings.Contains(c.Extra, "deletion_protection") {
		b.WriteString("  deletion_protection = false # the test framework destroys what the test created\n")
	}
	if c.Path != "" {
		fmt.Fprintf(&b, "  path = %s\n", gitopsHCL(c.Path))
	}
	b.WriteString("  files = {\n")
	names := make([]string, 0, len(c.Files))
	for n := range c.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "    %s = %s\n", gitopsHCL(n), gitopsHCL(c.Files[n]))
	}
	b.WriteString("  }\n")
	b.WriteString(c.Extra)
	b.WriteString("\n}\n")
	return b.String()
}

// gitopsExpectRepo compares the whole branch tree with want, and the commit count.
func gitopsExpectRepo(t *testing.T, repo, branch string, want map[string]string, commits int) statecheck.StateCheck {
	return gitopsRepoCheck(func() error {
		got := gitserver.Files(t, repo, branch)
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("branch %s tree:\n got %v\nwant %v", branch, got, want)
		}
		if n := gitserver.CommitCount(t, repo, branch); commits >= 0 && n != commits {
			return fmt.Errorf("branch %s has %d commits, want %d", branch, n, commits)
		}
		return nil
	})
}

// gitopsExpectNoStrayObjects asserts that every object of the repository is reachable from a branch and
// stored once (see gitserver.StrayObjects): an apply writes no tree that no commit points to.
func gitopsExpectNoStrayObjects(t *testing.T, repo string) statecheck.StateCheck {
	return gitopsRepoCheck(func() error {
		if out := gitserver.StrayObjects(t, repo); out != "" {
			return fmt.Errorf("stray objects in %s:\n%s", repo, out)
		}
		return nil
	})
}

// gitopsExpectHead asserts the state's commit_sha equals the branch head.
func gitopsExpectHead(t *testing.T, repo, branch string) statecheck.StateCheck {
	return gitopsStateCheckFunc(func(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == gitopsAddr {
				if got, head := r.AttributeValues["commit_sha"], gitserver.Head(t, repo, branch); got != head {
					resp.Error = fmt.Errorf("commit_sha %v, branch head %s", got, head)
				}
				return
			}
		}
		resp.Error = fmt.Errorf("%s not in state", gitopsAddr)
	})
}

// gitopsManaged is what a resource with path dir delivers for files: the files below dir, and the
// ownership record at dir's root (a dot-entry that clusters do not apply; see internal/delivery).
func gitopsManaged(dir string, files map[string]string) map[string]string {
	record := map[string]string{dir + "/.kalypso-gitops-commit": "# Written by terraform-provider-kalypso: kalypso_gitops_commit manages the files under this directory.\n" +
		"# Another kalypso_gitops_commit on this branch may not use a path above or below it.\npath: " + dir + "\n"}
	return fixtures.Merge(record, fixtures.Prefixed(dir+"/", files))
}

// outside is content the resource must never touch: files outside path and dot-entries at the root of path.
var gitopsOutside = map[string]string{
	"README.md":                    "# fleet\n",
	"apps/team-a/deploy.yaml":      "kind: Deployment\n",
	".github/workflows/ci.yaml":    "on: push\n",
	"clusters/.sops.yaml":          "creation_rules: []\n",
	"clusters/.flux/settings.yaml": "interval: 1m\n",
}

// TestAccGitopsCommit_LocalBareLifecycle covers first push, update (change/add/remove), re-apply with
// no commit, drift by another clone repaired, promoted commit, import, and destroy, on a local bare repository.
func TestAccGitopsCommit_LocalBareLifecycle(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", fixtures.Merge(gitopsOutside, map[string]string{"clusters/old/README.md": "stale"}))
	v1 := map[string]string{"drone/README.md": "drone", "drone/dev/namespace.yaml": "kind: Namespace\n", "large/README.md": "large"}
	v2 := map[string]string{"drone/README.md": "drone v2", "drone/qa/namespace.yaml": "kind: Namespace\n", "large/README.md": "large"}
	cfg := func(files map[string]string, extra string) string {
		return gitopsCfg{Provider: `author = { name = "Kalypso CI", email = "ci@example.com" }`, URL: "file://" + repo, Branch: "main", Path: "clusters", Files: files, Extra: extra}.String()
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			// Destroy removed the managed files in one commit; everything else is byte-identical.
			got := gitserver.Files(t, repo, "main")
			if !reflect.DeepEqual(got, gitopsOutside) {
				return fmt.Errorf("after destroy: %v", got)
			}
			if n := gitserver.CommitCount(t, repo, "main"); n != 8 {
				return fmt.Errorf("after destroy: %d commits, want 8", n)
			}
			if out := gitserver.StrayObjects(t, repo); out != "" {
				return fmt.Errorf("after destroy, stray objects:\n%s", out)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // first push: stale file under path removed, outside untouched
				Config: cfg(v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionCreate), plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("id"), knownvalue.StringExact("file://"+repo+"//clusters?ref=main"))},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("files"), filesCheck(v1)),
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.Null()),
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
					gitopsExpectNoStrayObjects(t, repo),
					gitopsRepoCheck(func() error {
						// The default message says what the commit changed.
						want := "Kalypso CI <ci@example.com>|Update clusters on main: 3 added, 1 removed\n\n" +
							"Folders: drone (2 added), large (1 added), old (1 removed)\nRoot files: clusters/.kalypso-gitops-commit\n\n" +
							"Written by kalypso_gitops_commit (terraform-provider-kalypso)."
						if got := gitserver.Git(t, "", nil, "--git-dir", repo, "log", "-1", "--format=%an <%ae>|%B", "main"); got != want {
							return fmt.Errorf("commit author/message: %q", got)
						}
						return nil
					}),
				},
			},
			{ // update: change, add, remove; the plan shows a per-file diff
				Config: cfg(v2, `  commit_message = "kalypso: v2"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("files").AtMapKey("drone/README.md"), knownvalue.StringExact("drone v2")),
						plancheck.ExpectUnknownValue(gitopsAddr, tfjsonpath.New("commit_sha")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("files"), filesCheck(v2)),
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3),
				},
			},
			{ // re-apply: empty plan, no new commit
				Config: cfg(v2, `  commit_message = "kalypso: v2"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3)},
			},
			{ // drift made by another clone: edited, added and removed files are restored
				PreConfig: func() {
					gitserver.Commit(t, repo, "main", "hand edit", map[string]string{
						"clusters/drone/README.md": "edited by hand", "clusters/rogue/file.yaml": "x",
					}, []string{"clusters/large/README.md"})
				},
				Config: cfg(v2, `  commit_message = "kalypso: v2"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("files"), filesCheck(v2)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 5),
					gitopsExpectHead(t, repo, "main"),
				},
			},
			{ // promoted commit: written at the repository root without newline
				Config: cfg(v2, `  commit_message = "kalypso: v2"
  promoted_commit_id = "0123456789abcdef0123456789abcdef01234567"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("promoted_commit_id"), knownvalue.StringExact("0123456789abcdef0123456789abcdef01234567")),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2), map[string]string{".github/tracking/Promoted_Commit_Id": "0123456789abcdef0123456789abcdef01234567"}), 6),
					gitopsExpectNoStrayObjects(t, repo),
				},
			},
			{ // removing promoted_commit_id removes the tracking file
				Config:            cfg(v2, `  commit_message = "kalypso: v2"`),
				ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 7)},
			},
			{ // import by id
				ResourceName:      gitopsAddr,
				ImportState:       true,
				ImportStateId:     "file://" + repo + "//clusters?ref=main",
				ImportStateVerify: true,
				// commit_message and deletion_protection are configuration only: they are not recorded in the repository in a way import can recover;
				// nor is the change set of the last apply (changes, changes_summary, changes_by_directory, base_tree_id).
				ImportStateVerifyIgnore: []string{"commit_message", "deletion_protection", "changes", "changes_summary", "changes_counts", "changes_by_directory", "base_tree_id", "deletion_reference"},
			},
		},
	})
}

// TestAccGitopsCommit_SmartHTTPAuthAndSecrets runs against a real smart-HTTP server (git http-backend)
// with basic auth: a wrong token fails clearly, the right one works, and the token never appears in
// the state file, `terraform show -json`, or a TF_LOG=trace log.
func TestAccGitopsCommit_SmartHTTPAuthAndSecrets(t *testing.T) {
	const token = "ghp_SECRETtoken0123456789abcdef"
	const wrong = "ghp_WRONGtoken0123456789abcdef"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})

	work, logPath := gitopsTraceLog(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", wrong)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1

	files := map[string]string{"drone/README.md": "drone"}
	cfg := gitopsCfg{Provider: fmt.Sprintf("cache_dir = %s", gitopsHCL(filepath.Join(work, "cache"))), URL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: files}.String()
	noSecret := gitopsStateCheckFunc(func(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
		b, err := json.Marshal(req.State)
		if err != nil {
			resp.Error = err
			return
		}
		if strings.Contains(string(b), token) || strings.Contains(string(b), wrong) {
			resp.Error = fmt.Errorf("terraform show -json contains the token")
		}
		if !strings.Contains(string(b), "drone/README.md") {
			resp.Error = fmt.Errorf("show -json does not hold the resource: %s", b)
		}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)authentication.*git_token`),
			},
			{
				PreConfig: func() { t.Setenv("GIT_TOKEN", token) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					noSecret,
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2),
					gitopsExpectNoStrayObjects(t, repo),
				},
			},
			{ // auth revoked: refresh is an error and never drops the resource
				PreConfig:   func() { srv.SetToken("rotated") },
				Config:      cfg,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Git authentication failed.*git_token`),
			},
			{ // restored: the resource is still in state, nothing to do
				PreConfig: func() { srv.SetToken(token) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{noSecret, gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)},
			},
			{ // the branch provably no longer exists: removed from state, and recreating it needs create_branch
				PreConfig: func() {
					gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "-d", "refs/heads/main")
				},
				Config:      cfg,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Git branch does not exist.*the repository has no branches.*create_branch = true`)),
			},
		},
	})

	gitopsScanForSecrets(t, work, logPath, gitEvents, token, wrong)
}

// gitopsTraceLog keeps Terraform's working directories below work and writes a TF_LOG=trace log of
// Terraform and the provider to logPath, for gitopsScanForSecrets.
func gitopsTraceLog(t *testing.T) (work, logPath string) {
	work = t.TempDir()
	logPath = filepath.Join(work, "tf-trace.log")
	t.Setenv("TF_ACC_TEMP_DIR", work)
	t.Setenv("TF_ACC_PERSIST_WORKING_DIR", "1")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG", "TRACE")
	return work, logPath
}

// gitEvents are the provider's debug events of every apply: what it fetched and pushed.
var gitEvents = []string{"git fetch", "git push"}

// gitopsScanForSecrets greps every file Terraform wrote below work (state files, backups, plans,
// the trace log) for the secrets, and fails when no state file or trace log was seen, or when the
// trace log lacks one of the provider's debug events, so that the scan covers them.
func gitopsScanForSecrets(t *testing.T, work, logPath string, events []string, secrets ...string) {
	t.Helper()
	var scanned, states int
	var logSeen bool
	err := filepath.Walk(work, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if strings.Contains(p, string(filepath.Separator)+"cache"+string(filepath.Separator)) || strings.Contains(p, "plugins") || strings.HasSuffix(p, "terraform") {
			return nil // the Git cache and the terraform binary itself
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		scanned++
		if strings.HasSuffix(p, ".tfstate") {
			states++
		}
		if p == logPath && strings.Contains(string(b), "kalypso_gitops_commit") {
			logSeen = true
			for _, event := range events {
				if !strings.Contains(string(b), event) {
					t.Errorf("the trace log has no %q debug event, so the scan does not cover it", event)
				}
			}
		}
		for _, secret := range secrets {
			if strings.Contains(string(b), secret) {
				t.Errorf("secret found in %s", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if states == 0 || !logSeen {
		t.Fatalf("the secret scan did not see state files (%d) and the trace log (%v); scanned %d files", states, logSeen, scanned)
	}
}

// TestAccGitopsCommit_SSH pushes over ssh to a test-started ssh server (there is no sshd on the test
// machines; the server is golang.org/x/crypto/ssh running git-upload-pack/receive-pack), with the key
// and known_hosts from the environment, then with a pinned host key fingerprint; a wrong host key fails.
// The private key never appears in state, show -json or the trace log.
func TestAccGitopsCommit_SSH(t *testing.T) {
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.StartSSH(t, root)
	other := gitserver.StartSSH(t, t.TempDir())
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GIT_SSH_KEY", srv.ClientKeyPEM)
	t.Setenv("GIT_SSH_KNOWN_HOSTS", srv.KnownHosts)
	// The base64 body line of the key is what must never leak.
	keyLine := strings.Split(strings.TrimSpace(srv.ClientKeyPEM), "\n")[0]
	keyLines := strings.Split(srv.ClientKeyPEM, "\n")
	if len(keyLines) > 2 {
		keyLine = keyLines[1]
	}
	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2"}
	cfg := func(files map[string]string, extra string) string {
		return gitopsCfg{URL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: files, Extra: extra}.String()
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:           cfg(v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
				},
			},
			{ // pin the host key by fingerprint
				Config:           cfg(v1, fmt.Sprintf("  ssh_host_key_fingerprint = %s", gitopsHCL(srv.HostKeyFingerprint))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
				},
			},
			{ // known_hosts now names another key, but the pinned fingerprint is used
				PreConfig: func() { t.Setenv("GIT_SSH_KNOWN_HOSTS", other.KnownHosts) },
				Config:    cfg(v2, fmt.Sprintf("  ssh_host_key_fingerprint = %s", gitopsHCL(srv.HostKeyFingerprint))),
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3),
				},
			},
			{ // the fingerprint of another host: the push is refused, nothing is written
				Config:      cfg(v1, fmt.Sprintf("  ssh_host_key_fingerprint = %s", gitopsHCL(other.HostKeyFingerprint))),
				ExpectError: regexp.MustCompile(`(?s)authentication failed.*fingerprint`),
			},
			{ // unchanged state and repository after the refused push
				Config:           cfg(v2, fmt.Sprintf("  ssh_host_key_fingerprint = %s", gitopsHCL(srv.HostKeyFingerprint))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3),
				},
			},
		},
	})
	if len(keyLine) < 20 {
		t.Fatalf("could not extract a key line from the PEM")
	}
	gitopsScanForSecrets(t, work, logPath, gitEvents, keyLine)
}

// TestAccGitopsCommit_ConcurrentWriterDuringApply injects a commit to another path of the same branch
// after the plan, when the provider starts pushing; the push is retried on the new head and both changes are kept.
func TestAccGitopsCommit_ConcurrentWriterDuringApply(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	var armed, injected atomic.Int32
	srv := gitserver.Start(t, root, gitserver.Options{Wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if armed.Load() == 1 && r.URL.Query().Get("service") == "git-receive-pack" && injected.Add(1) == 1 {
				gitserver.Commit(t, repo, "main", "other team", map[string]string{"apps/team-b/deploy.yaml": "kind: Deployment\n"}, nil)
			}
			next.ServeHTTP(w, r)
		})
	}})
	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2", "large/README.md": "large"}
	cfg := func(files map[string]string) string {
		return gitopsCfg{URL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: files}.String()
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(v1), ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2)}},
			{
				PreConfig: func() { armed.Store(1) },
				Config:    cfg(v2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsRepoCheck(func() error {
						if injected.Load() < 1 {
							return fmt.Errorf("the concurrent writer did not run")
						}
						return nil
					}),
					// seed, v1, the other writer, v2 on top of it
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2), map[string]string{"apps/team-b/deploy.yaml": "kind: Deployment\n"}), 4),
					gitopsRepoCheck(func() error {
						if got := gitserver.Git(t, "", nil, "--git-dir", repo, "log", "-1", "--format=%s", "main^"); got != "other team" {
							return fmt.Errorf("our commit must sit on the other writer's commit, parent is %q", got)
						}
						return nil
					}),
					gitopsExpectHead(t, repo, "main"),
				},
			},
		},
	})
}

// TestAccGitopsCommit_PullRequestMode_MockGitHubAPI uses a mock of the GitHub REST API (github.com is
// unreachable from the test machines) and a local bare repository reached through git_url_rewrites.
// The token never appears in the state files, plans or the TF_LOG=trace log, which holds the provider's
// debug events of the GitHub requests.
func TestAccGitopsCommit_PullRequestMode_MockGitHubAPI(t *testing.T) {
	const token = "ghp_PRmodeSECRET0123456789abcdef"
	root := t.TempDir()
	// The base already holds what an earlier, merged proposal delivered (files and ownership record).
	base := gitopsManaged("clusters", map[string]string{"drone/README.md": "drone"})
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", fixtures.Merge(gitopsOutside, base))
	gh := mockgithub.Start(t, token)
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GIT_TOKEN", token)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1
	t.Setenv("GITHUB_TOKEN", "")
	provider := fmt.Sprintf("github_base_url = %s\n  git_url_rewrites = { %s = %s }", gitopsHCL(gh.BaseURL()), gitopsHCL("https://github.com/org/"), gitopsHCL("file://"+root+"/"))
	cfg := func(files map[string]string, extra string) string {
		return gitopsCfg{Provider: provider, URL: "https://github.com/org/fleet.git", Branch: "main", Path: "clusters", Files: files,
			Extra: "  pull_request = { labels = [\"kalypso\"] }\n" + extra}.String()
	}
	v0 := map[string]string{"drone/README.md": "drone"}
	v1 := map[string]string{"drone/README.md": "drone v1", "drone/dev/namespace.yaml": "ns"}
	v2 := map[string]string{"drone/README.md": "drone v2", "drone/dev/namespace.yaml": "ns", "large/README.md": "large"}
	baseHead := gitserver.Head(t, repo, "main")
	prCheck := func(want []mockgithub.PR) statecheck.StateCheck {
		return gitopsRepoCheck(func() error {
			got := gh.PRs("org/fleet")
			if len(got) != len(want) {
				return fmt.Errorf("PRs %+v, want %d", got, len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Number != w.Number || g.State != w.State || g.Merged != w.Merged || g.Head != "kalypso/main" || g.Base != "main" ||
					(w.Title != "" && g.Title != w.Title) || (w.Labels != nil && !reflect.DeepEqual(g.Labels, w.Labels)) {
					return fmt.Errorf("PR %d = %+v, want %+v", i, g, w)
				}
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{ // the base's ownership record is this resource's once imported (a create would find it owned)
				Config: cfg(v0, ""), ResourceName: gitopsAddr, ImportState: true, ImportStatePersist: true,
				ImportStateId: "https://github.com/org/fleet.git//clusters?ref=main",
			},
			{ // no change against the base: no PR, no branch
				Config: cfg(v0, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_state"), knownvalue.StringExact("none")),
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.Null()),
					prCheck(nil),
					gitopsRepoCheck(func() error {
						if gitserver.Head(t, repo, "kalypso/main") != "" || gitserver.Head(t, repo, "main") != baseHead {
							return fmt.Errorf("no-change must not push")
						}
						return nil
					}),
				},
			},
			{ // change: PR created from kalypso/main, base untouched
				Config:           cfg(v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("1")),
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_state"), knownvalue.StringExact("open")),
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_url"), knownvalue.StringRegexp(regexp.MustCompile(`/org/fleet/pull/1$`))),
					prCheck([]mockgithub.PR{{Number: 1, State: "open", Title: "Kalypso: update main (1 cluster type, 2 files)", Labels: []string{"kalypso"}}}),
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, base), 1),
					gitopsExpectRepo(t, repo, "kalypso/main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
				},
			},
			{ // change again with a promoted commit: the same PR is updated in place and labelled promoted
				Config:           cfg(v2, `  promoted_commit_id = "abc1230000000000000000000000000000000000"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("1")),
					prCheck([]mockgithub.PR{{Number: 1, State: "open", Title: "Kalypso: update main (2 cluster types, 3 files)", Labels: []string{"kalypso", "promoted"}}}),
					gitopsExpectRepo(t, repo, "kalypso/main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2), map[string]string{".github/tracking/Promoted_Commit_Id": "abc1230000000000000000000000000000000000"}), 2),
					gitopsExpectHead(t, repo, "kalypso/main"),
				},
			},
			{ // merged (content now on the base): refresh reports it, nothing to do
				PreConfig: func() {
					gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", gitserver.Head(t, repo, "kalypso/main"))
					gh.SetState("org/fleet", 1, true)
				},
				Config:           cfg(v2, `  promoted_commit_id = "abc1230000000000000000000000000000000000"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_state"), knownvalue.StringExact("merged")),
					prCheck([]mockgithub.PR{{Number: 1, State: "closed", Merged: true}}),
				},
			},
			{ // a new change opens a new PR
				Config: cfg(v1, `  promoted_commit_id = "abc1230000000000000000000000000000000000"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("2")),
					prCheck([]mockgithub.PR{{Number: 1, State: "closed", Merged: true}, {Number: 2, State: "open", Labels: []string{"kalypso"}}}),
				},
			},
			{ // closed without merge: drift, the next apply opens a new PR
				PreConfig: func() { gh.SetState("org/fleet", 2, false) },
				Config:    cfg(v1, `  promoted_commit_id = "abc1230000000000000000000000000000000000"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(gitopsAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_number"), knownvalue.StringExact("3")),
					statecheck.ExpectKnownValue(gitopsAddr, tfjsonpath.New("pull_request_state"), knownvalue.StringExact("open")),
					prCheck([]mockgithub.PR{{Number: 1, State: "closed", Merged: true}, {Number: 2, State: "closed"}, {Number: 3, State: "open"}}),
				},
			},
		},
	})

	gitopsScanForSecrets(t, work, logPath, []string{"github request", "github pull request"}, token)
}

// TestAccGitopsCommit_InvalidConfig checks plan-time validation diagnostics.
func TestAccGitopsCommit_InvalidConfig(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", gitopsOutside)
	cases := []struct {
		cfg  gitopsCfg
		want string
	}{
		{gitopsCfg{URL: "https://user:pw@example.com/org/fleet.git", Branch: "main", Files: map[string]string{"a": "a"}}, `(?s)Invalid repository_url.*credentials`},
		{gitopsCfg{URL: "file://" + repo, Branch: "main", Files: map[string]string{".hidden": "a"}}, `(?s)Dot-entry at the root of path`},
		{gitopsCfg{URL: "file://" + repo, Branch: "main", Files: map[string]string{"a/../../x": "a"}}, `(?s)Invalid file name`},
		{gitopsCfg{URL: "file://" + repo, Branch: "main", Path: "../outside", Files: map[string]string{"a": "a"}}, `(?s)Invalid path`},
		{gitopsCfg{URL: "ftp://example.com/fleet.git", Branch: "main", Files: map[string]string{"a": "a"}}, `(?s)Invalid repository_url.*unsupported URL scheme`},
		// Git accepts these branch names; a reviewer cannot see the zero-width space, and "dév" has two spellings.
		{gitopsCfg{URL: "file://" + repo, Branch: "main\u200b", Files: map[string]string{"a": "a"}}, `(?s)Invalid branch.*U\+200B\s+at byte 4`},
		{gitopsCfg{URL: "file://" + repo, Branch: "dév", Files: map[string]string{"a": "a"}, Extra: "  create_branch = true\n"}, `(?s)Invalid branch.*U\+00E9\s+at byte 1`},
		{gitopsCfg{URL: "file://" + repo, Branch: "main", Files: map[string]string{"a": "a"}, Extra: "  pull_request = { head_branch = \"kalypso/d\u00e9v\" }\n"}, `(?s)Invalid head_branch.*U\+00E9`},
		// SECURITY.md: credentials that a rewrite introduces are refused at plan time too, and never printed.
		{gitopsCfg{Provider: `git_url_rewrites = { "https://example.com/" = "https://user:hunter2@example.com/" }`, URL: "https://example.com/org/fleet.git", Branch: "main", Files: map[string]string{"a": "a"}},
			`(?s)after URL rewrite.*credentials embedded in the repository URL.*git_token`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: c.cfg.String(), PlanOnly: true, ExpectError: regexp.MustCompile(c.want)})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	if n := gitserver.CommitCount(t, repo, "main"); n != 1 {
		t.Fatalf("invalid configuration wrote to the repository: %d commits", n)
	}
	if refs := gitserver.Git(t, "", nil, "--git-dir", repo, "for-each-ref", "--format=%(refname)"); strings.TrimSpace(refs) != "refs/heads/main" {
		t.Fatalf("invalid configuration created a branch: %q", refs)
	}
}

// TestAccGitopsCommit_TwoResourcesSameBranch applies two resources that own different paths of one
// branch in the same run (Terraform applies them in parallel): both land, one commit each.
func TestAccGitopsCommit_TwoResourcesSameBranch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.Start(t, root, gitserver.Options{})
	config := fmt.Sprintf(`
resource "kalypso_gitops_commit" "dev" {
  repository_url = %[1]s
  deletion_protection = false # the test framework destroys what the test created
  branch         = "main"
  path           = "envs/dev"
  files          = { "drone/README.md" = "dev" }
}

resource "kalypso_gitops_commit" "prod" {
  repository_url = %[1]s
  deletion_protection = false # the test framework destroys what the test created
  branch         = "main"
  path           = "envs/prod"
  files          = { "drone/README.md" = "prod" }
}
`, gitopsHCL(srv.RepoURL("fleet.git")))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:           config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("envs/dev", map[string]string{"drone/README.md": "dev"}), gitopsManaged("envs/prod", map[string]string{"drone/README.md": "prod"})), 3),
			},
		}},
	})
}

// A delivery error on a nested attribute points at that attribute, not at a top-level name with a dot.
func TestAttributePathOfDeliveryNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]path.Path{
		"branch":                   path.Root("branch"),
		"pull_request.head_branch": path.Root("pull_request").AtName("head_branch"),
	} {
		if got := attributePath(name); !got.Equal(want) {
			t.Errorf("attributePath(%q) = %s, want %s", name, got, want)
		}
	}
}
