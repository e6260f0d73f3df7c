// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package controlplane

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

const svcSrcURL = fixtures.SampleSvcSrcURL

// svcSrcClient serves the fixture's services source repository from a local bare repository, reached
// through a URL rewrite of its public address.
func svcSrcClient(t *testing.T) *gitrepo.Client {
	t.Helper()
	return &gitrepo.Client{Rewrites: map[string]string{svcSrcURL: "file://" + fixtures.SvcSrcRepo(t, "")}}
}

// must fails the test on error diagnostics: must(t)(ReadDir(...)).
func must(t *testing.T) func(*Result, model.Diagnostics) *Result {
	return func(res *Result, diags model.Diagnostics) *Result {
		t.Helper()
		if diags.HasError() {
			t.Fatalf("unexpected errors: %v", diags)
		}
		return res
	}
}

func renderAndCompare(t *testing.T, env string, main, envBranch *Result) {
	t.Helper()
	want, promoted := fixtures.ControlPlaneExpected(t, env)
	manifests := append(append([]string{}, main.Manifests...), envBranch.Manifests...)
	out, diags := render.NewEngine().Render(env, manifests, render.Options{})
	if diags.HasError() {
		t.Fatalf("render %s: %v", env, diags)
	}
	if d := fixtures.DiffTrees(want, out.Files); d != "" {
		t.Fatalf("render of %s differs from the upstream tree:\n%s", env, d)
	}
	if promoted == "" || out.PromotedCommit != promoted || envBranch.BaseRepoCommit != promoted {
		t.Fatalf("promoted commit: render %q, base_repo_commit %q, expected tracking file %q", out.PromotedCommit, envBranch.BaseRepoCommit, promoted)
	}
}

func TestFixtureDirModeRendersUpstreamTrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := svcSrcClient(t)
	main := must(t)(ReadDir(ctx, fixtures.ControlPlane("control-plane-main"), Options{ResolveWorkloads: true, Client: client}))

	if got, want := main.Set.Names(model.KindTemplate), []string{"arc-flux", "argocd", "configmap", "default"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("templates = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(main.Set.Names(model.KindWorkloadRegistration), []string{"platform-svc"}) {
		t.Fatalf("registrations = %v", main.Set.Names(model.KindWorkloadRegistration))
	}
	if !reflect.DeepEqual(main.Set.Names(model.KindWorkload), []string{"observability"}) {
		t.Fatalf("resolved workloads = %v", main.Set.Names(model.KindWorkload))
	}
	if main.WorkloadCommits["platform-svc"] == "" {
		t.Fatal("workload commit not recorded")
	}
	// .sourceignore hides .github/ (the BaseRepo template) and .environments/.
	if len(main.Skipped) != 0 || len(main.Set.BaseRepos) != 0 || len(main.Set.Environments) != 0 {
		t.Fatalf("ignored files were read: skipped=%v baseRepos=%d environments=%d", main.Skipped, len(main.Set.BaseRepos), len(main.Set.Environments))
	}

	for _, env := range []string{"dev", "stage"} {
		t.Run(env, func(t *testing.T) {
			envRes := must(t)(ReadDir(ctx, fixtures.ControlPlane("control-plane-"+env), Options{}))
			if envRes.GitOpsRepo == nil || envRes.GitOpsRepo.Branch != env || envRes.GitOpsRepo.Repo != "https://github.com/microsoft/kalypso-gitops" {
				t.Fatalf("gitops repo = %+v", envRes.GitOpsRepo)
			}
			if len(envRes.Set.Names(model.KindClusterType)) == 0 || len(envRes.Set.Names(model.KindSchedulingPolicy)) == 0 && env == "dev" || len(envRes.Set.Names(model.KindConfigMap)) == 0 {
				t.Fatalf("summaries missing: %+v", envRes)
			}
			renderAndCompare(t, env, main, envRes)
		})
	}
}

func TestFixtureWithoutResolvingWorkloadsSchedulesNothing(t *testing.T) {
	t.Parallel()
	// Proves the dev comparison depends on the resolved Workload: without it the dev tree lacks the assignment.
	ctx := context.Background()
	main := must(t)(ReadDir(ctx, fixtures.ControlPlane("control-plane-main"), Options{}))
	dev := must(t)(ReadDir(ctx, fixtures.ControlPlane("control-plane-dev"), Options{}))
	out, diags := render.NewEngine().Render("dev", append(main.Manifests, dev.Manifests...), render.Options{})
	if diags.HasError() {
		t.Fatal(diags)
	}
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	if fixtures.DiffTrees(want, out.Files) == "" {
		t.Fatal("render without the Workload should differ from the expected tree")
	}
	if len(main.Set.Names(model.KindWorkload)) != 0 {
		t.Fatalf("workloads resolved without resolve_workloads: %v", main.Set.Names(model.KindWorkload))
	}
}

func TestFixtureGitModeRendersUpstreamTrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare := fixtures.ControlPlaneRepo(t, "")
	client := svcSrcClient(t)
	// The control plane is also addressed by its public URL, rewritten to the local repository.
	url := fixtures.SampleControlPlaneURL
	client.Rewrites[url] = "file://" + bare

	main := must(t)(ReadGit(ctx, url, "main", ".", Options{ResolveWorkloads: true, Client: client}))
	if main.Commit != gitserver.Head(t, bare, "main") {
		t.Fatalf("commit = %q, want head of main", main.Commit)
	}
	if len(main.Set.BaseRepos) != 0 {
		t.Fatal(".sourceignore not honoured in Git mode")
	}
	for _, env := range []string{"dev", "stage"} {
		t.Run(env, func(t *testing.T) {
			envRes := must(t)(ReadGit(ctx, url, env, "", Options{Client: client}))
			if envRes.Commit != gitserver.Head(t, bare, env) {
				t.Fatalf("commit = %q", envRes.Commit)
			}
			renderAndCompare(t, env, main, envRes)
		})
	}
}

func TestGitModeSubdirectoryHonoursRootSourceignore(t *testing.T) {
	t.Parallel()
	bare := gitserver.NewSeededRepo(t, "", "cp.git", "main", map[string]string{
		".sourceignore":           "cp/hidden/\n",
		"cp/ct.yaml":              clusterType("small"),
		"cp/hidden/ct.yaml":       clusterType("hidden"),
		"other/ct.yaml":           clusterType("outside"),
		"cp/.github/workflow.yml": "name: ci\non: [push]\n",
	})
	res := must(t)(ReadGit(context.Background(), "file://"+bare, "main", "cp", Options{}))
	if !reflect.DeepEqual(res.Set.Names(model.KindClusterType), []string{"small"}) {
		t.Fatalf("cluster types = %v", res.Set.Names(model.KindClusterType))
	}
	// The repository has its own .sourceignore, so Flux's CI defaults do not apply: the workflow is read and skipped.
	if len(res.Skipped) != 1 || res.Skipped[0].File != "cp/.github/workflow.yml" {
		t.Fatalf("skipped = %v", res.Skipped)
	}
	_, diags := ReadGit(context.Background(), "file://"+bare, "main", "nope", Options{})
	if !diags.HasError() || !strings.Contains(diags[0].Error(), `"nope"`) {
		t.Fatalf("missing path should fail naming it: %v", diags)
	}
}

func clusterType(name string) string {
	return "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: " + name + "\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n"
}

func TestSourceignoreSemantics(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.yaml":                 clusterType("a"),
		"b/b.yml":                clusterType("b"),
		"b/skip.yaml":            clusterType("skip-nested"),
		"b/.sourceignore":        "# nested file, scoped to b/\nskip.yaml\n",
		"c/keep.yaml":            clusterType("keep"),
		"c/drop.yaml":            clusterType("drop"),
		".sourceignore":          "c/*\n!c/keep.yaml\n",
		".git/config.yaml":       clusterType("git-internal"),
		"notes.txt":              clusterType("not-yaml"),
		"d/skip.yaml":            clusterType("skip-root-not-scoped"),
		".github/workflows.yaml": clusterType("github"),
	}
	res := must(t)(ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), files), Options{}))
	want := []string{"a", "b", "github", "keep", "skip-root-not-scoped"}
	if !reflect.DeepEqual(res.Set.Names(model.KindClusterType), want) {
		t.Fatalf("cluster types = %v, want %v", res.Set.Names(model.KindClusterType), want)
	}

	// Without any .sourceignore, Flux's defaults exclude CI folders such as .github/.
	delete(files, ".sourceignore")
	delete(files, "b/.sourceignore")
	res = must(t)(ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), files), Options{}))
	want = []string{"a", "b", "drop", "keep", "skip-nested", "skip-root-not-scoped"}
	if !reflect.DeepEqual(res.Set.Names(model.KindClusterType), want) {
		t.Fatalf("defaults: cluster types = %v, want %v", res.Set.Names(model.KindClusterType), want)
	}

	// Extra patterns (like GitRepository spec.ignore) replace the defaults too.
	res = must(t)(ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), files), Options{Ignore: "/a.yaml\n"}))
	want = []string{"b", "drop", "github", "keep", "skip-nested", "skip-root-not-scoped"}
	if !reflect.DeepEqual(res.Set.Names(model.KindClusterType), want) {
		t.Fatalf("extra ignore: cluster types = %v, want %v", res.Set.Names(model.KindClusterType), want)
	}
}

func TestSampleWithoutItsSourceignoreReadsTheBaseRepoTemplate(t *testing.T) {
	t.Parallel()
	// The sample's .sourceignore is what hides the BaseRepo template with $branch placeholders.
	files := fixtures.ReadTree(t, fixtures.ControlPlane("control-plane-main"), nil)
	files[".sourceignore"] = ".environments/\n"
	_, diags := ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), files), Options{})
	if !diags.HasError() {
		t.Fatal("the BaseRepo template should be read, and rejected, when .github/ is not ignored")
	}
	if !strings.Contains(diags[0].Error(), ".github/workflows/utils/baserepo-template.yaml") {
		t.Fatalf("diagnostic should name the template file: %v", diags)
	}
}

func TestSkippedDocumentsAreReported(t *testing.T) {
	t.Parallel()
	dir := fixtures.WriteTree(t, t.TempDir(), map[string]string{
		"mixed.yaml": clusterType("a") + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n---\n# only a comment\n---\njust: data\n---\napiVersion: scheduler.kalypso.io/v2\nkind: ClusterType\nmetadata:\n  name: future\n",
		"cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform\n  labels:\n    platform-config: \"true\"\ndata:\n  A: b\n",
	})
	res := must(t)(ReadDir(context.Background(), dir, Options{}))
	want := []string{
		`file mixed.yaml, document 1 (line 9): kind "Deployment" (apiVersion "apps/v1")`,
		`file mixed.yaml, document 3 (line 16): a YAML document that is not a Kubernetes object`,
		`file mixed.yaml, document 4 (line 18): kind "ClusterType" (apiVersion "scheduler.kalypso.io/v2")`,
	}
	var got []string
	for _, s := range res.Skipped {
		got = append(got, s.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !reflect.DeepEqual(res.Set.Names(model.KindConfigMap), []string{"platform"}) || !reflect.DeepEqual(res.Set.Names(model.KindClusterType), []string{"a"}) {
		t.Fatalf("configs %v cluster types %v", res.Set.Names(model.KindConfigMap), res.Set.Names(model.KindClusterType))
	}
	// Manifests are the kept documents verbatim, in file order.
	if len(res.Manifests) != 2 || !strings.HasPrefix(res.Manifests[0], "apiVersion: v1\nkind: ConfigMap") || res.Manifests[1] != clusterType("a") {
		t.Fatalf("manifests = %q", res.Manifests)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("parse failure names file and document index", func(t *testing.T) {
		dir := fixtures.WriteTree(t, t.TempDir(), map[string]string{"sub/bad.yaml": clusterType("ok") + "---\nkind: ClusterType\nmetadata: [unclosed\n"})
		_, diags := ReadDir(ctx, dir, Options{})
		if !diags.HasError() {
			t.Fatal("expected an error")
		}
		msg := diags[0].Error()
		if !strings.Contains(msg, "file sub/bad.yaml") || !strings.Contains(msg, "document 1") {
			t.Fatalf("diagnostic should name the file and document: %s", msg)
		}
	})
	t.Run("invalid known kind names file and field", func(t *testing.T) {
		dir := fixtures.WriteTree(t, t.TempDir(), map[string]string{"ct.yaml": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: x\nspec:\n  reconciler: arc-flux\n"})
		_, diags := ReadDir(ctx, dir, Options{})
		if !diags.HasError() || !strings.Contains(diags[0].Error(), "file ct.yaml") || !strings.Contains(diags[0].Error(), "spec.namespaceService") {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("duplicate names both files", func(t *testing.T) {
		dir := fixtures.WriteTree(t, t.TempDir(), map[string]string{"a/one.yaml": clusterType("same"), "b/two.yaml": clusterType("other") + "---\n" + clusterType("same")})
		_, diags := ReadDir(ctx, dir, Options{})
		if !diags.HasError() {
			t.Fatal("expected an error")
		}
		msg := diags[0].Error()
		if !strings.Contains(msg, "file a/one.yaml") || !strings.Contains(msg, "file b/two.yaml, document 1") {
			t.Fatalf("diagnostic should name both files: %s", msg)
		}
	})
	t.Run("fetched workload duplicating one in the control plane names both", func(t *testing.T) {
		files := fixtures.ReadTree(t, fixtures.ControlPlane("control-plane-main"), nil)
		files["workloads/inline.yaml"] = "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: observability\nspec: {}\n"
		_, diags := ReadDir(ctx, fixtures.WriteTree(t, t.TempDir(), files), Options{ResolveWorkloads: true, Client: svcSrcClient(t)})
		if !diags.HasError() {
			t.Fatal("expected a duplicate error")
		}
		msg := diags[0].Error()
		if !strings.Contains(msg, "workloads/inline.yaml") || !strings.Contains(msg, svcSrcURL+"@") || !strings.Contains(msg, "workloads/observability.yaml") {
			t.Fatalf("diagnostic should name both places: %s", msg)
		}
	})
	t.Run("unreachable control-plane repository is named", func(t *testing.T) {
		missing := "file://" + filepath.Join(t.TempDir(), "missing.git")
		_, diags := ReadGit(ctx, missing, "main", ".", Options{})
		if !diags.HasError() || !strings.Contains(diags[0].Error(), missing) {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("unreachable workload repository names registration and repository", func(t *testing.T) {
		client := &gitrepo.Client{Rewrites: map[string]string{svcSrcURL: "file://" + filepath.Join(t.TempDir(), "gone.git")}}
		_, diags := ReadDir(ctx, fixtures.ControlPlane("control-plane-main"), Options{ResolveWorkloads: true, Client: client})
		if !diags.HasError() {
			t.Fatal("expected an error")
		}
		msg := diags[0].Error()
		if !strings.Contains(msg, "platform-svc") || !strings.Contains(msg, svcSrcURL) || !strings.Contains(msg, "workloads/platform-svc.yaml") {
			t.Fatalf("diagnostic should name the registration, its file and the repository: %s", msg)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		_, diags := ReadDir(ctx, filepath.Join(t.TempDir(), "nope"), Options{})
		if !diags.HasError() || !strings.Contains(diags[0].Error(), "nope") {
			t.Fatalf("diags = %v", diags)
		}
	})
}

// TestSplitLikeFlux: a control-plane file is split as Flux's kustomize reads it, so a Windows editor's CRLF
// or a commented separator keeps every document, and a separator Flux refuses is an error naming the file.
func TestSplitLikeFlux(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(clusterType("a")+"--- # second\n"+clusterType("b")+"---  \n"+clusterType("c"), "\n", "\r\n")
	res := must(t)(ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), map[string]string{"cts.yaml": crlf}), Options{}))
	if !reflect.DeepEqual(res.Set.Names(model.KindClusterType), []string{"a", "b", "c"}) {
		t.Fatalf("cluster types %v, want a, b, c", res.Set.Names(model.KindClusterType))
	}
	for _, m := range res.Manifests {
		if strings.Contains(m, "\r") {
			t.Errorf("manifest keeps CR: %q", m)
		}
	}
	_, diags := ReadDir(context.Background(), fixtures.WriteTree(t, t.TempDir(), map[string]string{"sub/bad.yaml": clusterType("a") + "--- !!map\n" + clusterType("b")}), Options{})
	if len(diags) != 1 || diags[0].Summary != "Invalid document separator" || diags[0].Source.File != "sub/bad.yaml" || diags[0].Source.Line != 8 {
		t.Fatalf("diags = %v", diags)
	}
}
