// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_HostileGitHostAnswer: a real smart-HTTP Git server answers 401 with a body that
// echoes the request's credentials (basic-auth user:token and the Authorization header) and terminal
// escapes (clear screen, a fake "Apply complete!", a window title), at plan (the fetch) and at apply
// (the push). The diagnostic keeps the body's printable text with the secrets redacted, exactly; the
// token and the escapes are in no plan output, state, show -json or TF_LOG=trace line; nothing is written.
func TestAccGitopsCommit_HostileGitHostAnswer(t *testing.T) {
	const token = "ghp_HOSTILEecho0123456789abcdef"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", token)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1

	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2"}
	cfg := func(files map[string]string) string {
		return gitopsCfg{Provider: fmt.Sprintf("cache_dir = %s", gitopsHCL(filepath.Join(work, "cache"))), URL: srv.RepoURL("fleet.git"),
			Branch: "main", Path: "clusters", Files: files}.String()
	}
	// The whole sanitized answer, in order; spaces match Terraform's line wrapping.
	answer := regexp.MustCompile(spaceTolerant(`(?s)authentication failed: authentication required: denied: x-access-token:REDACTED ` +
		`Authorization: REDACTED Apply complete! Resources: 0 added, 0 changed, 0 destroyed.\\r \(check the token or ssh key and its permissions\)`))
	var hits gitserver.Counter
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{ // plan: the fetch gets the hostile answer
				PreConfig:   func() { srv.SetWrap(gitserver.EchoCredentials(gitserver.Any, &hits)) },
				Config:      cfg(v1),
				ExpectError: answer,
			},
			{
				PreConfig: func() { srv.SetWrap(nil) },
				Config:    cfg(v1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
				},
			},
			{ // apply: the plan reads the branch, the push gets the hostile answer; nothing is written
				PreConfig:   func() { srv.SetWrap(gitserver.EchoCredentials(gitserver.ReceivePack, &hits)) },
				Config:      cfg(v2),
				ExpectError: answer,
			},
			{
				PreConfig: func() { srv.SetWrap(nil) },
				Config:    cfg(v1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2),
				},
			},
		},
	})
	if hits.N() < 2 {
		t.Fatalf("the hostile answer was served %d times; want the fetch and the push", hits.N())
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token)) // the echoed Authorization header
	gitopsScanForSecrets(t, work, logPath, gitEvents, token, basic, "\x1b[2J", "\x1b]0;owned")
}
