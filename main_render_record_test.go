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

// recordTestManifests: one cluster type, two deployment targets; the policy places only "web", so "api"
// stays unscheduled and every render warns about it.
const recordTestManifests = `
{apiVersion: scheduler.kalypso.io/v1alpha1, kind: ClusterType, metadata: {name: large}, spec: {reconciler: arc-flux, namespaceService: default}}
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: Workload
metadata: {name: app}
spec:
  deploymentTargets:
    - {name: web, environment: dev, labels: {tier: web}, manifests: {repo: https://example.com/app, branch: main, path: ./web}}
    - {name: api, environment: dev, manifests: {repo: https://example.com/app, branch: main, path: ./api}}
---
{apiVersion: scheduler.kalypso.io/v1alpha1, kind: WorkloadRegistration, metadata: {name: app}, spec: {workspace: team, workload: {repo: https://example.com/app, branch: main, path: .}}}
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: SchedulingPolicy
metadata: {name: web-only}
spec: {deploymentTargetSelector: {labelSelector: {matchLabels: {tier: web}}}, clusterTypeSelector: {}}
`

// TestPlanReusesTheRenderOfTheLastApply runs the real provider under the real terraform binary. After an
// apply in render mode, a plan with the same inputs against a branch that still holds what the apply
// wrote, with or without refresh, does not render (no "render" event in the debug log), is empty, and
// still shows the render's warning. An edit of the branch under path, or a change of the inputs, makes
// the plan render again and show the change.
func TestPlanReusesTheRenderOfTheLastApply(t *testing.T) {
	tfBin, rc := providerUnderTerraform(t)
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "# fleet\n"})
	dir := t.TempDir()
	writeConfig := func(manifests string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "manifests.yaml"), []byte(manifests), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := "terraform {\n  required_providers {\n    kalypso = { source = \"kalypso/kalypso\" }\n  }\n}\n" +
			"resource \"kalypso_gitops_commit\" \"dev\" {\n  repository_url = \"file://" + repo + "\"\n  branch = \"main\"\n  path = \"clusters\"\n" +
			"  render = { environment = \"dev\", manifests = [file(\"${path.module}/manifests.yaml\")] }\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// run returns terraform's output, its exit code, and the number of renders the provider logged.
	run := func(args ...string) (string, int, int) {
		t.Helper()
		log := filepath.Join(t.TempDir(), "tf.log")
		cmd := exec.Command(tfBin, append(args, "-input=false", "-no-color")...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+log)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("terraform %v: %v", args, err)
		}
		b, _ := os.ReadFile(log)
		renders := 0
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "render: ") || strings.HasSuffix(strings.TrimSpace(line), ": render") || strings.Contains(line, ": render:") {
				renders++
			}
		}
		return string(out), code, renders
	}
	const warning = "Unscheduled deployment targets"

	writeConfig(recordTestManifests)
	out, code, renders := run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 1 added") || renders == 0 {
		t.Fatalf("first apply: exit %d, %d renders logged\n%s", code, renders, out)
	}
	if !strings.Contains(out, warning) || !strings.Contains(out, "app-api") {
		t.Errorf("the apply must warn about the unscheduled deployment target:\n%s", out)
	}
	if files := gitserver.Files(t, repo, "main"); files["clusters/large/app-web/reconciler.yaml"] == "" {
		t.Fatalf("the apply did not deliver the render: %v", files)
	}

	out, code, renders = run("plan", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("plan after apply: exit %d, want 0 (no changes)\n%s", code, out)
	}
	if renders != 0 {
		t.Errorf("the plan after apply rendered %d times; same inputs and the same tree on the branch need no render", renders)
	}
	if !strings.Contains(out, warning) || !strings.Contains(out, "app-api") {
		t.Errorf("a plan that reuses the last render must still show its warning:\n%s", out)
	}

	if out, code, renders = run("plan", "-detailed-exitcode", "-refresh=false"); code != 0 || renders != 0 {
		t.Errorf("plan -refresh=false after apply: exit %d (want 0), %d renders (want 0)\n%s", code, renders, out)
	}

	gitserver.Commit(t, repo, "main", "hand edit", map[string]string{"clusters/large/app-web/reconciler.yaml": "edited by hand\n"}, nil)
	out, code, renders = run("plan", "-detailed-exitcode")
	if code != 2 || renders == 0 || !strings.Contains(out, "-edited by hand") {
		t.Errorf("after a hand edit the plan must render and show the repair: exit %d, %d renders\n%s", code, renders, out)
	}
	if out, code, _ = run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("repairing apply: exit %d\n%s", code, out)
	}

	writeConfig(strings.Replace(recordTestManifests, "path: ./web}}", "path: ./web-v2}}", 1))
	out, code, renders = run("plan", "-detailed-exitcode")
	if code != 2 || renders == 0 || !strings.Contains(out, "clusters/large/app-web/") {
		t.Errorf("changed inputs must render and show the change: exit %d, %d renders\n%s", code, renders, out)
	}
}
