// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// Statuses as Flux's notification-controller posts them (context kustomization/<name>/<uid prefix>),
// next to a CI check that must be ignored, read over two pages of GitHub's combined status.
func TestGitHubStatuses_FluxContextsOverPages_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	gh := mockgithub.Start(t, "tok")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 150 {
		gh.AddStatus("org/gitops", "g1", mockgithub.Status{State: "success", Context: fmt.Sprintf("kustomization/drone/%08x", i), Description: "reconciliation succeeded", UpdatedAt: at})
	}
	gh.AddStatus("org/gitops", "g1", mockgithub.Status{State: "failure", Context: "ci/lint", UpdatedAt: at})
	gh.AddStatus("org/gitops", "g1", mockgithub.Status{State: "failure", Context: "kustomization/drone/00000007", Description: "health check failed", UpdatedAt: at.Add(time.Minute)})
	svc, err := githubpr.New(githubpr.Options{BaseURL: gh.BaseURL(), Token: "tok", LoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := CompilePatterns([]string{FluxContextPattern})
	if err != nil {
		t.Fatal(err)
	}
	src := &GitHubStatuses{Lister: svc, Owner: "org", Repo: "gitops", Patterns: patterns, Limit: 500}
	reports, err := src.Reports(context.Background(), []string{"g1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 150 || gh.CallCount("GET /api/v3/repos/org/gitops/commits/g1/statuses") != 2 {
		t.Fatalf("%d reports over %d requests; want 150 over 2 pages", len(reports), gh.CallCount("GET /api/v3/repos/org/gitops/commits/g1/statuses"))
	}
	res, err := Evaluate([]Commit{{SHA: "g1", Promoted: "m1"}}, reports, Options{Expect: Expect{MinClusters: 150}})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != Failed || res.Summary() != "149/150 clusters succeeded, 1 failed (00000007: drone: health check failed)" {
		t.Errorf("state %s, %q", res.State, res.Summary())
	}
	src.Limit = 100
	if _, err := src.Reports(context.Background(), []string{"g1"}); !errors.Is(err, githubpr.ErrTooMany) {
		t.Errorf("over the limit: err = %v, want ErrTooMany", err)
	}
	if _, err := CompilePatterns([]string{"("}); err == nil {
		t.Error("an invalid pattern was accepted")
	}
}
