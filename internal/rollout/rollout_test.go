// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	now = time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	// history: g3 (head, main m3) → g2 (m2) → g1 (m1).
	history = []Commit{{SHA: "g3", Promoted: "m3"}, {SHA: "g2", Promoted: "m2"}, {SHA: "g1", Promoted: "m1"}}
)

func rep(cluster, commit string, s State, ago time.Duration, msg string) Report {
	return Report{Cluster: cluster, Commit: commit, Reconciler: "kustomization/dev", State: s, Message: msg, Time: now.Add(-ago)}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	three := Expect{Clusters: []string{"a", "b", "c"}}
	cases := []struct {
		name      string
		reports   []Report
		opts      Options
		state     State
		succeeded string
		summary   string
	}{
		{"all succeeded with the head", []Report{rep("a", "g3", Succeeded, time.Hour, ""), rep("b", "g3", Succeeded, time.Hour, ""), rep("c", "g3", Succeeded, time.Hour, "")},
			Options{Expect: three}, Succeeded, "g3", "3/3 clusters succeeded"},
		{"one failed with the head, all had succeeded with g2",
			[]Report{rep("a", "g3", Succeeded, time.Hour, ""), rep("b", "g3", Failed, time.Hour, "health check failed"), rep("b", "g2", Succeeded, 2*time.Hour, ""), rep("c", "g2", Succeeded, time.Hour, "")},
			Options{Expect: three}, Failed, "g2", "1/3 clusters succeeded, 1 failed (b: kustomization/dev: health check failed), 1 progressing"},
		{"progressing", []Report{rep("a", "g3", Progressing, time.Minute, "reconciling"), rep("b", "g3", Succeeded, time.Hour, ""), rep("c", "g1", Succeeded, time.Hour, "")},
			Options{Expect: three}, Progressing, "", "1/3 clusters succeeded, 2 progressing"},
		{"no cluster reports", nil, Options{Expect: three}, Unknown, "", "0/3 clusters succeeded, 3 not reporting (no report from a, b, c)"},
		{"no cluster reports, a minimum", nil, Options{Expect: Expect{MinClusters: 2}}, Unknown, "", "0/0 clusters succeeded (0 clusters reported, 2 expected)"},
		{"fewer than the minimum report", []Report{rep("a", "g3", Succeeded, time.Hour, "")}, Options{Expect: Expect{MinClusters: 2}}, Progressing, "", "1/1 clusters succeeded (1 cluster reported, 2 expected)"},
		{"soaking", []Report{rep("a", "g3", Succeeded, 2*time.Minute, ""), rep("a", "g2", Succeeded, time.Hour, "")},
			Options{Expect: Expect{MinClusters: 1}, Soak: 10 * time.Minute, Now: now}, Progressing, "g2", "0/1 clusters succeeded, 1 progressing"},
		{"soaked", []Report{rep("a", "g3", Succeeded, 11*time.Minute, "")},
			Options{Expect: Expect{MinClusters: 1}, Soak: 10 * time.Minute, Now: now}, Succeeded, "g3", "1/1 clusters succeeded"},
		{"per cluster type", []Report{
			{Cluster: "x", ClusterType: "drone", Commit: "g3", State: Succeeded, Time: now},
			{Cluster: "y", ClusterType: "large", Commit: "g3", State: Succeeded, Time: now},
		}, Options{Expect: Expect{ClusterTypes: map[string]int{"drone": 2, "large": 1}}}, Progressing, "", "2/2 clusters succeeded (1 of 2 clusters of type drone reported)"},
		{"a cluster outside the list does not count", []Report{rep("a", "g3", Succeeded, time.Hour, ""), rep("z", "g3", Failed, time.Hour, "boom")},
			Options{Expect: Expect{Clusters: []string{"a"}}}, Succeeded, "g3", "1/1 clusters succeeded"},
		{"reports about unknown commits are ignored", []Report{rep("a", "elsewhere", Succeeded, time.Hour, "")}, Options{Expect: Expect{MinClusters: 1}}, Unknown, "", "0/0 clusters succeeded (0 clusters reported, 1 expected)"},
		{"two reconcilers, one pending", []Report{rep("a", "g3", Succeeded, time.Hour, ""), {Cluster: "a", Commit: "g3", Reconciler: "kustomization/infra", State: Progressing, Time: now}},
			Options{Expect: Expect{MinClusters: 1}}, Progressing, "", "0/1 clusters succeeded, 1 progressing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Evaluate(history, tc.reports, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.State != tc.state || res.Succeeded.SHA != tc.succeeded || res.Summary() != tc.summary {
				t.Errorf("state %s, succeeded %q, summary %q; want %s, %q, %q", res.State, res.Succeeded.SHA, res.Summary(), tc.state, tc.succeeded, tc.summary)
			}
			if tc.succeeded != "" && res.Succeeded.Promoted != "m"+tc.succeeded[1:] {
				t.Errorf("succeeded promoted = %q", res.Succeeded.Promoted)
			}
		})
	}
}

func TestEvaluateRefusesBadInput(t *testing.T) {
	t.Parallel()
	if _, err := Evaluate(history, nil, Options{}); err == nil || !strings.Contains(err.Error(), "zero reporting clusters is never a rollout") {
		t.Errorf("no expectation: err = %v", err)
	}
	var many []Report
	for i := range 30 {
		many = append(many, rep(fmt.Sprintf("c%d", i), "g3", Succeeded, time.Hour, ""))
	}
	if _, err := Evaluate(history, many, Options{Expect: Expect{MinClusters: 1}, MaxClusters: 20}); err == nil || !strings.Contains(err.Error(), "30 clusters, more than the limit of 20") {
		t.Errorf("too many clusters: err = %v", err)
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	// main: m1 → m2 → m3.
	order := map[string]int{"m1": 1, "m2": 2, "m3": 3}
	ancestor := func(_ context.Context, a, b string) (bool, error) {
		if order[a] == 0 || order[b] == 0 {
			return false, errors.New("not on main")
		}
		return order[a] <= order[b], nil
	}
	all := []Report{rep("a", "g3", Succeeded, time.Hour, "")}
	failed := []Report{rep("a", "g3", Failed, time.Hour, "health check failed"), rep("a", "g2", Succeeded, 2*time.Hour, "")}
	cases := []struct {
		name      string
		reports   []Report
		current   string
		backwards bool
		commit    string
		moves     bool
		hold      bool
		reason    string
	}{
		{"all succeeded: moves", all, "m1", false, "m3", true, false, "dev is at main@m3: 1/1 clusters succeeded; stage moves main@m1 → main@m3"},
		{"failed: moves only as far as dev rolled out", failed, "m1", false, "m2", true, false, "stage moves main@m1 → main@m2"},
		{"failed: stays, naming the cluster", failed, "m2", false, "m2", false, true,
			"dev is at main@m3: 0/1 clusters succeeded, 1 failed (a: kustomization/dev: health check failed); stage is already at main@m2"},
		{"nothing reported: stays", nil, "m1", false, "m1", false, true, "dev is at main@m3: 0/0 clusters succeeded (0 clusters reported, 1 expected); stage stays at main@m1"},
		{"never backwards", all, "m3", false, "m3", false, false, "stage is already at main@m3"},
		{"first promotion", all, "", false, "m3", true, false, "stage moves to main@m3 (its first promotion)"},
		{"nothing to promote yet", nil, "", false, "", false, true, "stage has no promoted commit yet and stays empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Evaluate(history, tc.reports, Options{Expect: Expect{MinClusters: 1}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := Gate{From: "dev", To: "stage", Current: tc.current, AllowBackwards: tc.backwards, Ancestor: ancestor}.Decide(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			if d.Commit != tc.commit || d.Moves != tc.moves || d.Hold != tc.hold || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("decision %+v; want commit %q, moves %v, hold %v, reason containing %q", d, tc.commit, tc.moves, tc.hold, tc.reason)
			}
		})
	}

	// Backwards: dev rolled out m2 while stage is at m3 (someone promoted by hand).
	res, _ := Evaluate(history[1:], []Report{rep("a", "g2", Succeeded, time.Hour, "")}, Options{Expect: Expect{MinClusters: 1}})
	for _, back := range []bool{false, true} {
		d, err := Gate{From: "dev", To: "stage", Current: "m3", AllowBackwards: back, Ancestor: ancestor}.Decide(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{false: "m3", true: "m2"}[back]; d.Commit != want || d.Moves != back || !d.Hold {
			t.Errorf("allow_backwards=%v: %+v, want commit %s", back, d, want)
		}
	}

	// A head without Promoted_Commit_Id that nobody reported on: the reason names the head, never "main@(none)".
	res, _ = Evaluate([]Commit{{SHA: "g9abcdef1234"}, {SHA: "g8", Promoted: "m1"}}, nil, Options{Expect: Expect{MinClusters: 1}})
	d, err := (Gate{From: "dev", To: "stage", Current: "m1", Ancestor: ancestor}).Decide(context.Background(), res)
	if want := "dev's GitOps head g9abcde carries no promoted commit (no .github/tracking/Promoted_Commit_Id): 0/0 clusters succeeded (0 clusters reported, 1 expected); stage stays at main@m1"; err != nil || d.Reason != want {
		t.Errorf("head without Promoted_Commit_Id: %+v, %v; want reason %q", d, err, want)
	}

	// A rolled-out commit without Promoted_Commit_Id cannot be promoted.
	res, _ = Evaluate([]Commit{{SHA: "g9"}}, []Report{rep("a", "g9", Succeeded, time.Hour, "")}, Options{Expect: Expect{MinClusters: 1}})
	if _, err := (Gate{From: "dev", To: "stage", Ancestor: ancestor}).Decide(context.Background(), res); err == nil || !strings.Contains(err.Error(), "has no .github/tracking/Promoted_Commit_Id") {
		t.Errorf("missing Promoted_Commit_Id: err = %v", err)
	}
}
