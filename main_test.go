// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// providerUnderTerraform returns the terraform binary and the environment to run this package's provider
// build (builtProvider) in: a CLI configuration that makes Terraform use the build, and a short directory
// for the plugin's Unix socket (pluginSocketDir). It skips the test without TF_ACC or terraform.
func providerUnderTerraform(t *testing.T) (tfBin string, env []string) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1: builds the provider and runs terraform")
	}
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not on PATH")
	}
	bin := builtProvider(t)
	rc := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rc, []byte("provider_installation {\n  dev_overrides {\n    \"kalypso/kalypso\" = \""+bin+"\"\n  }\n  direct {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Clipped: each caller's append copies it instead of sharing one backing array.
	return tfBin, slices.Clip(append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, goplugin.EnvUnixSocketDir+"="+pluginSocketDir(t)))
}

// providerBuild is the provider binary that this package's tests share: built once, by the first test
// that needs it, into a directory that TestMain removes. Each test used to link its own copy (five links
// of the whole provider, 4-5 CPU s each, at the start of README's test command).
var providerBuild struct {
	once sync.Once
	dir  string // holds terraform-provider-kalypso; "" until built
	err  error
}

// builtProvider builds the provider once and returns the directory holding it, for dev_overrides.
func builtProvider(t *testing.T) string {
	t.Helper()
	providerBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "kalypso-provider-build-") //nolint:usetesting // shared by every test of the package, so it outlives the one that builds it; TestMain removes it
		if err != nil {
			providerBuild.err = err
			return
		}
		providerBuild.dir = dir
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "terraform-provider-kalypso"), ".").CombinedOutput(); err != nil {
			providerBuild.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if providerBuild.err != nil {
		t.Fatal(providerBuild.err)
	}
	return providerBuild.dir
}

// TestMain gives the terraform and provider processes the tests start GOGC=400 unless GOGC is set, as
// internal/provider's TestMain does (gcPercent: short-lived processes spend much of their CPU collecting
// garbage, and these tests run while the other packages' test binaries compile), and removes the shared
// provider build (builtProvider) after the tests.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GOGC"); !set {
		if err := os.Setenv("GOGC", "400"); err != nil {
			fmt.Fprintln(os.Stderr, "setting GOGC:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if providerBuild.dir != "" {
		_ = os.RemoveAll(providerBuild.dir)
	}
	os.Exit(code)
}

// pluginSocketDir is a directory for the provider's Unix socket with a short path. go-plugin creates the
// socket under PLUGIN_UNIX_SOCKET_DIR, else under TMPDIR, and a socket's path must fit in 104 (macOS) or
// 108 (Linux) bytes: a test's TMPDIR of 60 characters, or macOS's default /var/folders/..., leaves too
// little room for <dir>/plugin<n>/plugin<n>, and terraform then reports "Unrecognized remote plugin
// message". /tmp is used when TMPDIR is longer than that.
func pluginSocketDir(t *testing.T) string {
	t.Helper()
	base := os.TempDir()
	if fi, err := os.Stat("/tmp"); len(base) > len("/tmp") && err == nil && fi.IsDir() {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "kp") //nolint:usetesting // t.TempDir() is under TMPDIR, the long path this avoids
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// TestProviderProcessRemovesItsTemporaryGitCache runs the real provider binary under the real terraform
// binary, reading a control-plane repository over smart HTTP (a full clone into the Git cache). When
// terraform stops the provider process, the process's kalypso-git-cache-* directory is gone from the temp
// dir. With cache_dir set, the clone is kept there, which shows that the run did fill a cache.
func TestProviderProcessRemovesItsTemporaryGitCache(t *testing.T) {
	t.Parallel()
	tfBin, env := providerUnderTerraform(t)
	root := t.TempDir()
	gitserver.NewSeededRepo(t, root, "cp.git", "main", map[string]string{
		"cluster-types/large.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: large\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n",
	})
	srv := gitserver.Start(t, root, gitserver.Options{})

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
		cmd.Env = append(env, "TMPDIR="+tmp, "TF_IN_AUTOMATION=1")
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

// TestCtrlCStopsARunawayTemplate: a template that would run for hours ({{ range 9000000000 }}), with
// template_timeout and render_timeout raised far beyond the test, is stopped by Ctrl-C: terraform gets
// SIGINT, sends StopProvider, the provider cancels the render's context, and terraform exits with the
// render's "Render canceled" error. The time from SIGINT to exit is logged; the bound below only keeps
// a regression from hanging the suite.
func TestCtrlCStopsARunawayTemplate(t *testing.T) {
	t.Parallel()
	tfBin, env := providerUnderTerraform(t)
	const av = "apiVersion: scheduler.kalypso.io/v1alpha1\n"
	manifests := av + "kind: ClusterType\nmetadata:\n  name: large\nspec:\n  reconciler: runaway\n  namespaceService: default\n---\n" +
		av + "kind: WorkloadRegistration\nmetadata:\n  name: app\nspec:\n  workspace: team\n  workload: {repo: https://example.com/app, branch: main, path: .}\n---\n" +
		av + "kind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets:\n    - {name: web, environment: dev, manifests: {repo: https://example.com/app, branch: main, path: ./web}}\n---\n" +
		av + "kind: SchedulingPolicy\nmetadata:\n  name: all\nspec:\n  deploymentTargetSelector: {}\n  clusterTypeSelector: {}\n---\n" +
		av + "kind: Template\nmetadata:\n  name: runaway\nspec:\n  type: reconciler\n  manifests:\n    - '{{ range 9000000000 }}{{ end }}'\n"
	dir := t.TempDir()
	cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"kalypso/kalypso\" }\n  }\n}\n" +
		"provider \"kalypso\" {\n  template_timeout = \"10h\"\n  render_timeout = \"10h\"\n}\n" +
		"data \"kalypso_environment_render\" \"this\" {\n  environment = \"dev\"\n  manifests = [" + strconv.Quote(manifests) + "]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "trace.log")
	cmd := exec.Command(tfBin, "plan", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(env, "TF_IN_AUTOMATION=1", "TF_LOG=trace", "TF_LOG_PATH="+logPath)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until terraform asks the provider to read the data source (its trace line; a fixed 8 s wait
	// before), then give the render a second to be inside the template loop.
	for started := false; !started; {
		select {
		case err := <-done:
			t.Fatalf("terraform ended before Ctrl-C: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
			b, _ := os.ReadFile(logPath)
			started = strings.Contains(string(b), "ReadDataSource")
		}
	}
	time.Sleep(time.Second)
	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Logf("terraform exited (%v) %v after SIGINT", err, time.Since(sent).Round(10*time.Millisecond))
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("terraform still running 60s after SIGINT\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Render canceled") {
		t.Errorf("no render-canceled diagnostic:\n%s", out.String())
	}
}
