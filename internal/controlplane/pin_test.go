// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// The operator makes Flux fetch main at the BaseRepo's spec.commit; following the BaseRepo reads the
// same content, so dev renders upstream's tree even though main's head has a change nobody promoted.
func TestFollowBaseRepoReadsMainAtThePin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, pinned := fixtures.ControlPlanePinnedRepo(t, "")
	client := svcSrcClient(t)
	client.Rewrites[fixtures.SampleControlPlaneURL] = "file://" + bare

	res := must(t)(ReadGit(ctx, fixtures.SampleControlPlaneURL, "dev", "", Options{FollowBaseRepo: true, ResolveWorkloads: true, Client: client}))
	if res.Base == nil || res.Base.Commit != pinned || res.Base.Branch != "main" || res.BaseRepoCommit != pinned {
		t.Fatalf("base = %+v, base_repo_commit %q; want main at %s", res.Base, res.BaseRepoCommit, pinned)
	}
	if res.Commit != gitserver.Head(t, bare, "dev") {
		t.Errorf("commit = %s, want dev's head", res.Commit)
	}
	out, diags := render.NewEngine().Render("dev", res.Manifests, render.Options{})
	if diags.HasError() {
		t.Fatal(diags)
	}
	want, _ := fixtures.ControlPlaneExpected(t, "dev")
	if d := fixtures.DiffTrees(want, out.Files); d != "" {
		t.Fatalf("dev rendered from main at the pin differs from upstream's tree:\n%s", d)
	}
	if out.PromotedCommit != pinned {
		t.Errorf("promoted commit = %q, want %s", out.PromotedCommit, pinned)
	}

	// Reading main at its head instead shows what the pin keeps out.
	head := must(t)(ReadGit(ctx, fixtures.SampleControlPlaneURL, "main", "", Options{ResolveWorkloads: true, Client: client}))
	env := must(t)(ReadGit(ctx, fixtures.SampleControlPlaneURL, "dev", "", Options{Client: client}))
	out, _ = render.NewEngine().Render("dev", append(head.Manifests, env.Manifests...), render.Options{})
	if !anyContains(out.Files, fixtures.Unpromoted) {
		t.Fatal("the test is void: main's head does not change the dev render")
	}

	// The same pin, set explicitly on a read of main.
	explicit := must(t)(ReadGit(ctx, fixtures.SampleControlPlaneURL, "main", "", Options{Commit: pinned[:10], ResolveWorkloads: true, Client: client}))
	out, _ = render.NewEngine().Render("dev", append(explicit.Manifests, env.Manifests...), render.Options{})
	if explicit.Commit != pinned || anyContains(out.Files, fixtures.Unpromoted) {
		t.Errorf("main at %s: commit %s, unpromoted change rendered: %v", pinned, explicit.Commit, anyContains(out.Files, fixtures.Unpromoted))
	}
}

func anyContains(files map[string]string, s string) bool {
	for _, c := range files {
		if strings.Contains(c, s) {
			return true
		}
	}
	return false
}

func TestPinnedReadDiagnostics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, _ := fixtures.ControlPlanePinnedRepo(t, "")
	client := svcSrcClient(t)
	client.Rewrites[fixtures.SampleControlPlaneURL] = "file://" + bare
	devHead := gitserver.Head(t, bare, "dev")
	// A dev branch whose BaseRepo pins a commit main never had.
	gitserver.Git(t, bare, nil, "branch", "broken", devHead)
	baseRepo := "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: BaseRepo\nmetadata:\n  name: main\nspec:\n  repo: " +
		fixtures.SampleControlPlaneURL + "\n  branch: main\n  path: .\n  commit: " + devHead + "\n"
	gitserver.Commit(t, bare, "broken", "pin a dev commit", map[string]string{"base-repo.yaml": baseRepo}, nil)

	cases := []struct {
		name, branch string
		opts         Options
		want         []string
	}{
		{"commit of another branch", "main", Options{Commit: devHead}, []string{"commit " + devHead, "git.commit", "ancestors"}},
		{"not a commit", "main", Options{Commit: "v1.2.3"}, []string{"not a commit SHA", "git.commit"}},
		{"no BaseRepo to follow", "main", Options{FollowBaseRepo: true}, []string{"No BaseRepo to follow", `branch "main"`}},
		{"BaseRepo pins a commit off its branch", "broken", Options{FollowBaseRepo: true}, []string{"spec.commit of BaseRepo main", devHead}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Client = client
			res, diags := ReadGit(ctx, fixtures.SampleControlPlaneURL, tc.branch, "", tc.opts)
			if res != nil || !diags.HasError() {
				t.Fatalf("want an error, got %v", diags)
			}
			text := fmt.Sprint(diags)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("diagnostics %q lack %q", text, w)
				}
			}
		})
	}
}
