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
	t.Parallel()
	tfBin, env := providerUnderTerraform(t)
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
	cache := t.TempDir() // the provider's render store lives in the user's cache directory
	// run returns terraform's output, its exit code, and the number of renders the provider logged.
	run := func(args ...string) (string, int, int) {
		t.Helper()
		out, code, log := runTerraform(t, tfBin, env, dir, cache, args...)
		return out, code, renders(log)
	}
	const warning = "Unscheduled deployment targets"

	writeConfig(recordTestManifests)
	out, code, n := run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 1 added") || n == 0 {
		t.Fatalf("first apply: exit %d, %d renders logged\n%s", code, n, out)
	}
	if !strings.Contains(out, warning) || !strings.Contains(out, "app-api") {
		t.Errorf("the apply must warn about the unscheduled deployment target:\n%s", out)
	}
	if files := gitserver.Files(t, repo, "main"); files["clusters/large/app-web/reconciler.yaml"] == "" {
		t.Fatalf("the apply did not deliver the render: %v", files)
	}

	out, code, n = run("plan", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("plan after apply: exit %d, want 0 (no changes)\n%s", code, out)
	}
	if n != 0 {
		t.Errorf("the plan after apply rendered %d times; same inputs and the same tree on the branch need no render", n)
	}
	if !strings.Contains(out, warning) || !strings.Contains(out, "app-api") {
		t.Errorf("a plan that reuses the last render must still show its warning:\n%s", out)
	}

	if out, code, n = run("plan", "-detailed-exitcode", "-refresh=false"); code != 0 || n != 0 {
		t.Errorf("plan -refresh=false after apply: exit %d (want 0), %d renders (want 0)\n%s", code, n, out)
	}

	gitserver.Commit(t, repo, "main", "hand edit", map[string]string{"clusters/large/app-web/reconciler.yaml": "edited by hand\n"}, nil)
	out, code, n = run("plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "-edited by hand") {
		t.Errorf("after a hand edit the plan must show the repair: exit %d\n%s", code, out)
	}
	if n != 0 {
		t.Errorf("the plan of the repair rendered %d times; the tree of the same inputs is in the local render store", n)
	}
	if out, code, _ = run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("repairing apply: exit %d\n%s", code, out)
	}

	writeConfig(strings.Replace(recordTestManifests, "path: ./web}}", "path: ./web-v2}}", 1))
	out, code, n = run("plan", "-detailed-exitcode")
	if code != 2 || n == 0 || !strings.Contains(out, "clusters/large/app-web/") {
		t.Errorf("changed inputs must render and show the change: exit %d, %d renders\n%s", code, n, out)
	}
}

// runTerraform runs terraform in dir with the provider under test, its debug log on, and cache as the
// user's cache directory (where the provider keeps its render store). It returns terraform's output, its
// exit code and the provider's debug log.
func runTerraform(t *testing.T, tfBin string, env []string, dir, cache string, args ...string) (out string, code int, log string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "tf.log")
	// Options go before the positional arguments (a saved plan).
	cmd := exec.Command(tfBin, append([]string{args[0], "-input=false", "-no-color"}, args[1:]...)...)
	cmd.Dir = dir
	cmd.Env = append(env, "TF_IN_AUTOMATION=1", "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+logPath, "XDG_CACHE_HOME="+cache)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("terraform %v: %v", args, err)
	}
	l, _ := os.ReadFile(logPath)
	return string(b), code, string(l)
}

// renders counts the renders a provider debug log shows (the "render" event of the render cache).
func renders(log string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		// The render's own event is the message "render"; other messages may name the render (the plan
		// step "plan step render", "render reused") without being one.
		if strings.Contains(line, "terraform-provider-kalypso: render: ") || strings.HasSuffix(strings.TrimSpace(line), "terraform-provider-kalypso: render") {
			n++
		}
	}
	return n
}

// TestApplyOfASavedPlanDoesNotRenderAgain runs the real provider under the real terraform binary, each
// terraform command in its own provider processes. A change planned with `plan -out` renders once; the
// apply of that saved plan, in another process, loads the plan's desired tree from the local render
// store, renders nothing and writes the planned tree. When the store is gone between plan and apply (HCP
// Terraform plans and applies on different workers), the apply renders again, reaches the same tree and
// applies. A plain `terraform apply` renders once: its apply walk reuses the tree of its plan walk.
func TestApplyOfASavedPlanDoesNotRenderAgain(t *testing.T) {
	t.Parallel()
	tfBin, env := providerUnderTerraform(t)
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "# fleet\n"})
	dir, cache := t.TempDir(), t.TempDir()
	store := filepath.Join(cache, "terraform-provider-kalypso", "renders")
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
	run := func(args ...string) (string, int, string) {
		t.Helper()
		return runTerraform(t, tfBin, env, dir, cache, args...)
	}
	const kept, loaded = "desired tree kept in the local render store", "desired tree loaded from the local render store"

	writeConfig(recordTestManifests)
	out, code, log := run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 1 added") {
		t.Fatalf("first apply: exit %d\n%s", code, out)
	}
	if n := renders(log); n != 1 || !strings.Contains(log, kept) || !strings.Contains(log, loaded) {
		t.Errorf("terraform apply must render once (plan walk) and load that tree in its apply walk: %d renders, kept %v, loaded %v",
			n, strings.Contains(log, kept), strings.Contains(log, loaded))
	}

	// A change, planned in one process and applied in another.
	v2 := strings.Replace(recordTestManifests, "path: ./web}}", "path: ./web-v2}}", 1)
	writeConfig(v2)
	out, code, log = run("plan", "-out=change.tfplan", "-detailed-exitcode")
	if code != 2 || renders(log) != 1 || !strings.Contains(log, kept) {
		t.Fatalf("plan -out of the change: exit %d (want 2), %d renders (want 1), tree kept: %v\n%s", code, renders(log), strings.Contains(log, kept), out)
	}
	out, code, log = run("apply", "change.tfplan")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 0 added, 1 changed") {
		t.Fatalf("apply of the saved plan: exit %d\n%s", code, out)
	}
	if n := renders(log); n != 0 || !strings.Contains(log, loaded) {
		t.Errorf("the apply of a saved plan rendered %d times (want 0) and loaded the plan's tree: %v", n, strings.Contains(log, loaded))
	}
	if got := gitserver.Files(t, repo, "main")["clusters/large/app-web/reconciler.yaml"]; !strings.Contains(got, "./web-v2") {
		t.Errorf("the apply did not write the planned tree: reconciler.yaml is\n%s", got)
	}
	if out, code, _ = run("plan", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the apply of the saved plan: exit %d, want 0\n%s", code, out)
	}

	// The same, with the store gone between plan and apply: the apply renders the same tree again.
	writeConfig(strings.Replace(v2, "tier: web", "tier: web, extra: label", 1) + strings.Replace(recordTestManifests[strings.Index(recordTestManifests, "---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: SchedulingPolicy"):], "web-only", "web-twice", 1))
	out, code, log = run("plan", "-out=change.tfplan", "-detailed-exitcode")
	if code != 2 || renders(log) != 1 {
		t.Fatalf("plan -out of the second change: exit %d (want 2), %d renders (want 1)\n%s", code, renders(log), out)
	}
	if err := os.RemoveAll(store); err != nil {
		t.Fatal(err)
	}
	out, code, log = run("apply", "change.tfplan")
	if code != 0 || !strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply of the saved plan without the render store: exit %d\n%s", code, out)
	}
	if n := renders(log); n != 1 || strings.Contains(log, loaded) {
		t.Errorf("without the render store the apply must render once: %d renders, loaded from the store: %v", n, strings.Contains(log, loaded))
	}
	if out, code, _ = run("plan", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the apply without the store: exit %d, want 0\n%s", code, out)
	}
}
