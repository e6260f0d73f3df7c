// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestProviderProcessRemovesItsTemporaryGitCache runs the real provider binary under the real terraform
// binary, reading a control-plane repository over smart HTTP (a full clone into the Git cache). When
// terraform stops the provider process, the process's kalypso-git-cache-* directory is gone from the temp
// dir. With cache_dir set, the clone is kept there, which shows that the run did fill a cache.
func TestProviderProcessRemovesItsTemporaryGitCache(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1: builds the provider and runs terraform")
	}
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not on PATH")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-kalypso"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	gitserver.NewSeededRepo(t, root, "cp.git", "main", map[string]string{
		"cluster-types/large.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: large\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n",
	})
	srv := gitserver.Start(t, root, gitserver.Options{})
	rc := filepath.Join(work, "terraformrc")
	if err := os.WriteFile(rc, []byte("provider_installation {\n  dev_overrides {\n    \"kalypso/kalypso\" = \""+bin+"\"\n  }\n  direct {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	run := func(t *testing.T, providerBlock string) string {
		t.Helper()
		dir, tmp := t.TempDir(), t.TempDir()
		cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"kalypso/kalypso\" }\n  }\n}\n" + providerBlock +
			"data \"kalypso_control_plane\" \"cp\" {\n  git = { repo = \"" + srv.URL + "/cp.git\", branch = \"main\", path = \".\" }\n}\n" +
			"output \"n\" {\n  value = length(data.kalypso_control_plane.cp.manifests)\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tfBin, "plan", "-input=false", "-no-color")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TMPDIR="+tmp, "TF_IN_AUTOMATION=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "n = 1") {
			t.Fatalf("terraform plan: %v\n%s", err, out)
		}
		return tmp
	}

	t.Run("temporary cache removed when the process ends", func(t *testing.T) {
		tmp := run(t, "provider \"kalypso\" {}\n")
		left, _ := filepath.Glob(filepath.Join(tmp, "kalypso-git-cache-*"))
		if len(left) != 0 {
			t.Fatalf("provider process left %v", left)
		}
	})
	t.Run("configured cache_dir kept", func(t *testing.T) {
		cache := t.TempDir()
		run(t, "provider \"kalypso\" {\n  cache_dir = \""+cache+"\"\n}\n")
		entries, err := os.ReadDir(cache)
		if err != nil || len(entries) == 0 {
			t.Fatalf("cache_dir holds %v (%v), want the clone", entries, err)
		}
	})
}
