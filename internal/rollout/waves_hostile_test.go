// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestHostileWaves: contradictory or degenerate waves are refused with the wave's index and name and
// what to change; the degenerate ones that are allowed (an empty wave, huge numbers) decide without a
// panic and say what they did.
func TestHostileWaves(t *testing.T) {
	t.Parallel()
	names := func(n ...string) []string { return n }
	cases := []struct {
		name  string
		waves []Wave
		want  string // substring of the error; "" for valid
	}{
		{"no wave", nil, "list at least one wave"},
		{"empty name", []Wave{{Name: ""}}, "wave 0 has no name"},
		{"blank name", []Wave{{Name: " \t"}}, "wave 0 has no name"},
		{"duplicate names", []Wave{{Name: "a", ClusterTypes: names("x")}, {Name: "a"}}, `waves 0 and 1 are both named "a"`},
		{"both selectors", []Wave{{Name: "a", ClusterTypes: names("x"), Labels: map[string]string{"k": "v"}}}, "wave 0 (a) selects by cluster_types and by cluster_type_labels"},
		{"catch-all not last", []Wave{{Name: "all"}, {Name: "b", ClusterTypes: names("x")}}, "wave 0 (all) has no selector"},
		{"negative max_failures", []Wave{{Name: "a", MaxFailures: -1}}, "wave 0 (a) has max_failures -1"},
		{"min int max_failures", []Wave{{Name: "a", MaxFailures: math.MinInt}}, "use 0 or more"},
		{"a cluster type in two waves", []Wave{{Name: "canary", ClusterTypes: names("small")}, {Name: "rest", ClusterTypes: names("large", "small")}},
			`waves 0 (canary) and 1 (rest) both list cluster type "small"`},
		{"an empty cluster type name", []Wave{{Name: "a", ClusterTypes: names("")}}, "wave 0 (a) lists an empty cluster type name"},
		{"a cluster type twice in one wave", []Wave{{Name: "a", ClusterTypes: names("x", "x")}}, ""},
		{"huge max_failures", []Wave{{Name: "a", MaxFailures: math.MaxInt}}, ""},
		{"huge soak", []Wave{{Name: "a", Soak: time.Duration(math.MaxInt64)}}, ""},
		{"names that look like markup", []Wave{{Name: "<script>|`x`\n"}}, ""},
	}
	for _, c := range cases {
		err := ValidateWaves(c.waves)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !errors.Is(err, ErrWaves) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want an ErrWaves containing %q", c.name, err, c.want)
		}
	}
}

// TestHostileWavePlans: an empty wave, a huge soak or max_failures, reports from the future and
// reports about unknown commits plan without a panic, and an empty wave says it has no cluster type.
func TestHostileWavePlans(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 9, 9, 0, 0, 0, time.UTC)
	types := []ClusterType{{Name: "small"}, {Name: "large"}}
	history := []Commit{{SHA: strings.Repeat("b", 40), Time: now.Add(-time.Hour)}, {SHA: strings.Repeat("a", 40), Time: now.Add(-2 * time.Hour)}}
	reports := []Report{
		{Cluster: "s1", ClusterType: "small", Commit: strings.Repeat("b", 40), State: Succeeded, Time: now.Add(100 * 365 * 24 * time.Hour)},
		{Cluster: "l1", ClusterType: "large", Commit: strings.Repeat("f", 40), State: Failed, Time: now, Message: "<script>\nKalypso-Ticket: x"},
	}
	plan, err := PlanWaves(WaveInput{
		Waves: []Wave{{Name: "empty", ClusterTypes: []string{"does-not-exist"}}, {Name: "canary", ClusterTypes: []string{"small"}, Soak: time.Duration(math.MaxInt64)},
			{Name: "rest", MaxFailures: math.MaxInt}},
		Types: types, Pending: map[string]int{"large": 1}, History: history, Reports: reports, Now: now,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Waves[0]; got.State != WaveDone || got.Reason != "has no cluster type" || len(got.ClusterTypes) != 0 {
		t.Errorf("the empty wave: %+v", got)
	}
	if got := plan.Waves[1]; got.State == WaveDone {
		t.Errorf("a soak of 292 years passed: %+v", got)
	}
	if plan.Admitted["large"] {
		t.Errorf("the last wave was admitted behind a soaking canary: %+v", plan)
	}
}
