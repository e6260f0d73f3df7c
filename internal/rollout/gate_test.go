// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockresourcegraph"
)

// The gate's ways to lie, each a case that passed before the gate knew better (issue "Trust boundaries",
// item 5). A cluster is its full identity, never its short name.
func TestEvaluate_TwoClustersThatShareANameStayTwo(t *testing.T) {
	t.Parallel()
	idA := "/subscriptions/0000/resourcegroups/rg-a/providers/microsoft.kubernetes/connectedclusters/aks-dev"
	idB := "/subscriptions/0000/resourcegroups/rg-b/providers/microsoft.kubernetes/connectedclusters/aks-dev"
	reports := []Report{
		{Cluster: "aks-dev", ClusterID: idA, Commit: "g3", Reconciler: "dev", State: Succeeded, Message: "Compliant", Time: now.Add(-time.Hour)},
		{Cluster: "aks-dev", ClusterID: idB, Commit: "g3", Reconciler: "dev", State: Failed, Message: "Non-Compliant", Time: now.Add(-2 * time.Hour)},
	}
	res, err := Evaluate(history, reports, Options{Expect: Expect{MinClusters: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1/2 clusters succeeded, 1 failed (" + idB + ": dev: Non-Compliant)"; res.State != Failed || res.Summary() != want {
		t.Errorf("min_clusters: %s, %q; want failed, %q", res.State, res.Summary(), want)
	}
	if len(res.Clusters) != 2 || res.Clusters[0].ID != idA || res.Clusters[1].ID != idB || res.Clusters[1].Label() != idB {
		t.Errorf("clusters = %+v", res.Clusters)
	}

	// Named by the short name both have: which one is meant cannot be told.
	if _, err := Evaluate(history, reports, Options{Expect: Expect{Clusters: []string{"aks-dev"}}}); !errors.Is(err, ErrAmbiguousCluster) ||
		!strings.Contains(err.Error(), `expected cluster "aks-dev" names 2 clusters (`+idA+", "+idB+"); list each by its full identity") {
		t.Errorf("a shared name in expected.clusters: err = %v", err)
	}
	// Named by their identities (in any case, as Azure compares them): each counts once.
	res, err = Evaluate(history, reports, Options{Expect: Expect{Clusters: []string{strings.ToUpper(idA)}}})
	if err != nil || res.State != Succeeded || res.Counts.Expected != 1 || !res.Clusters[0].Expected || res.Clusters[1].Expected {
		t.Errorf("named by identity: %v, %+v", err, res)
	}
	res, err = Evaluate(history, reports, Options{Expect: Expect{Clusters: []string{idA, idB}}})
	if err != nil || res.State != Failed || res.Counts.Expected != 2 {
		t.Errorf("both named by identity: %v, %+v", err, res)
	}
}

// A success that cannot say since when it holds is not soaked; without soak_time it counts.
func TestEvaluate_AnUndatedSuccessIsNotSoaked(t *testing.T) {
	t.Parallel()
	reports := []Report{{Cluster: "a", Commit: "g3", Reconciler: "dev", State: Succeeded}}
	res, err := Evaluate(history, reports, Options{Expect: Expect{MinClusters: 1}, Soak: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != Progressing || res.Succeeded.SHA != "" || res.Clusters[0].Message != "succeeded, but the report carries no valid time, so the soak of 1h0m0s cannot start" {
		t.Errorf("soak_time and no time: %s, succeeded %q, %q", res.State, res.Succeeded.SHA, res.Clusters[0].Message)
	}
	if res, _ := Evaluate(history, reports, Options{Expect: Expect{MinClusters: 1}, Now: now}); res.State != Succeeded {
		t.Errorf("no soak_time: %s", res.State)
	}
}

// The Azure source identifies a cluster by its resource ID and leaves a time it cannot parse zero.
func TestAzureResourceGraph_ResourceIDsAndTimes_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	g := strings.Repeat("c", 40)
	inGroup := func(rg string, row map[string]any) map[string]any {
		row["id"] = strings.Replace(row["id"].(string), "/resourceGroups/fleet/", "/resourceGroups/"+rg+"/", 1)
		return row
	}
	noTime, badTime := fluxConfig("drone-1", "Compliant", "dev/"+g), fluxConfig("drone-2", "Compliant", "dev/"+g)
	delete(noTime, "statusUpdatedAt")
	badTime["statusUpdatedAt"] = "yesterday"
	s := mockresourcegraph.Start(t, []map[string]any{
		inGroup("rg-a", fluxConfig("aks-dev", "Compliant", "dev/"+g)),
		inGroup("rg-b", fluxConfig("aks-dev", "Non-Compliant", "dev/"+g)),
		noTime, badTime,
	})
	reports, err := graphSource(t, s, 100).Reports(context.Background(), []string{g})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 4 || reports[0].ClusterID != "/subscriptions/0000/resourcegroups/rg-a/providers/microsoft.kubernetes/connectedclusters/aks-dev" ||
		reports[1].ClusterID == reports[0].ClusterID || reports[1].Cluster != "aks-dev" || !reports[2].Time.IsZero() || !reports[3].Time.IsZero() {
		t.Fatalf("reports = %+v", reports)
	}
	res, err := Evaluate([]Commit{{SHA: g}}, reports, Options{Expect: Expect{MinClusters: 4}, Soak: time.Minute, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != Failed || res.Counts != (Counts{Expected: 4, Succeeded: 1, Progressing: 2, Failed: 1}) {
		t.Errorf("%s %+v: %s", res.State, res.Counts, res.Summary())
	}
}

// Only the contexts of the configured patterns count, whole, and only from the accounts allowed; a
// cluster name two accounts post is an error that names both.
func TestGitHubStatuses_OnlyTheClustersCount_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	gh := mockgithub.Start(t, "tok")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	post := func(sha, context, state, creator string) {
		gh.AddStatus("org/gitops", sha, mockgithub.Status{State: state, Context: context, Creator: creator, Description: state, UpdatedAt: at})
	}
	// g1: two real clusters, a CI check shaped like Flux's context, and a forged cluster.
	post("g1", "kustomization/dev/4f0c2a11", "success", "flux")
	post("g1", "kustomization/dev/9b3e7d20", "success", "flux")
	post("g1", "kustomization/lint/ci", "success", "github-actions[bot]")
	post("g1", "kustomization/dev/deadbeef", "success", "mallory")
	// g2: a cluster fails, then someone else posts a success on its context.
	post("g2", "kustomization/dev/4f0c2a11", "failure", "flux")
	post("g2", "kustomization/dev/4f0c2a11", "success", "mallory")
	svc, err := githubpr.New(githubpr.Options{BaseURL: gh.BaseURL(), Token: "tok", LoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	source := func(creators []string, patterns ...string) *GitHubStatuses {
		if len(patterns) == 0 {
			patterns = []string{FluxContextPattern}
		}
		res, err := CompilePatterns(patterns)
		if err != nil {
			t.Fatal(err)
		}
		return &GitHubStatuses{Lister: svc, Owner: "org", Repo: "gitops", Patterns: res, Creators: creators, Limit: 100}
	}
	clusters := func(src *GitHubStatuses, sha string) (string, error) {
		reports, err := src.Reports(context.Background(), []string{sha})
		var ids []string
		for _, r := range reports {
			ids = append(ids, r.ClusterID+"="+string(r.State))
		}
		return strings.Join(ids, " "), err
	}

	// The CI check is not a cluster: its last segment is not a Provider UID's.
	got, err := clusters(source(nil), "g1")
	if err != nil || got != "deadbeef@mallory=succeeded 9b3e7d20@flux=succeeded 4f0c2a11@flux=succeeded" {
		t.Errorf("default pattern: %q, %v", got, err)
	}
	// Only flux's statuses: the forged cluster does not count either, so min_clusters = 3 is not met.
	src := source([]string{"FLUX"})
	reports, err := src.Reports(context.Background(), []string{"g1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate([]Commit{{SHA: "g1"}}, reports, Options{Expect: Expect{MinClusters: 3}})
	if err != nil || res.State == Succeeded || res.Succeeded.SHA != "" || !strings.Contains(res.Shortfall, "2 clusters reported, 3 expected") {
		t.Errorf("creators = [flux]: %v, %s, %q", err, res.State, res.Summary())
	}
	// Naming the clusters has the same effect without creators: the forged one is not expected.
	reports, _ = source(nil).Reports(context.Background(), []string{"g1"})
	res, err = Evaluate([]Commit{{SHA: "g1"}}, reports, Options{Expect: Expect{Clusters: []string{"4f0c2a11", "9b3e7d20", "1c2d3e4f"}}})
	if err != nil || res.State == Succeeded || res.Summary() != "2/3 clusters succeeded, 1 not reporting (no report from 1c2d3e4f)" {
		t.Errorf("named clusters: %v, %s, %q", err, res.State, res.Summary())
	}
	// A pattern matches a whole context, not a part of a longer one.
	if got, _ := clusters(source(nil, `kustomization/(?P<cluster>[^/]+)`), "g1"); got != "" {
		t.Errorf("an unanchored pattern matched parts of contexts: %q", got)
	}

	// Two accounts report cluster 4f0c2a11: an error that names both, never the newer one winning.
	if _, err := clusters(source(nil), "g2"); !errors.Is(err, ErrSharedCluster) ||
		!strings.Contains(err.Error(), `cluster "4f0c2a11" is reported by "mallory" (context "kustomization/dev/4f0c2a11" on commit g2) and by "flux"`) {
		t.Errorf("a shared cluster: err = %v", err)
	}
	if got, err := clusters(source([]string{"flux"}), "g2"); err != nil || got != "4f0c2a11@flux=failed" {
		t.Errorf("a shared cluster, creators = [flux]: %q, %v", got, err)
	}
}

// A Promoted_Commit_Id must be a commit of the control-plane branch, on the first promotion too.
func TestDecide_OnlyACommitOfTheControlPlaneBranchIsPromoted(t *testing.T) {
	t.Parallel()
	onMain := map[string]int{"m1": 1, "m2": 2, "m3": 3}
	ancestor := func(_ context.Context, a, b string) (bool, error) {
		if onMain[a] == 0 || onMain[b] == 0 {
			return false, errors.New("commit is not main's head nor one of its ancestors")
		}
		return onMain[a] <= onMain[b], nil
	}
	for _, current := range []string{"", "m1"} {
		// dev rolled out g9, whose Promoted_Commit_Id is a commit of another repository (or none at all).
		res, err := Evaluate([]Commit{{SHA: "g9", Promoted: "f00ba4"}}, []Report{rep("a", "g9", Succeeded, time.Hour, "")}, Options{Expect: Expect{MinClusters: 1}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Gate{From: "dev", To: "stage", Current: current, Ancestor: ancestor}.Decide(context.Background(), res)
		if !errors.Is(err, ErrNotPromotable) || !strings.Contains(err.Error(), "dev's GitOps commit g9, the newest its clusters rolled out, carries Promoted_Commit_Id f00ba4, which is not a commit of the control-plane branch") ||
			!strings.Contains(err.Error(), "not main's head") {
			t.Errorf("current %q: err = %v", current, err)
		}
	}
}
