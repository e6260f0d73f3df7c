// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package workloadsource

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

const upstreamSvcSrc = fixtures.SampleSvcSrcURL

func registration(name, repo, branch, p string) *model.WorkloadRegistration {
	r := &model.WorkloadRegistration{}
	r.APIVersion, r.Kind = model.APIVersion, model.KindWorkloadRegistration
	r.Metadata.Name = name
	r.Spec.Workspace = "platform-team"
	r.Spec.Workload = model.RepoRef{Repo: repo, Branch: branch, Path: p}
	return r
}

func TestFetchFixtureThroughURLRewriteLinksWorkloadToRegistration(t *testing.T) {
	t.Parallel()
	bare := fixtures.SvcSrcRepo(t, "")
	client := &gitrepo.Client{Rewrites: map[string]string{upstreamSvcSrc: "file://" + bare}}
	commit, workloads, err := Fetch(context.Background(), client, registration("platform-svc", upstreamSvcSrc, "main", "./workloads"))
	if err != nil {
		t.Fatal(err)
	}
	if want := gitserver.Head(t, bare, "main"); commit != want {
		t.Fatalf("commit = %s, want %s", commit, want)
	}
	if len(workloads) != 1 {
		t.Fatalf("got %d workloads, want 1: %q", len(workloads), workloads)
	}
	set, diags := model.Parse(workloads)
	if diags.HasError() {
		t.Fatalf("fetched workload does not parse: %v", diags)
	}
	if len(set.Workloads) != 1 || set.Workloads[0].Metadata.Name != "observability" {
		t.Fatalf("unexpected workloads: %+v", set.Workloads)
	}
	w := set.Workloads[0]
	if got := w.Metadata.Annotations[model.RegistrationAnnotation]; got != "platform-svc" {
		t.Fatalf("annotation = %q, want platform-svc", got)
	}
	if len(w.Spec.DeploymentTargets) != 1 || w.Spec.DeploymentTargets[0].Name != "prometheus" || w.Spec.DeploymentTargets[0].Environment != "dev" {
		t.Fatalf("deployment targets lost in linking: %+v", w.Spec.DeploymentTargets)
	}
	if w.Metadata.Labels["stack"] != "observability" {
		t.Fatalf("labels lost in linking: %+v", w.Metadata.Labels)
	}
}

func TestFetchWithoutRewriteNeverReachesNetworkForUnknownLocalPath(t *testing.T) {
	t.Parallel()
	// Without the rewrite the upstream URL would be fetched; a missing local repository must be reported instead.
	missing := "file://" + filepath.Join(t.TempDir(), "nope.git")
	client := &gitrepo.Client{Rewrites: map[string]string{upstreamSvcSrc: missing}}
	_, _, err := Fetch(context.Background(), client, registration("platform-svc", upstreamSvcSrc, "main", "workloads"))
	if err == nil {
		t.Fatal("expected an error for a missing repository")
	}
	if !errors.Is(err, gitrepo.ErrRepositoryNotFound) {
		t.Fatalf("error does not wrap ErrRepositoryNotFound: %v", err)
	}
	if !strings.Contains(err.Error(), "platform-svc") || !strings.Contains(err.Error(), upstreamSvcSrc) {
		t.Fatalf("error should name the registration and repository: %v", err)
	}
}

func TestFetchReadsNestedYAMLAndYMLAndIgnoresOtherKinds(t *testing.T) {
	t.Parallel()
	bare := gitserver.NewSeededRepo(t, "", "svc.git", "release", map[string]string{
		"deploy/a/workload.yml": "# comment only\n---\napiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets: []\n",
		"deploy/b/other.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\nname: not-a-k8s-object\n",
		"deploy/b/z.yaml":       "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: second\n  annotations:\n    scheduler.kalypso.io/registration: someone-else\n",
		"deploy/readme.md":      "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: ignored\n",
		"outside/w.yaml":        "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: outside\n",
	})
	commit, docs, err := FetchDocuments(context.Background(), &gitrepo.Client{}, registration("app", "file://"+bare, "release", "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	if commit != gitserver.Head(t, bare, "release") {
		t.Fatalf("wrong commit %s", commit)
	}
	if len(docs) != 2 {
		t.Fatalf("want 2 workloads, got %+v", docs)
	}
	if docs[0].File != "a/workload.yml" || docs[0].Index != 1 || docs[0].Line != 3 || docs[0].Name != "app" {
		t.Fatalf("first doc = %+v", docs[0])
	}
	// Same name as the registration and no annotation: kept verbatim.
	if docs[0].Text != "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: app\nspec:\n  deploymentTargets: []\n" {
		t.Fatalf("workload named like its registration should be verbatim, got %q", docs[0].Text)
	}
	// A conflicting annotation is replaced by the registration that delivered the Workload.
	if docs[1].File != "b/z.yaml" || !strings.Contains(docs[1].Text, "scheduler.kalypso.io/registration: app") || strings.Contains(docs[1].Text, "someone-else") {
		t.Fatalf("second doc not relinked: %+v", docs[1])
	}
}

func TestFetchErrors(t *testing.T) {
	t.Parallel()
	bare := gitserver.NewSeededRepo(t, "", "svc.git", "main", map[string]string{
		"empty/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"bad/w.yaml":   "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: ok\n---\nkind: [unclosed\n",
	})
	url := "file://" + bare
	cases := []struct {
		name, branch, path string
		is                 error
		mentions           []string
	}{
		{"no workload", "main", "empty", ErrNoWorkload, []string{"reg", "empty"}},
		{"bad yaml", "main", "bad", ErrInvalidDocument, []string{"file w.yaml", "document 1"}},
		{"missing branch", "nope", "empty", gitrepo.ErrBranchNotFound, []string{"nope"}},
		{"missing path", "main", "absent", gitrepo.ErrPathNotFound, []string{"absent"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Fetch(context.Background(), &gitrepo.Client{}, registration("reg", url, tc.branch, tc.path))
			if !errors.Is(err, tc.is) {
				t.Fatalf("want %v, got %v", tc.is, err)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestLink(t *testing.T) {
	t.Parallel()
	in := "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: w\n  annotations:\nspec: {}\n"
	out, err := Link(in, "reg")
	if err != nil {
		t.Fatal(err)
	}
	set, diags := model.Parse([]string{out})
	if diags.HasError() || len(set.Workloads) != 1 || set.Workloads[0].Metadata.Annotations[model.RegistrationAnnotation] != "reg" {
		t.Fatalf("linking an empty annotations key failed: %q %v", out, diags)
	}
	if _, err := Link("- a\n- b\n", "reg"); err == nil {
		t.Fatal("a list is not a Workload")
	}
}

// TestExtractWorkloadsSplitsLikeFlux: an application team's Workload file written on Windows (CRLF), or
// with a commented separator, keeps every Workload; a separator Flux refuses names the file and line.
func TestExtractWorkloadsSplitsLikeFlux(t *testing.T) {
	t.Parallel()
	w := func(name string) string {
		return "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: Workload\nmetadata:\n  name: " + name + "\nspec:\n  deploymentTargets: []\n"
	}
	crlf := strings.ReplaceAll(w("one")+"--- # next\n"+w("two"), "\n", "\r\n")
	docs, err := ExtractWorkloads(map[string][]byte{"w.yaml": []byte(crlf)}, "reg")
	if err != nil || len(docs) != 2 || docs[0].Name != "one" || docs[1].Name != "two" || docs[1].Line != 8 {
		t.Fatalf("docs %+v, err %v", docs, err)
	}
	_, err = ExtractWorkloads(map[string][]byte{"sub/w.yaml": []byte(w("one") + "--- !!map\n" + w("two"))}, "reg")
	if !errors.Is(err, ErrInvalidDocument) || !strings.Contains(err.Error(), "file sub/w.yaml") || !strings.Contains(err.Error(), "line 7") || !strings.Contains(err.Error(), "Invalid document separator") {
		t.Fatalf("err %v", err)
	}
}
