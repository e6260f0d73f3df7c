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

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// The operator makes Flux fetch main at the BaseRepo's spec.commit. Main here has a newer commit that
// changes the namespace template; following dev's BaseRepo (over smart HTTP, so the shallow cache must
// be deepened) renders upstream's dev tree without it, and so does an explicit git.commit on main.
func TestAccControlPlaneDataSource_followBaseRepoReadsMainAtThePin(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare, pinned := fixtures.ControlPlanePinnedRepo(t, root)
	fixtures.SvcSrcRepo(t, root)
	srv := gitserver.Start(t, root, gitserver.Options{})
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	cfg := fmt.Sprintf(`
provider "kalypso" {
  git_url_rewrites = { %[1]q = %[2]q }
  cache_dir        = %[3]q
}

data "kalypso_control_plane" "dev" {
  git = {
    repo   = %[4]q
    branch = "dev"
  }
  follow_base_repo  = true
  resolve_workloads = true
}

data "kalypso_control_plane" "main_at_pin" {
  git = {
    repo   = %[4]q
    branch = "main"
    commit = data.kalypso_control_plane.dev.base_repo_commit
  }
  resolve_workloads = true
}

data "kalypso_control_plane" "dev_only" {
  git = {
    repo   = %[4]q
    branch = "dev"
  }
}

output "followed" {
  value = provider::kalypso::environment_render("dev", data.kalypso_control_plane.dev.manifests).files
}

output "pinned" {
  value = provider::kalypso::environment_render("dev", concat(data.kalypso_control_plane.main_at_pin.manifests, data.kalypso_control_plane.dev_only.manifests)).files
}
`, sampleOrg, srv.URL+"/", filepath.ToSlash(t.TempDir()), sampleControlPlane)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("followed", filesCheck(want)),
				statecheck.ExpectKnownOutputValue("pinned", filesCheck(want)),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.dev", tfjsonpath.New("base_repo"), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"repo": knownvalue.StringExact(sampleControlPlane), "branch": knownvalue.StringExact("main"),
					"path": knownvalue.StringExact("."), "commit": knownvalue.StringExact(pinned),
				})),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.main_at_pin", tfjsonpath.New("commit"), knownvalue.StringExact(pinned)),
				statecheck.ExpectKnownValue("data.kalypso_control_plane.dev", tfjsonpath.New("commit"), knownvalue.StringExact(gitserver.Head(t, bare, "dev"))),
			},
		}},
	})
}

func TestAccControlPlaneDataSource_pinnedCommitErrors(t *testing.T) {
	t.Parallel()
	bare, _ := fixtures.ControlPlanePinnedRepo(t, "")
	devHead := gitserver.Head(t, bare, "dev")
	read := func(commit string) string {
		return fmt.Sprintf(`
data "kalypso_control_plane" "main" {
  git = {
    repo   = %q
    branch = "main"
    commit = %q
  }
}
`, "file://"+bare, commit)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: read(devHead), ExpectError: regexp.MustCompile(`(?s)` + devHead + `\s+is not main's head.*nor one of its\s+ancestors.*Check git\.commit`)},
			{Config: read("v1.2.3"), ExpectError: regexp.MustCompile(`(?s)Attribute git\.commit must be a Git commit SHA`)},
			{Config: `
data "kalypso_control_plane" "dir" {
  dir              = "."
  follow_base_repo = true
}
`, ExpectError: regexp.MustCompile(`cannot be configured together: \[dir,follow_base_repo\]`)},
		},
	})
}

// examples/control-plane as users run it, through its git_mirror variable: the pushed dev tree is
// upstream's, although main's head holds a change that was never promoted, and the tracking file names
// the pin.
func TestAccControlPlaneDataSource_exampleRendersMainAtThePin(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	org := filepath.Join(root, "microsoft")
	_, pinned := fixtures.ControlPlanePinnedRepo(t, org)
	fixtures.SvcSrcRepo(t, org)
	gitops := gitserver.NewSeededRepo(t, org, "kalypso-gitops", "dev", map[string]string{"README.md": "dev"})
	srv := gitserver.Start(t, root, gitserver.Options{})
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "control-plane", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(example)
	cfg = gitopsUnprotected(cfg[strings.Index(cfg, `variable "control_plane_repo"`):])
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigVariables: config.Variables{
				"control_plane_repo": config.StringVariable(sampleControlPlane),
				"git_mirror":         config.StringVariable(srv.URL + "/"),
			},
			Check: func(*terraform.State) error {
				files, promoted := fixtures.SplitTracking(gitserver.Files(t, gitops, "dev"))
				delete(files, "README.md")
				delete(files, ".kalypso-gitops-commit") // the resource's own marker
				if d := fixtures.DiffTrees(want, files); d != "" {
					return fmt.Errorf("pushed dev tree differs from upstream's:\n%s", d)
				}
				if promoted != pinned {
					return fmt.Errorf("Promoted_Commit_Id = %q, want the pin %s", promoted, pinned)
				}
				return nil
			},
		}},
	})
}
