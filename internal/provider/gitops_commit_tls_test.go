// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_TLSPrivateCA pushes to git http-backend behind an httptest TLS server whose
// certificate no system root signs. Without the provider's ca_certificates the apply fails with an
// x509 diagnostic that says what to set, and nothing is written; with it the push works. The token
// never appears in state, show -json or the trace log.
func TestAccGitopsCommit_TLSPrivateCA(t *testing.T) {
	const token = "ghp_TLSacceptance0123456789"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.Start(t, root, gitserver.Options{Token: token, TLS: true})
	work := t.TempDir()
	logPath := filepath.Join(work, "tf-trace.log")
	t.Setenv("TF_ACC_TEMP_DIR", work)
	t.Setenv("TF_ACC_PERSIST_WORKING_DIR", "1")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", token)
	files := map[string]string{"drone/README.md": "drone"}
	cfg := func(provider string) string {
		return gitopsCfg{Provider: provider, URL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: files}.String()
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      cfg(""),
				ExpectError: regexp.MustCompile(`(?s)Cannot read the Git repository.*x509.*ca_certificates`),
			},
			{
				Config: cfg(fmt.Sprintf("ca_certificates = %s", gitopsHCL(srv.CAPEM))),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectHead(t, repo, "main"),
					gitopsExpectRepo(t, repo, "main", gitopsMerged(gitopsOutside, gitopsManaged("clusters", files)), 2),
				},
			},
		},
	})
	gitopsScanForSecrets(t, work, logPath, gitEvents, token)
}
