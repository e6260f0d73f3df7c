// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

// TestAccControlPlane_ContentURLsAreUntrusted: URLs that come from a control plane's content are chosen by
// whoever can write to it, not by the configuration. Real terraform, a control plane behind a rewrite to a
// local bare repository, and a kalypso_gitops_commit whose files come from the read:
//   - dev's BaseRepo `main` names a repository that exists only on the runner's disk, holding a ConfigMap
//     with a password: the plan fails with ErrLocalContent's hint at allow_local_repositories_from_content,
//     and the password is in no output;
//   - main's WorkloadRegistration names http://127.0.0.1:<port>/ with GIT_TOKEN set and allow_loopback_http
//     on: that server receives no credential (before, `Basic x-access-token:<token>` up front);
//   - with git_credential_hosts naming it, it receives the token (the case is live).
//
// Nothing is written to the GitOps branch, and the token, its basic-auth form and the password are in
// no plan output, state, show -json or TF_LOG=trace line.
func TestAccControlPlane_ContentURLsAreUntrusted(t *testing.T) {
	const token = "ghp_CONTENTscope0123456789abcdef"
	const password = "hunter2-RUNNER-ONLY"
	root := t.TempDir()
	runnerOnly := gitserver.NewSeededRepo(t, t.TempDir(), "runner-only.git", "main", map[string]string{
		"leak.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\n  labels:\n    platform-config: \"true\"\ndata:\n  password: " + password + "\n",
	})
	// A private repository's host: every request without (or with a wrong) credential is refused.
	recorder := hostile.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
	}))
	cp := gitserver.NewSeededRepo(t, root, "cp.git", "main", map[string]string{
		"registration.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: WorkloadRegistration\nmetadata:\n  name: app\nspec:\n  workload:\n" +
			"    repo: " + recorder.URL + "/app.git\n    branch: main\n    path: workload\n  workspace: team\n",
	})
	gitserver.Commit(t, cp, "dev", "dev's BaseRepo", map[string]string{
		"base-repo.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: BaseRepo\nmetadata:\n  name: main\nspec:\n  repo: " + runnerOnly + "\n  branch: main\n  path: .\n",
	}, nil)
	gitops := gitserver.NewSeededRepo(t, root, "gitops.git", "main", gitopsOutside)
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", token)

	files := map[string]string{"drone/README.md": "drone"}
	provider := func(extra string) string {
		return fmt.Sprintf("cache_dir = %s\n  allow_loopback_http = true\n  git_url_rewrites = { %s = %s }\n%s",
			gitopsHCL(filepath.Join(work, "cache")), gitopsHCL("https://example.test/"), gitopsHCL("file://"+root+"/"), extra)
	}
	commit := func(extra string) gitopsCfg {
		return gitopsCfg{Provider: provider(extra), URL: "file://" + gitops, Branch: "main", Path: "clusters", Files: files}
	}
	withRead := func(extra, source string) string {
		c := commit(extra)
		c.Files = nil
		read := `
data "kalypso_control_plane" "dev" {
  git = {
    repo   = "https://example.test/cp.git"
    branch = "dev"
  }
  follow_base_repo = true
}
`
		if source == "data.kalypso_control_plane.main" {
			read = `
data "kalypso_control_plane" "main" {
  git = {
    repo   = "https://example.test/cp.git"
    branch = "main"
  }
  resolve_workloads = true
}
`
		}
		return strings.Replace(c.String(), "  files = {\n  }\n", "  files = merge("+gitopsHCL2(files)+", { for i, m in "+source+".manifests : \"cp/${i}.yaml\" => m })\n", 1) + read
	}
	want := fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: commit("").String(), ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, gitops, "main", want, 2)}},
			{ // the BaseRepo names a repository on the runner's disk
				Config: withRead("", "data.kalypso_control_plane.dev"),
				ExpectError: regexp.MustCompile(spaceTolerant(`(?s)local repository named by repository content.*` +
					`only when the provider sets allow_local_repositories_from_content = true`)),
			},
			{ // the WorkloadRegistration names a plain-http host: it gets no credential
				Config: withRead("", "data.kalypso_control_plane.main"),
				ExpectError: regexp.MustCompile(spaceTolerant(`(?s)Cannot resolve the Workload of a WorkloadRegistration.*authentication.*` +
					`to a URL that comes from repository content \(a BaseRepo or WorkloadRegistration\) only when git_url_rewrites maps it or its host is in the provider's git_credential_hosts`)),
			},
			{
				PreConfig: func() {
					if a := recorder.Authorizations(); len(recorder.Requests()) == 0 || len(a) > 0 {
						t.Fatalf("the content URL's host saw %d requests with credentials %q; want requests without", len(recorder.Requests()), a)
					}
				},
				// listed in git_credential_hosts, the same host gets the token (the case above is live)
				Config:      withRead("  git_credential_hosts = ["+gitopsHCL(strings.TrimPrefix(recorder.URL, "http://"))+"]", "data.kalypso_control_plane.main"),
				ExpectError: regexp.MustCompile(`Cannot resolve the Workload of a WorkloadRegistration`),
			},
			{
				PreConfig: func() {
					if len(recorder.Authorizations()) == 0 {
						t.Fatal("a host in git_credential_hosts received no token")
					}
				},
				Config: commit("").String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{gitopsExpectRepo(t, gitops, "main", want, 2)},
			},
		},
	})
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	gitopsScanForSecrets(t, work, logPath, nil, token, basic, password)
}

// gitopsHCL2 writes a map of strings as an HCL object.
func gitopsHCL2(m map[string]string) string {
	var b strings.Builder
	b.WriteString("{")
	for k, v := range m {
		fmt.Fprintf(&b, " %s = %s,", gitopsHCL(k), gitopsHCL(v))
	}
	b.WriteString(" }")
	return b.String()
}
