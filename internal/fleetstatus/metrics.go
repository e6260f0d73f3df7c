// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// DORA keys, by the names the metrics use.
const (
	KeyDeploymentFrequency = "deployment_frequency"
	KeyLeadTime            = "lead_time_for_changes"
	KeyChangeFailureRate   = "change_failure_rate"
	KeyTimeToRestore       = "time_to_restore"
)

// Metrics are one environment's delivery metrics over the window, from its branch's history and its
// clusters' reports. A deployment is a commit of the environment's GitOps branch: each one is a change the
// clusters apply.
type Metrics struct {
	Environment            string
	WindowStart, WindowEnd time.Time
	Deployments            int
	DeploymentsPerDay      float64
	// LeadTimes counts the deployments whose lead time was measured: from the control-plane commit they carry
	// (its committer time) to the time every cluster of the environment reported it, or newer content, healthy.
	LeadTimes      int
	LeadTimeMedian time.Duration
	// Failed counts the deployments that failed: a cluster reported a failure with them, or a later commit
	// went back to an earlier control-plane commit (a rollback).
	Failed            int
	ChangeFailureRate float64
	// Restores counts the failed deployments after which the environment became healthy again, and
	// TimeToRestoreMedian is the median time from the failure to that.
	Restores            int
	TimeToRestoreMedian time.Duration
	// Keys are the DORA keys the data allowed; Notes say why the others are missing and what limits the figures.
	Keys  []string
	Notes []string
}

func metrics(req Request, env Environment, e EnvInput, cpTimes map[string]time.Time) Metrics {
	hist, pos := history(e)
	m := Metrics{Environment: env.Name, WindowStart: req.Now.Add(-req.Window), WindowEnd: req.Now}
	n := len(hist)
	if !e.Log.Complete && hist[n-1].Time.After(m.WindowStart) {
		m.Notes = append(m.Notes, fmt.Sprintf("the %d commits read reach back to %s only, not to the window's start: raise history to count the whole window",
			n, hist[n-1].Time.UTC().Format(time.RFC3339)))
	}
	healthy := healthyTimes(env, e, pos, n)
	failed := failures(e, hist, pos)

	var leads, restores []time.Duration
	// Each control-plane commit's lead time ends where it first became healthy: a later deployment that
	// carries it again (a rollback to it) is not a new change.
	measured := map[string]bool{}
	for p := n - 1; p >= 0; p-- {
		c := hist[p]
		if c.Time.Before(m.WindowStart) || c.Time.After(m.WindowEnd) {
			continue
		}
		m.Deployments++
		newChange := c.Promoted != "" && (p == n-1 || hist[p+1].Promoted != c.Promoted)
		if t, ok := cpTimes[c.Promoted]; ok && newChange && !measured[c.Promoted] && !healthy[p].IsZero() {
			measured[c.Promoted] = true
			leads = append(leads, healthy[p].Sub(t))
		}
		if start, ok := failed[p]; ok {
			m.Failed++
			for q := p - 1; q >= 0; q-- {
				if !healthy[q].IsZero() && healthy[q].After(start) {
					restores = append(restores, healthy[q].Sub(start))
					break
				}
			}
		}
	}
	days := req.Window.Hours() / 24
	m.DeploymentsPerDay = float64(m.Deployments) / days
	m.Keys = append(m.Keys, KeyDeploymentFrequency)
	switch {
	case cpTimes == nil:
		m.Notes = append(m.Notes, "lead time for changes needs control_plane: the control-plane commits' times start it")
	case len(leads) == 0:
		m.Notes = append(m.Notes, "lead time for changes: no deployment of the window carries a control-plane commit of the history read that every cluster reported healthy")
	default:
		m.Keys = append(m.Keys, KeyLeadTime)
		m.LeadTimes, m.LeadTimeMedian = len(leads), median(leads)
	}
	if m.Deployments > 0 {
		m.Keys = append(m.Keys, KeyChangeFailureRate)
		m.ChangeFailureRate = float64(m.Failed) / float64(m.Deployments)
	} else {
		m.Notes = append(m.Notes, "change failure rate: no deployment in the window")
	}
	switch {
	case m.Failed == 0:
		m.Notes = append(m.Notes, "time to restore: no failed deployment in the window")
	case len(restores) == 0:
		m.Notes = append(m.Notes, "time to restore: no failed deployment of the window has recovered yet")
	default:
		m.Keys = append(m.Keys, KeyTimeToRestore)
		m.Restores, m.TimeToRestoreMedian = len(restores), median(restores)
	}
	return m
}

// healthyTimes is, per commit position, when every cluster of the environment had reported that commit's
// content or newer healthy (zero when one has not): per cluster, the earliest success with a commit at that
// position or newer; for the environment, the latest of those. The clusters are those Environment.Clusters
// names, or else every cluster that reported.
func healthyTimes(env Environment, e EnvInput, pos map[string]int, n int) []time.Time {
	named := map[string]bool{}
	for _, names := range env.Clusters {
		for _, c := range names {
			named[strings.ToLower(c)] = true
		}
	}
	best := map[string][]time.Time{}
	for _, r := range e.Reports {
		p, ok := pos[r.Commit]
		if !ok || r.Cluster == "" {
			continue
		}
		id := r.Identity()
		if len(named) > 0 && !named[strings.ToLower(id)] && !named[strings.ToLower(r.Cluster)] {
			continue
		}
		if best[id] == nil {
			best[id] = make([]time.Time, n)
		}
		if r.State == rollout.Succeeded && !r.Time.IsZero() && (best[id][p].IsZero() || r.Time.Before(best[id][p])) {
			best[id][p] = r.Time
		}
	}
	out := make([]time.Time, n)
	if len(best) == 0 || len(named) > len(best) {
		return out // no cluster, or a named one never reported: never healthy
	}
	for _, times := range best {
		// Newer content holds older content: a success at position q <= p counts for p.
		var run time.Time
		for p := 0; p < n; p++ {
			if !times[p].IsZero() && (run.IsZero() || times[p].Before(run)) {
				run = times[p]
			}
			times[p] = run
		}
	}
	for p := 0; p < n; p++ {
		for _, times := range best {
			if times[p].IsZero() {
				out[p] = time.Time{}
				break
			}
			if times[p].After(out[p]) {
				out[p] = times[p]
			}
		}
	}
	return out
}

// failures maps the position of each failed deployment to when it failed: the first failure a cluster
// reported with it, or, for a deployment that a later commit rolled back (went back to a control-plane
// commit the branch held before it), the rollback's time.
func failures(e EnvInput, hist []rollout.Commit, pos map[string]int) map[int]time.Time {
	out := map[int]time.Time{}
	for _, r := range e.Reports {
		p, ok := pos[r.Commit]
		if !ok || r.State != rollout.Failed {
			continue
		}
		if t, seen := out[p]; !seen || r.Time.Before(t) {
			out[p] = r.Time
		}
	}
	n := len(hist)
	for q := n - 2; q >= 0; q-- {
		back, prev := hist[q].Promoted, hist[q+1].Promoted
		if back == "" || back == prev {
			continue
		}
		// q changes the control-plane commit; a rollback when it returns to one held before.
		for k := q + 2; k < n; k++ {
			if hist[k].Promoted == back {
				// The deployment rolled back is the one that brought prev.
				intro := q + 1
				for intro+1 < n && hist[intro+1].Promoted == prev {
					intro++
				}
				if _, ok := out[intro]; !ok {
					out[intro] = hist[q].Time
				}
				break
			}
		}
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
