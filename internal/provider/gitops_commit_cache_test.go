// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestAccGitopsCommit_DamagedCacheIsRefetched (issue 24 item 7): a loose object in cache_dir that is not a
// zlib stream, standing for the branch's head commit, used to fail every later plan with "zlib: invalid
// header ... the remote may be unreachable". The provider discards that repository's cache entry and
// fetches again: the refresh and plan succeed (empty), the next change applies as one commit, and the
// trace log holds the debug line; the token is in no output.
func TestAccGitopsCommit_DamagedCacheIsRefetched(t *testing.T) {
	const token = "ghp_CACHEdamage0123456789abcdef"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", gitopsOutside)
	srv := gitserver.Start(t, root, gitserver.Options{Token: token})
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", token)
	t.Setenv("KALYPSO_ALLOW_LOOPBACK_HTTP", "1") // the test servers are plain http on 127.0.0.1
	cache := filepath.Join(work, "cache")
	cfg := func(files map[string]string) string {
		return gitopsCfg{Provider: fmt.Sprintf("cache_dir = %s", gitopsHCL(cache)), URL: srv.RepoURL("fleet.git"), Branch: "main", Path: "clusters", Files: files}.String()
	}
	damage := func() {
		head := gitserver.Head(t, repo, "main")
		n := 0
		err := filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != "objects" {
				return err
			}
			obj := filepath.Join(p, head[:2], head[2:])
			if err := os.MkdirAll(filepath.Dir(obj), 0o755); err != nil {
				return err
			}
			n++
			return os.WriteFile(obj, []byte("not a zlib stream"), 0o644)
		})
		if err != nil || n == 0 {
			t.Fatalf("damaging the cache: %v (%d entries)", err, n)
		}
	}
	v1 := map[string]string{"drone/README.md": "drone"}
	v2 := map[string]string{"drone/README.md": "drone v2"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(v1)},
			{
				PreConfig:        damage,
				Config:           cfg(v1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				PreConfig: damage,
				Config:    cfg(v2),
				ConfigStateChecks: []statecheck.StateCheck{
					gitopsExpectRepo(t, repo, "main", fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3),
				},
			},
		},
	})
	gitopsScanForSecrets(t, work, logPath, []string{"git cache damaged: discarding this repository's cache entry and fetching again"}, token)
}
