// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// A progressive rollout inside one environment: its cluster types are split into waves, and a change
// reaches a wave only once every earlier wave holds it and its clusters reported it healthy. Every cluster
// of a cluster type reads the same folder, so the cluster type is the smallest unit a branch can hold back.
//
// The decision is stateless: each plan derives it from the desired tree, the branch (what each folder holds
// and which commit last changed it) and what the clusters reported, so a plan that is run again, in CI or
// on a schedule, takes the next step and nothing remembers a step that the branch does not show.

// Wave is one step of a rollout.
type Wave struct {
	Name string
	// ClusterTypes selects cluster types by name, Labels by their labels (every label must match). A wave
	// with neither takes every cluster type no earlier wave took, and must be the last.
	ClusterTypes []string
	Labels       map[string]string
	// Soak is how long a cluster must have reported success before it counts.
	Soak time.Duration
	// MaxFailures is how many of the wave's clusters may fail before the rollout halts.
	MaxFailures int
}

func (w Wave) selective() bool { return len(w.ClusterTypes) > 0 || len(w.Labels) > 0 }

func (w Wave) selects(ct ClusterType) bool {
	for _, n := range w.ClusterTypes {
		if n == ct.Name {
			return true
		}
	}
	if len(w.Labels) == 0 {
		return false
	}
	for k, v := range w.Labels {
		if got, ok := ct.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ClusterType is a cluster type of the environment as the waves see it. Labels is nil when they are not
// known (files mode, or a cluster type that only the branch still holds).
type ClusterType struct {
	Name   string
	Labels map[string]string
}

// ErrWaves means the waves are not a valid rollout of the environment's cluster types.
var ErrWaves = errors.New("invalid rollout waves")

// ValidateWaves checks the waves on their own: at least one, named uniquely, a selector by names or by
// labels (not both), only the last without a selector, and each cluster type named by one wave only.
func ValidateWaves(waves []Wave) error {
	if len(waves) == 0 {
		return fmt.Errorf("%w: list at least one wave", ErrWaves)
	}
	seen, named := map[string]int{}, map[string]int{}
	for i, w := range waves {
		switch {
		case strings.TrimSpace(w.Name) == "":
			return fmt.Errorf("%w: wave %d has no name", ErrWaves, i)
		case len(w.ClusterTypes) > 0 && len(w.Labels) > 0:
			return fmt.Errorf("%w: wave %d (%s) selects by cluster_types and by cluster_type_labels; use one", ErrWaves, i, w.Name)
		case !w.selective() && i != len(waves)-1:
			return fmt.Errorf("%w: wave %d (%s) has no selector, so it takes every remaining cluster type, and must be the last wave", ErrWaves, i, w.Name)
		case w.MaxFailures < 0:
			return fmt.Errorf("%w: wave %d (%s) has max_failures %d; use 0 or more", ErrWaves, i, w.Name, w.MaxFailures)
		}
		if j, ok := seen[w.Name]; ok {
			return fmt.Errorf("%w: waves %d and %d are both named %q", ErrWaves, j, i, w.Name)
		}
		seen[w.Name] = i
		// A cluster type goes to the first wave that names it, so naming it again in a later wave would
		// leave that wave silently without it: refuse the contradiction instead.
		for _, ct := range w.ClusterTypes {
			if strings.TrimSpace(ct) == "" {
				return fmt.Errorf("%w: wave %d (%s) lists an empty cluster type name in cluster_types", ErrWaves, i, w.Name)
			}
			if j, ok := named[ct]; ok && j != i {
				return fmt.Errorf("%w: waves %d (%s) and %d (%s) both list cluster type %q; a cluster type rolls out in one wave, so list it in one",
					ErrWaves, j, waves[j].Name, i, w.Name, ct)
			}
			named[ct] = i
		}
	}
	return nil
}

// Members assigns each cluster type to the first wave that selects it, by name or by labels, and returns
// each wave's cluster types, sorted. A cluster type no wave takes is an error; so is a label selector on
// a cluster type whose labels are not known. Same inputs, same waves.
func Members(waves []Wave, types []ClusterType) ([][]string, error) {
	if err := ValidateWaves(waves); err != nil {
		return nil, err
	}
	sorted := append([]ClusterType(nil), types...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	out := make([][]string, len(waves))
	var homeless []string
	for _, ct := range sorted {
		placed := false
		for i, w := range waves {
			if !w.selective() || w.selects(ct) {
				out[i] = append(out[i], ct.Name)
				placed = true
				break
			}
		}
		if !placed {
			homeless = append(homeless, ct.Name)
		}
	}
	if len(homeless) > 0 {
		return nil, fmt.Errorf("%w: no wave takes cluster type %s; select it in a wave (cluster_types or cluster_type_labels), "+
			"or end the waves with one without a selector, which takes the rest", ErrWaves, strings.Join(homeless, ", "))
	}
	return out, nil
}

// WaveExpect says which clusters must report for a wave to count as rolled out. Zero reporting clusters
// never count: a cluster type without a list needs at least MinPerClusterType (1 when zero) reporters.
type WaveExpect struct {
	// Clusters lists, per cluster type, the clusters that must report (by name or full identity).
	Clusters map[string][]string
	// MinPerClusterType is how many clusters of a cluster type without a list must report.
	MinPerClusterType int
}

// WaveInput is what a plan knows when it decides the waves.
type WaveInput struct {
	Waves []Wave
	// Types are the environment's cluster types: those of the desired tree and those the branch still holds.
	Types []ClusterType
	// Pending counts, per cluster type, the files of its folder that the desired tree changes on the branch;
	// the key "" counts the files outside the cluster types' folders, which move with the last wave.
	Pending map[string]int
	// History is the branch's first-parent history, newest first, each commit with its time.
	History []Commit
	// Changed is, per cluster type, the position in History of the commit that last changed its folder;
	// absent means older than the history read, so that every commit read carries the folder as it is.
	Changed map[string]int
	Reports []Report
	Expect  WaveExpect
	Now     time.Time
	// Deadline is progress_deadline: a wave whose clusters have not all succeeded this long after its
	// folders last changed halts the rollout (0: none).
	Deadline time.Duration
	Paused   bool
}

// WaveState is a wave's place in the rollout.
type WaveState string

const (
	// WaveDone: its folders hold the desired content and its clusters reported it healthy.
	WaveDone WaveState = "done"
	// WaveCurrent: the wave this apply writes, or whose clusters the rollout waits for.
	WaveCurrent WaveState = "current"
	// WaveWaiting: a later wave, behind the current one.
	WaveWaiting WaveState = "waiting"
	// WaveBlocked: a later wave, behind a halted one.
	WaveBlocked WaveState = "blocked"
	// WaveHalted: more failures than max_failures, or past progress_deadline; nothing is written.
	WaveHalted WaveState = "halted"
	// WavePaused: the wave the rollout would take next, with paused = true; nothing is written.
	WavePaused WaveState = "paused"
)

// WaveStatus is one wave in a plan.
type WaveStatus struct {
	Name         string
	ClusterTypes []string
	State        WaveState
	// Writes is true for the wave whose pending files this apply writes.
	Writes bool
	// PendingFiles counts the files the desired tree changes in the wave's folders (and, for the last wave,
	// outside them); PendingClusterTypes the wave's cluster types with a change.
	PendingFiles, PendingClusterTypes int
	// Reason says why the wave is in its state, in words that change only when the rollout does.
	Reason string
	// Detail adds what changes with the clock (how long a soak still runs), for the plan's warning.
	Detail string
	// Failed lists the wave's failed clusters with their messages.
	Failed []string
}

// WavePlan is the rollout a plan decides.
type WavePlan struct {
	Waves []WaveStatus
	// Admitted are the cluster types whose folders this apply writes.
	Admitted map[string]bool
	// Outside is true when this apply writes the files outside the cluster types' folders (such as
	// .github/tracking/Promoted_Commit_Id): only with the last wave, so that the next environment sees this
	// one promoted only once it is fully rolled out.
	Outside bool
	Halted  bool
	Paused  bool
	// TotalClusterTypes is how many cluster types the environment has.
	TotalClusterTypes int
}

// PlanWaves decides which wave this apply writes. Wave 1 is always admitted; wave k+1 is admitted when
// every wave up to k has no pending file, every expected cluster of its cluster types succeeded (for the
// wave's soak) on a commit that carries its folders as they are (the commit that last changed them, or a
// newer one), and at most max_failures of them failed. At most one wave writes per apply: the first with
// pending files among the admitted ones, so a new change during a rollout starts again at wave 1 while
// later waves keep what they have.
func PlanWaves(in WaveInput) (*WavePlan, error) {
	members, err := Members(in.Waves, in.Types)
	if err != nil {
		return nil, err
	}
	g, err := newGate(in)
	if err != nil {
		return nil, err
	}
	out := &WavePlan{Admitted: map[string]bool{}, TotalClusterTypes: len(in.Types)}
	var stop *WaveStatus // the wave the rollout stopped at, nil while waves are done
	for i, w := range in.Waves {
		st := WaveStatus{Name: w.Name, ClusterTypes: members[i]}
		if st.ClusterTypes == nil {
			st.ClusterTypes = []string{}
		}
		for _, ct := range members[i] {
			if n := in.Pending[ct]; n > 0 {
				st.PendingFiles += n
				st.PendingClusterTypes++
			}
		}
		last := i == len(in.Waves)-1
		if last {
			st.PendingFiles += in.Pending[""]
		}
		switch {
		case stop != nil && stop.State == WaveHalted:
			st.State, st.Reason = WaveBlocked, fmt.Sprintf("blocked: %s halted", stop.Name)
		case stop != nil:
			st.State, st.Reason = WaveWaiting, fmt.Sprintf("waits for %s", stop.Name)
		case st.PendingFiles > 0 && in.Paused:
			st.State, st.Reason = WavePaused, fmt.Sprintf("paused with %s to write", plural(st.PendingFiles, "file"))
			out.Paused = true
		case st.PendingFiles > 0:
			// The reason is the wave's once this apply lands: none of its clusters has reported about the
			// commit the apply makes, so the next plan says the same until one does.
			v := g.verdict(w, members[i], true)
			st.State, st.Writes, st.Reason = WaveCurrent, true, v.reason
			st.Detail = fmt.Sprintf("this apply writes %s", plural(st.PendingFiles, "file"))
			for _, ct := range members[i] {
				out.Admitted[ct] = true
			}
			out.Outside = last
		default:
			v := g.verdict(w, members[i], false)
			st.Failed = v.failed
			switch {
			case v.halted != "":
				st.State, st.Reason, st.Detail = WaveHalted, v.halted, v.detail
				out.Halted = true
			case v.passed:
				st.State, st.Reason = WaveDone, v.reason
			case in.Paused:
				st.State, st.Reason, st.Detail = WavePaused, "paused; "+v.reason, v.detail
				out.Paused = true
			default:
				st.State, st.Reason, st.Detail = WaveCurrent, v.reason, v.detail
			}
		}
		out.Waves = append(out.Waves, st)
		if stop == nil && st.State != WaveDone {
			stop = &out.Waves[len(out.Waves)-1]
		}
	}
	return out, nil
}

// Behind lists the waves that stay behind after this apply, each with why, for the plan's warning; ""
// when the rollout is complete or this apply completes it.
func (p *WavePlan) Behind() string {
	var lines []string
	for _, w := range p.Waves {
		if w.State == WaveDone || w.Writes {
			continue
		}
		line := w.Name + " " + w.Reason
		if w.Detail != "" {
			line += "; " + w.Detail
		}
		if len(w.Failed) > 0 && w.State == WaveHalted {
			line += " (" + strings.Join(w.Failed, "; ") + ")"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// waveGate evaluates the waves' clusters from the reports.
type waveGate struct {
	in  WaveInput
	pos map[string]int
	// byType holds, per cluster type, its clusters' reports by identity.
	byType map[string]map[string][]Report
	// named maps an expected name or identity (lower case) to its cluster type.
	named map[string]string
}

func newGate(in WaveInput) (*waveGate, error) {
	g := &waveGate{in: in, pos: make(map[string]int, len(in.History)), byType: map[string]map[string][]Report{}, named: map[string]string{}}
	for i, c := range in.History {
		g.pos[c.SHA] = i
	}
	for ct, names := range in.Expect.Clusters {
		for _, n := range names {
			if prev, ok := g.named[strings.ToLower(n)]; ok && prev != ct {
				return nil, fmt.Errorf("%w: cluster %q is expected in cluster types %s and %s; a cluster reads one cluster type's folder", ErrWaves, n, prev, ct)
			}
			g.named[strings.ToLower(n)] = ct
		}
	}
	for _, r := range in.Reports {
		if _, ok := g.pos[r.Commit]; !ok || r.Cluster == "" {
			continue
		}
		ct := r.ClusterType
		if named, ok := g.named[strings.ToLower(r.identity())]; ok {
			ct = named
		} else if named, ok := g.named[strings.ToLower(r.Cluster)]; ok {
			ct = named
		}
		if ct == "" {
			continue
		}
		if g.byType[ct] == nil {
			g.byType[ct] = map[string][]Report{}
		}
		g.byType[ct][r.identity()] = append(g.byType[ct][r.identity()], r)
	}
	return g, nil
}

type waveVerdict struct {
	passed         bool
	halted         string
	reason, detail string
	failed         []string
}

// verdict is the gate of wave w over its cluster types. With fresh, it is the gate once this apply has
// written the wave: no commit read carries its folders yet.
func (g *waveGate) verdict(w Wave, types []string, fresh bool) waveVerdict {
	if len(types) == 0 {
		return waveVerdict{passed: true, reason: "has no cluster type"}
	}
	opts := Options{Soak: w.Soak, Now: g.in.Now}
	var succeeded, expected int
	var silent, shortfall, behind, pending, failed, soaking []string
	newest := len(g.in.History) // the newest change among the wave's folders
	var maxSoak time.Duration
	for _, ct := range types {
		target := len(g.in.History) - 1
		if p, ok := g.in.Changed[ct]; ok && p < target {
			target = p
		}
		if fresh {
			target = -1
		}
		newest = min(newest, target)
		clusters := g.byType[ct]
		var want []string // identities expected for ct
		if names := g.in.Expect.Clusters[ct]; len(names) > 0 {
			for _, n := range names {
				id, err := g.resolve(clusters, n)
				if err != nil {
					return waveVerdict{halted: err.Error()}
				}
				if id == "" {
					silent = append(silent, n)
					expected++
					continue
				}
				want = append(want, id)
			}
		} else {
			for id := range clusters {
				want = append(want, id)
			}
			sort.Strings(want)
			if need := max(g.in.Expect.MinPerClusterType, 1); len(want) < need {
				if len(want) == 0 {
					shortfall = append(shortfall, fmt.Sprintf("no cluster of cluster type %s reported (at least %d expected)", ct, need))
				} else {
					shortfall = append(shortfall, fmt.Sprintf("%s of cluster type %s reported (at least %d expected)", plural(len(want), "cluster"), ct, need))
				}
				expected += need - len(want)
			}
		}
		for _, id := range want {
			expected++
			c := clusterState(id, clusters[id], g.pos, opts)
			switch c.Against(g.pos, target) {
			case StandingSucceeded:
				succeeded++
			case StandingBehind:
				// Its newest report is about an older commit: it has not said anything about this content yet.
				behind = append(behind, c.Label())
			case StandingFailed:
				failed = append(failed, c.Label()+": "+c.Message)
			case StandingSoaking:
				soaking = append(soaking, c.Label())
				maxSoak = w.Soak
			default:
				pending = append(pending, describe(c.Label(), c.Message))
			}
		}
	}
	commit := "the commit this apply makes"
	if newest >= 0 && newest < len(g.in.History) {
		commit = short(g.in.History[newest].SHA)
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("%d/%d clusters succeeded", succeeded, expected))
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d failed (max_failures %d)", len(failed), w.MaxFailures))
	}
	if len(soaking) > 0 {
		parts = append(parts, fmt.Sprintf("%s soaking (soak %s)", strings.Join(soaking, ", "), w.Soak))
	}
	if len(pending) > 0 {
		parts = append(parts, strings.Join(pending, "; "))
	}
	if len(behind) > 0 {
		parts = append(parts, strings.Join(behind, ", ")+" reported only on older commits")
	}
	if len(silent) == 1 {
		parts = append(parts, silent[0]+" has not reported")
	} else if len(silent) > 1 {
		parts = append(parts, strings.Join(silent, ", ")+" have not reported")
	}
	parts = append(parts, shortfall...)
	// The reason stays the same from plan to plan while the clusters report nothing new; which commit
	// carries the wave and how far its soak got go to the detail, for the warning.
	v := waveVerdict{failed: failed, reason: strings.Join(parts, "; "), detail: "on " + commit}
	if maxSoak > 0 {
		if soak := g.soakDetail(w, types); soak != "" {
			v.detail += ", " + soak
		}
	}
	waiting := len(silent)+len(shortfall)+len(behind)+len(pending)+len(soaking) > 0
	switch {
	case len(failed) > w.MaxFailures:
		// parts[1] counts the failures, which the halt's own words say.
		rest := append([]string{parts[0]}, parts[2:]...)
		v.halted = fmt.Sprintf("halted: %d of %d clusters failed, more than max_failures %d; %s", len(failed), expected, w.MaxFailures, strings.Join(rest, "; "))
	case waiting && g.in.Deadline > 0 && newest >= 0 && newest < len(g.in.History) && g.in.Now.Sub(g.in.History[newest].Time) > g.in.Deadline:
		v.halted = fmt.Sprintf("halted: progress_deadline %s passed since %s; %s", g.in.Deadline, commit, v.reason)
	case !waiting:
		v.passed = true
	}
	if !v.passed && v.halted == "" {
		v.reason = "waits: " + v.reason
	}
	return v
}

// resolve finds the identity an expected name stands for among a cluster type's clusters ("" when silent).
func (g *waveGate) resolve(clusters map[string][]Report, want string) (string, error) {
	var ids []string
	for id, rs := range clusters {
		if rs[0].Cluster == want || strings.EqualFold(id, want) {
			ids = append(ids, id)
		}
	}
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	sort.Strings(ids)
	return "", fmt.Errorf("%w: expected cluster %q names %d clusters (%s); list each by its full identity instead", ErrAmbiguousCluster, want, len(ids), strings.Join(ids, ", "))
}

// soakDetail says how long the longest soak of the wave still runs: "soak 12m of 30m".
func (g *waveGate) soakDetail(w Wave, types []string) string {
	var youngest time.Duration = -1
	for _, ct := range types {
		for _, rs := range g.byType[ct] {
			for _, r := range rs {
				if r.State == Succeeded && !r.Time.IsZero() {
					if age := max(g.in.Now.Sub(r.Time), 0); age < w.Soak && (youngest < 0 || age < youngest) { // a report from the future soaked for 0
						youngest = age
					}
				}
			}
		}
	}
	if youngest < 0 {
		return ""
	}
	return fmt.Sprintf("soak %s of %s", youngest.Truncate(time.Minute), w.Soak)
}
