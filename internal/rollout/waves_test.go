// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// The environment of the wave tests: a canary cluster type, two in the west, one in the east; the branch
// history h0 (head) → h1 → h2, an hour apart.
var (
	waveTypes = []ClusterType{
		{Name: "west-2", Labels: map[string]string{"region": "west"}},
		{Name: "drone", Labels: map[string]string{"region": "lab"}},
		{Name: "east-1", Labels: map[string]string{"region": "east"}},
		{Name: "west-1", Labels: map[string]string{"region": "west"}},
	}
	waveList = []Wave{
		{Name: "canary", ClusterTypes: []string{"drone"}, Soak: 30 * time.Minute},
		{Name: "west", Labels: map[string]string{"region": "west"}, MaxFailures: 1},
		{Name: "rest"},
	}
	waveHistory = []Commit{{SHA: "h0", Time: now.Add(-time.Hour)}, {SHA: "h1", Time: now.Add(-2 * time.Hour)}, {SHA: "h2", Time: now.Add(-3 * time.Hour)}}
	waveExpect  = WaveExpect{Clusters: map[string][]string{"drone": {"drone-1", "drone-2"}, "west-1": {"w1a"}, "west-2": {"w2a", "w2b"}}}
)

// ok is a soaked success of cluster on commit.
func ok(cluster, commit string) Report {
	return Report{Cluster: cluster, Commit: commit, Reconciler: "flux", State: Succeeded, Time: now.Add(-time.Hour)}
}

func bad(cluster, commit, msg string) Report {
	return Report{Cluster: cluster, Commit: commit, Reconciler: "flux", State: Failed, Message: msg, Time: now.Add(-time.Hour)}
}

// settled: every folder last changed at h0 and holds the desired content.
func waveInput(reports ...Report) WaveInput {
	return WaveInput{Waves: waveList, Types: waveTypes, Pending: map[string]int{}, History: waveHistory,
		Changed: map[string]int{"drone": 0, "west-1": 0, "west-2": 0, "east-1": 0}, Reports: reports, Expect: waveExpect, Now: now}
}

// allOK is every expected cluster (and one east cluster) succeeded on h0.
func allOK() []Report {
	var out []Report
	for _, c := range []string{"drone-1", "drone-2", "w1a", "w2a", "w2b"} {
		out = append(out, ok(c, "h0"))
	}
	return append(out, Report{Cluster: "e1", ClusterType: "east-1", Commit: "h0", State: Succeeded, Time: now.Add(-time.Hour)})
}

func states(p *WavePlan) string {
	var s []string
	for _, w := range p.Waves {
		x := string(w.State)
		if w.Writes {
			x += "+writes"
		}
		s = append(s, w.Name+"="+x)
	}
	return strings.Join(s, " ")
}

func TestMembers(t *testing.T) {
	t.Parallel()
	got, err := Members(waveList, waveTypes)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"drone"}, {"west-1", "west-2"}, {"east-1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("members = %v, want %v", got, want)
	}
	// Same inputs in another order, same waves.
	reversed := []ClusterType{waveTypes[3], waveTypes[2], waveTypes[1], waveTypes[0]}
	if again, _ := Members(waveList, reversed); !reflect.DeepEqual(again, want) {
		t.Errorf("members depend on the input order: %v", again)
	}
	// A cluster type selected by two waves belongs to the first.
	first := []Wave{{Name: "a", ClusterTypes: []string{"west-1"}}, {Name: "b", Labels: map[string]string{"region": "west"}}, {Name: "c"}}
	if got, _ := Members(first, waveTypes); !reflect.DeepEqual(got, [][]string{{"west-1"}, {"west-2"}, {"drone", "east-1"}}) {
		t.Errorf("first wave wins: %v", got)
	}
	for _, tc := range []struct {
		name  string
		waves []Wave
		want  string
	}{
		{"a cluster type no wave takes", waveList[:2], "no wave takes cluster type east-1; select it in a wave"},
		{"the rest not last", []Wave{{Name: "rest"}, waveList[0]}, "wave 0 (rest) has no selector, so it takes every remaining cluster type, and must be the last wave"},
		{"two selectors", []Wave{{Name: "x", ClusterTypes: []string{"drone"}, Labels: map[string]string{"a": "b"}}}, "selects by cluster_types and by cluster_type_labels"},
		{"two waves, one name", []Wave{{Name: "x", ClusterTypes: []string{"drone"}}, {Name: "x"}}, `waves 0 and 1 are both named "x"`},
		{"no waves", nil, "list at least one wave"},
	} {
		if _, err := Members(tc.waves, waveTypes); !errors.Is(err, ErrWaves) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Each way a status can lie keeps the canary current and writes nothing; only soaked successes of every
// expected cluster on the commit that carries the canary's folder let the next wave write.
func TestPlanWaves_TheGate(t *testing.T) {
	t.Parallel()
	young := ok("drone-2", "h0")
	young.Time = now.Add(-12 * time.Minute)
	undated := ok("drone-2", "h0")
	undated.Time = time.Time{}
	cases := []struct {
		name    string
		reports []Report
		states  string
		reason  string
	}{
		{"no report", nil, "canary=current west=waiting rest=waiting", "waits: 0/2 clusters succeeded; drone-1, drone-2 have not reported"},
		{"one missing", []Report{ok("drone-1", "h0")}, "canary=current west=waiting rest=waiting", "waits: 1/2 clusters succeeded; drone-2 has not reported"},
		{"pending", []Report{ok("drone-1", "h0"), {Cluster: "drone-2", Commit: "h0", State: Progressing, Message: "reconciling", Time: now}},
			"canary=current west=waiting rest=waiting", "waits: 1/2 clusters succeeded; drone-2: reconciling"},
		{"on an older commit", []Report{ok("drone-1", "h0"), ok("drone-2", "h1")}, "canary=current west=waiting rest=waiting",
			"waits: 1/2 clusters succeeded; drone-2 reported only on older commits"},
		{"too young for the soak", []Report{ok("drone-1", "h0"), young}, "canary=current west=waiting rest=waiting",
			"waits: 1/2 clusters succeeded; drone-2 soaking (soak 30m0s)"},
		{"no time, no soak", []Report{ok("drone-1", "h0"), undated}, "canary=current west=waiting rest=waiting",
			"drone-2: succeeded, but the report carries no valid time, so the soak of 30m0s cannot start"},
		{"another cluster's success does not count", []Report{ok("drone-1", "h0"), ok("drone-3", "h0"), {Cluster: "x", ClusterType: "drone", Commit: "h0", State: Succeeded, Time: now.Add(-time.Hour)}},
			"canary=current west=waiting rest=waiting", "waits: 1/2 clusters succeeded; drone-2 has not reported"},
		{"all soaked on the head", []Report{ok("drone-1", "h0"), ok("drone-2", "h0")}, "canary=done west=current rest=waiting", "2/2 clusters succeeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := waveInput(tc.reports...)
			in.Pending = map[string]int{"west-1": 2}
			p, err := PlanWaves(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := states(p); !strings.HasPrefix(tc.states+"+", strings.Replace(got, "west=current+writes", "west=current", 1)+"+") {
				t.Errorf("states %s, want %s", got, tc.states)
			}
			if !strings.Contains(p.Waves[0].Reason, tc.reason) {
				t.Errorf("canary reason %q, want %q", p.Waves[0].Reason, tc.reason)
			}
			wantAdmitted := map[string]bool{}
			if p.Waves[0].State == WaveDone {
				wantAdmitted = map[string]bool{"west-1": true, "west-2": true}
			}
			if !reflect.DeepEqual(p.Admitted, wantAdmitted) || p.Outside {
				t.Errorf("admitted %v, outside %v; want %v", p.Admitted, p.Outside, wantAdmitted)
			}
		})
	}
	// The soak's progress goes to the warning, not to the reason (which the plan keeps).
	in := waveInput(ok("drone-1", "h0"), young)
	p, _ := PlanWaves(in)
	if p.Waves[0].Detail != "on h0, soak 12m0s of 30m0s" || !strings.Contains(p.Behind(), "canary waits: 1/2 clusters succeeded; drone-2 soaking (soak 30m0s); on h0, soak 12m0s of 30m0s") {
		t.Errorf("detail %q, behind %q", p.Waves[0].Detail, p.Behind())
	}
}

// A whole rollout, plan by plan, as the branch and the reports move.
func TestPlanWaves_ARollout(t *testing.T) {
	t.Parallel()
	// The first apply: everything is new; only the canary is written.
	in := waveInput()
	in.Pending = map[string]int{"drone": 3, "west-1": 2, "west-2": 2, "east-1": 1, "": 1}
	p, err := PlanWaves(in)
	if err != nil {
		t.Fatal(err)
	}
	if states(p) != "canary=current+writes west=waiting rest=waiting" || !reflect.DeepEqual(p.Admitted, map[string]bool{"drone": true}) || p.Outside {
		t.Fatalf("first apply: %s %v", states(p), p.Admitted)
	}
	if w := p.Waves[1]; w.PendingFiles != 4 || w.PendingClusterTypes != 2 || w.Reason != "waits for canary" || p.Waves[2].PendingFiles != 2 {
		t.Errorf("west: %+v, rest %+v", w, p.Waves[2])
	}
	if p.Behind() != "west waits for canary\nrest waits for canary" {
		t.Errorf("behind %q", p.Behind())
	}
	// The canary's reason is already the one of the plan after this apply, before any cluster reported:
	// the state the apply records is what the next plan computes, so that plan is empty.
	after := waveInput()
	after.Pending = map[string]int{"west-1": 2, "west-2": 2, "east-1": 1, "": 1}
	next, _ := PlanWaves(after)
	if p.Waves[0].Reason != "waits: 0/2 clusters succeeded; drone-1, drone-2 have not reported" || next.Waves[0].Reason != p.Waves[0].Reason ||
		p.Waves[0].Detail != "this apply writes 3 files" || next.Waves[0].Detail != "on h0" {
		t.Errorf("canary written %+v, then %+v", p.Waves[0], next.Waves[0])
	}

	// The canary was written at h0 and reported healthy: west writes, the rest waits.
	in.Pending = map[string]int{"west-1": 2, "west-2": 2, "east-1": 1, "": 1}
	in.Reports = allOK()
	p, _ = PlanWaves(in)
	if states(p) != "canary=done west=current+writes rest=waiting" || !reflect.DeepEqual(p.Admitted, map[string]bool{"west-1": true, "west-2": true}) {
		t.Errorf("second apply: %s %v", states(p), p.Admitted)
	}

	// A new change while west rolls out starts again at the canary; west keeps what it has.
	in.Pending = map[string]int{"drone": 1, "west-1": 1, "east-1": 1, "": 1}
	p, _ = PlanWaves(in)
	if states(p) != "canary=current+writes west=waiting rest=waiting" || !reflect.DeepEqual(p.Admitted, map[string]bool{"drone": true}) {
		t.Errorf("a new change: %s %v", states(p), p.Admitted)
	}

	// West's folders changed at h0, two of its clusters failed there: more than max_failures 1 halts,
	// nothing is written, and the warning names them.
	in.Pending = map[string]int{"east-1": 1, "": 1}
	in.Reports = append(allOK(), bad("w2a", "h0", "health check failed"), bad("w2b", "h0", "ImagePullBackOff"))
	in.Reports[3], in.Reports[4] = ok("w1a", "h1"), ok("w1a", "h1") // w1a is behind, too
	p, _ = PlanWaves(in)
	if states(p) != "canary=done west=halted rest=blocked" || len(p.Admitted) != 0 || p.Outside || !p.Halted {
		t.Errorf("halted: %s %v", states(p), p.Admitted)
	}
	if want := "west halted: 2 of 3 clusters failed, more than max_failures 1;"; !strings.HasPrefix(p.Behind(), want) ||
		!strings.Contains(p.Behind(), "(w2a: flux: health check failed; w2b: flux: ImagePullBackOff)") || !strings.Contains(p.Behind(), "rest blocked: west halted") {
		t.Errorf("behind %q", p.Behind())
	}

	// One failure is within max_failures: west is done, and the last wave writes the files outside the
	// cluster types' folders (Promoted_Commit_Id) with its own.
	in.Reports = append(allOK(), bad("w2b", "h0", "ImagePullBackOff"))
	in.Reports[4] = ok("w2a", "h0")
	p, _ = PlanWaves(in)
	if states(p) != "canary=done west=done rest=current+writes" || !reflect.DeepEqual(p.Admitted, map[string]bool{"east-1": true}) || !p.Outside {
		t.Errorf("last wave: %s %v outside %v", states(p), p.Admitted, p.Outside)
	}

	// Only Promoted_Commit_Id changes: it waits for every wave's gate, then moves with the last.
	in.Pending = map[string]int{"": 1}
	in.Reports = allOK()
	p, _ = PlanWaves(in)
	if states(p) != "canary=done west=done rest=current+writes" || len(p.Admitted) != 1 || !p.Outside || p.Waves[2].PendingFiles != 1 {
		t.Errorf("promotion only: %s %v %v", states(p), p.Admitted, p.Outside)
	}
	in.Reports = allOK()[1:]
	if p, _ = PlanWaves(in); states(p) != "canary=current west=waiting rest=waiting" || p.Outside {
		t.Errorf("promotion only, canary not reported: %s", states(p))
	}

	// Done: nothing pending, every gate passed; the plan is stable.
	in.Pending, in.Reports = map[string]int{}, allOK()
	p, _ = PlanWaves(in)
	again, _ := PlanWaves(in)
	if states(p) != "canary=done west=done rest=done" || p.Behind() != "" || !reflect.DeepEqual(p, again) {
		t.Errorf("done: %s %q", states(p), p.Behind())
	}
}

func TestPlanWaves_PauseDeadlineAndExpectations(t *testing.T) {
	t.Parallel()
	in := waveInput()
	in.Pending = map[string]int{"drone": 1}
	in.Paused = true
	p, _ := PlanWaves(in)
	if states(p) != "canary=paused west=waiting rest=waiting" || len(p.Admitted) != 0 || !p.Paused || p.Waves[0].Reason != "paused with 1 file to write" {
		t.Errorf("paused: %s %+v", states(p), p.Waves[0])
	}
	in.Pending = map[string]int{"west-1": 1}
	in.Reports = []Report{ok("drone-1", "h0")}
	if p, _ = PlanWaves(in); states(p) != "canary=paused west=waiting rest=waiting" || len(p.Admitted) != 0 {
		t.Errorf("paused while waiting: %s", states(p))
	}

	// progress_deadline: the canary's folder changed at h1, two hours ago, and drone-2 never reported.
	in = waveInput(ok("drone-1", "h0"))
	in.Changed["drone"] = 1
	in.Deadline = 90 * time.Minute
	p, _ = PlanWaves(in)
	if states(p) != "canary=halted west=blocked rest=blocked" || !strings.HasPrefix(p.Waves[0].Reason, "halted: progress_deadline 1h30m0s passed since h1;") {
		t.Errorf("deadline: %s %q", states(p), p.Waves[0].Reason)
	}
	in.Deadline = 3 * time.Hour
	if p, _ = PlanWaves(in); states(p) != "canary=current west=waiting rest=waiting" {
		t.Errorf("within the deadline: %s", states(p))
	}

	// A cluster type without a list needs reporters: zero reporting clusters never pass.
	in = waveInput(allOK()[:5]...)
	if p, _ = PlanWaves(in); states(p) != "canary=done west=done rest=current" || !strings.Contains(p.Waves[2].Reason, "no cluster of cluster type east-1 reported (at least 1 expected)") {
		t.Errorf("nobody in the east: %s %q", states(p), p.Waves[2].Reason)
	}
	in.Expect.MinPerClusterType = 2
	in.Reports = allOK()
	if p, _ = PlanWaves(in); states(p) != "canary=done west=done rest=current" {
		t.Errorf("min 2 per cluster type: %s", states(p))
	}

	// Two clusters with one name in a cluster type's list: an error, not a guess.
	in = waveInput(allOK()...)
	in.Reports = append(in.Reports, Report{Cluster: "drone-1", ClusterID: "drone-1@mallory", ClusterType: "drone", Commit: "h0", State: Failed, Time: now})
	in.Reports[0].ClusterID = "drone-1@flux"
	if p, _ = PlanWaves(in); p.Waves[0].State != WaveHalted || !strings.Contains(p.Waves[0].Reason, `expected cluster "drone-1" names 2 clusters (drone-1@flux, drone-1@mallory)`) {
		t.Errorf("ambiguous: %s %q", states(p), p.Waves[0].Reason)
	}
	in.Expect.Clusters = map[string][]string{"drone": {"a"}, "west-1": {"a"}}
	if _, err := PlanWaves(in); err == nil || !strings.Contains(err.Error(), `cluster "a" is expected in cluster types`) {
		t.Errorf("one cluster in two cluster types: %v", err)
	}
}

// BenchmarkPlanWaves evaluates 10,000 cluster reports (5,000 clusters over 100 cluster types, each cluster
// reporting on two commits) in three waves; the target is well under 2 s.
func BenchmarkPlanWaves(b *testing.B) {
	var types []ClusterType
	var reports []Report
	for t := range 100 {
		ct := fmt.Sprintf("ct-%03d", t)
		region := []string{"west", "east", "lab"}[t%3]
		types = append(types, ClusterType{Name: ct, Labels: map[string]string{"region": region}})
		for c := range 50 {
			name := fmt.Sprintf("%s-c%02d", ct, c)
			reports = append(reports, ok(name, "h1"), Report{Cluster: name, ClusterType: ct, Commit: "h0", Reconciler: "flux", State: Succeeded, Time: now.Add(-time.Hour)})
			reports[len(reports)-2].ClusterType = ct
		}
	}
	in := WaveInput{Waves: []Wave{{Name: "canary", Labels: map[string]string{"region": "lab"}, Soak: 30 * time.Minute}, {Name: "west", Labels: map[string]string{"region": "west"}}, {Name: "rest"}},
		Types: types, Pending: map[string]int{}, History: waveHistory, Changed: map[string]int{}, Reports: reports, Now: now}
	b.ReportAllocs()
	b.ResetTimer()
	cpuBefore := proccpu.Seconds()
	for range b.N {
		p, err := PlanWaves(in)
		if err != nil || states(p) != "canary=done west=done rest=done" {
			b.Fatalf("%v %s", err, states(p))
		}
	}
	b.StopTimer()
	// CPU time beside wall time: on a machine shared with other jobs the wall time says little.
	b.ReportMetric((proccpu.Seconds()-cpuBefore)/float64(b.N)*1e3, "cpu-ms/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1e3, "wall-ms/op")
	b.ReportMetric(float64(len(reports)), "reports")
}
