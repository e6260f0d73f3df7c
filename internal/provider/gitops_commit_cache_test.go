// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestAccGitopsCommit_SavedPlanHealsADamagedCache: a saved plan (plan -out) applied right after the
// provider's clone under cache_dir was damaged heals it as a fresh plan does: the apply discards the
// cache entry, fetches again and writes the planned commit. Before, it failed with "zlib: invalid header".
func TestAccGitopsCommit_SavedPlanHealsADamagedCache(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	srv := gitserver.Start(t, r.root, gitserver.Options{})
	cache := filepath.Join(r.work, "cache")
	v1 := map[string]string{"drone/README.md": "drone", "drone/dev/namespace.yaml": "ns"}
	v2 := map[string]string{"drone/README.md": "drone v2", "drone/dev/namespace.yaml": "ns"}
	for _, what := range []string{"every object", "the head commit"} {
		r.write(lifecycleResource(srv.RepoURL("fleet.git"), v1, ""))
		r.must("apply", "-auto-approve")
		r.write(lifecycleResource(srv.RepoURL("fleet.git"), v2, ""))
		r.expectExit(2, "plan", "-detailed-exitcode", "-out=v2.tfplan")
		head := gitserver.Head(t, r.repo, "main")
		n := 0
		err := filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(p, string(filepath.Separator)+"objects"+string(filepath.Separator)) {
				return err
			}
			if what == "the head commit" && !strings.HasSuffix(p, filepath.Join(head[:2], head[2:])) {
				return nil
			}
			n++
			return os.WriteFile(p, []byte("not a zlib stream"), 0o644)
		})
		if what == "the head commit" && n == 0 { // packed: write the loose object that go-git reads first
			err = filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
				if err != nil || !d.IsDir() || d.Name() != "objects" {
					return err
				}
				n++
				if err := os.MkdirAll(filepath.Join(p, head[:2]), 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(p, head[:2], head[2:]), []byte("not a zlib stream"), 0o644)
			})
		}
		if err != nil || n == 0 {
			t.Fatalf("%s: damaging the cache: %v (%d files)", what, err, n)
		}
		out := r.must("apply", "v2.tfplan")
		if strings.Contains(out, "zlib") {
			t.Errorf("%s: %s", what, out)
		}
		if got := gitserver.Files(t, r.repo, "main")["clusters/drone/README.md"]; got != v2["drone/README.md"] {
			t.Errorf("%s: the saved plan did not land: %q", what, got)
		}
		r.expectExit(0, "plan", "-detailed-exitcode")
		v1, v2 = v2, v1
	}
}
