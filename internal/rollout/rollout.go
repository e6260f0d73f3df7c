// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package rollout tells how far an environment's clusters got with the commits of its GitOps branch,
// from what the clusters report (commit statuses that Flux's notification-controller or Argo CD
// notifications post, or Azure Resource Graph's Flux configurations), and decides whether the next
// environment may be promoted to the control-plane commit the environment rolled out. It has no
// Terraform dependency: sources sit behind the small Source interface.
package rollout

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// State is a cluster's or an environment's state.
type State string

const (
	Succeeded   State = "succeeded"
	Progressing State = "progressing"
	Failed      State = "failed"
	// Unknown: an expected cluster that reported nothing about any commit of the history read.
	Unknown State = "unknown"
)

// Report is what one reconciler of one cluster said about one GitOps commit.
type Report struct {
	// Cluster is the cluster's name as people know it (an Azure resource's name, a status context's
	// cluster group), for messages and for expected.clusters.
	Cluster string
	// ClusterID is the cluster's full identity ("" means Cluster): Azure's resource ID of the cluster, or,
	// for a commit status, its cluster name together with the account that posted it. Reports are
	// grouped by it, so two clusters that share a name (aks-dev in two resource groups) stay two clusters
	// and neither hides the other's failure.
	ClusterID string
	// ClusterType is the cluster type the reconciler deploys, when the source knows it ("" otherwise).
	ClusterType string
	// Commit is the GitOps commit SHA the report is about.
	Commit string
	// Reconciler tells reports of one cluster apart (a status context, a Flux configuration's name).
	Reconciler string
	State      State
	Message    string
	Time       time.Time
}

// Source lists what clusters reported about the given GitOps commits (newest first). A source may
// return reports about other commits; they are ignored.
type Source interface {
	Reports(ctx context.Context, commits []string) ([]Report, error)
}

// Commit is one commit of the GitOps branch and the control-plane commit it carries.
type Commit struct {
	SHA string
	// Promoted is the content of .github/tracking/Promoted_Commit_Id at this commit ("" when absent).
	Promoted string
	// Time is the commit's committer time.
	Time time.Time
}

// Expect says which clusters must report before an environment counts as rolled out. Zero reporting
// clusters never count: at least one of the fields must ask for a cluster.
type Expect struct {
	// Clusters names every cluster that must report; others that report are listed but do not count.
	Clusters []string
	// MinClusters is how many distinct clusters must report (any names).
	MinClusters int
	// ClusterTypes is how many clusters of each cluster type must report.
	ClusterTypes map[string]int
}

// Options tune Evaluate.
type Options struct {
	Expect Expect
	// Soak is how long a cluster must have reported success before it counts as succeeded.
	Soak time.Duration
	// Now is the evaluation time (for the soak).
	Now time.Time
	// MaxClusters bounds how many clusters a source may report; more is an error. Zero: DefaultMaxClusters.
	MaxClusters int
}

// DefaultMaxClusters bounds a source's clusters: a fleet larger than this needs it raised on purpose,
// and a source that returns more by mistake (a context pattern that matches CI checks) fails loudly.
const DefaultMaxClusters = 2000

// Cluster is one cluster's latest state.
type Cluster struct {
	Name, ClusterType string
	// ID is its full identity (Report.ClusterID; the name when the source has no other).
	ID string
	// Commit is the newest GitOps commit the cluster reported about ("" when expected but silent).
	Commit  string
	State   State
	Message string
	// Time is when the cluster last reported about Commit.
	Time time.Time
	// Expected is true when the cluster counts towards the environment's state.
	Expected bool
	// reached is the position in the history of the newest commit it succeeded with, or -1.
	reached int
	// sharedName is true when another cluster has the same Name: messages then use the ID.
	sharedName bool
}

// Label names the cluster in messages: its name, or its full identity when another cluster has the same name.
func (c Cluster) Label() string {
	if c.sharedName {
		return c.ID
	}
	return c.Name
}

// Counts are the expected clusters by state.
type Counts struct {
	Expected, Succeeded, Progressing, Failed, Unknown int
}

// Result is an environment's rollout.
type Result struct {
	// Head is the branch head and its promoted commit.
	Head Commit
	// State is succeeded when every expected cluster succeeded with the head, failed when an expected
	// cluster's latest report is a failure, unknown when no expected cluster reported, and progressing
	// otherwise.
	State    State
	Counts   Counts
	Clusters []Cluster
	// Succeeded is the newest commit that every expected cluster succeeded with (or with a newer one);
	// zero when there is none.
	Succeeded Commit
	// Shortfall says, when the expectations are not met, what is missing ("" otherwise).
	Shortfall string
}

// Evaluate computes the rollout of history (the branch's first-parent commits, newest first) from reports.
func Evaluate(history []Commit, reports []Report, opts Options) (*Result, error) {
	if len(history) == 0 {
		return nil, fmt.Errorf("the branch has no commits")
	}
	if err := opts.Expect.validate(); err != nil {
		return nil, err
	}
	pos := make(map[string]int, len(history))
	for i, c := range history {
		pos[c.SHA] = i
	}
	byCluster := map[string][]Report{}
	for _, r := range reports {
		if _, ok := pos[r.Commit]; ok && r.Cluster != "" {
			byCluster[r.identity()] = append(byCluster[r.identity()], r)
		}
	}
	limit := opts.MaxClusters
	if limit <= 0 {
		limit = DefaultMaxClusters
	}
	if len(byCluster) > limit {
		return nil, fmt.Errorf("the source reported %d clusters, more than the limit of %d; narrow what the source matches, or raise max_clusters for a fleet this large", len(byCluster), limit)
	}
	res := &Result{Head: history[0]}
	for id, rs := range byCluster {
		res.Clusters = append(res.Clusters, clusterState(id, rs, pos, opts))
	}
	named, err := res.name(opts.Expect.Clusters, len(history))
	if err != nil {
		return nil, err
	}
	sort.Slice(res.Clusters, func(i, j int) bool {
		a, b := res.Clusters[i], res.Clusters[j]
		return a.Name < b.Name || a.Name == b.Name && a.ID < b.ID
	})
	res.markSharedNames()
	res.expect(opts.Expect, named)
	res.summarise(history)
	return res, nil
}

func (r Report) identity() string {
	if r.ClusterID != "" {
		return r.ClusterID
	}
	return r.Cluster
}

// name finds the cluster each expected name stands for, by its name or its full identity, and adds the
// silent ones as unknown. A name that two clusters share is an error: counting either would let the
// other's state go unseen.
func (res *Result) name(expected []string, commits int) (map[string]bool, error) {
	named := make(map[string]bool, len(expected))
	for _, want := range expected {
		var ids []string
		for _, c := range res.Clusters {
			if c.Name == want || strings.EqualFold(c.ID, want) {
				ids = append(ids, c.ID)
			}
		}
		switch len(ids) {
		case 0:
			res.Clusters = append(res.Clusters, Cluster{Name: want, ID: want, State: Unknown, Message: "no report about the last " + plural(commits, "commit"), reached: -1})
			named[want] = true
		case 1:
			named[ids[0]] = true
		default:
			sort.Strings(ids)
			return nil, fmt.Errorf("%w: expected cluster %q names %d clusters (%s); list each by its full identity instead",
				ErrAmbiguousCluster, want, len(ids), strings.Join(ids, ", "))
		}
	}
	return named, nil
}

// ErrAmbiguousCluster means an expected cluster's name stands for several clusters.
var ErrAmbiguousCluster = errors.New("ambiguous cluster name")

// markSharedNames flags clusters (sorted by name) whose name another cluster has too.
func (res *Result) markSharedNames() {
	for i := 1; i < len(res.Clusters); i++ {
		if res.Clusters[i].Name == res.Clusters[i-1].Name {
			res.Clusters[i].sharedName, res.Clusters[i-1].sharedName = true, true
		}
	}
}

func (e Expect) validate() error {
	if len(e.Clusters) == 0 && e.MinClusters <= 0 && len(e.ClusterTypes) == 0 {
		return fmt.Errorf("say which clusters must report: a list of clusters, a minimum number, or a number per cluster type (zero reporting clusters is never a rollout)")
	}
	for ct, n := range e.ClusterTypes {
		if n <= 0 {
			return fmt.Errorf("cluster type %q must expect at least one cluster, not %d", ct, n)
		}
	}
	return nil
}

// clusterState folds one cluster's reports: its latest commit's state (a failure of any reconciler wins,
// then a pending one) and the newest commit every reconciler succeeded with, soaked.
func clusterState(id string, rs []Report, pos map[string]int, opts Options) Cluster {
	c := Cluster{Name: rs[0].Cluster, ID: id, reached: -1}
	// Per commit position, the latest report per reconciler.
	latest := map[int]map[string]Report{}
	for _, r := range rs {
		p := pos[r.Commit]
		if latest[p] == nil {
			latest[p] = map[string]Report{}
		}
		if cur, ok := latest[p][r.Reconciler]; !ok || r.Time.After(cur.Time) {
			latest[p][r.Reconciler] = r
		}
		if r.ClusterType != "" {
			c.ClusterType = r.ClusterType
		}
	}
	positions := make([]int, 0, len(latest))
	for p := range latest {
		positions = append(positions, p)
	}
	sort.Ints(positions)
	for i, p := range positions {
		state, msg, at := fold(latest[p], opts)
		if i == 0 {
			c.Commit, c.State, c.Message, c.Time = firstCommit(latest[p]), state, msg, at
			if p > 0 && state == Succeeded {
				// Done with an older commit, silent about the newer ones: still on its way to the head.
				c.State, c.Message = Progressing, fmt.Sprintf("succeeded with %s, no report about newer commits yet", short(c.Commit))
			}
		}
		if state == Succeeded {
			c.reached = p
			break
		}
	}
	return c
}

func firstCommit(m map[string]Report) string {
	for _, r := range m {
		return r.Commit
	}
	return ""
}

// fold is the state of one commit on one cluster from its reconcilers' latest reports.
func fold(m map[string]Report, opts Options) (State, string, time.Time) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var at time.Time
	var failed, pending []string
	var soaking time.Duration
	undated := false
	for _, k := range keys {
		r := m[k]
		if r.Time.After(at) {
			at = r.Time
		}
		switch r.State {
		case Failed:
			failed = append(failed, describe(k, r.Message))
		case Succeeded:
			if opts.Soak > 0 && r.Time.IsZero() {
				// No time, no soak: a report that cannot say since when it holds never counts as soaked.
				undated = true
			} else if opts.Soak > 0 {
				// A report dated in the future has held for no time yet: without the floor, a soak near
				// the longest duration minus a negative age overflowed and the soak counted as passed.
				healthy := max(opts.Now.Sub(r.Time), 0)
				if healthy < opts.Soak && opts.Soak-healthy > soaking {
					soaking = opts.Soak - healthy
				}
			}
		default:
			pending = append(pending, describe(k, r.Message))
		}
	}
	switch {
	case len(failed) > 0:
		return Failed, strings.Join(failed, "; "), at
	case len(pending) > 0:
		return Progressing, strings.Join(pending, "; "), at
	case undated:
		return Progressing, fmt.Sprintf("succeeded, but the report carries no valid time, so the soak of %s cannot start", opts.Soak), at
	case soaking > 0:
		return Progressing, fmt.Sprintf("succeeded; soaking for %s more (soak %s)", soaking.Round(time.Second), opts.Soak), at
	}
	msgs := make([]string, 0, len(keys))
	for _, k := range keys {
		msgs = append(msgs, describe(k, m[k].Message))
	}
	return Succeeded, strings.Join(msgs, "; "), at
}

func describe(reconciler, msg string) string {
	if msg == "" {
		return reconciler
	}
	if reconciler == "" {
		return msg
	}
	return reconciler + ": " + msg
}

// expect marks the clusters that count (named: the identities expected.clusters stands for) and sets
// Shortfall when too few report.
func (res *Result) expect(e Expect, named map[string]bool) {
	perType := map[string]int{}
	reporting := 0
	for i := range res.Clusters {
		c := &res.Clusters[i]
		switch {
		case len(e.Clusters) > 0:
			c.Expected = named[c.ID]
		case len(e.ClusterTypes) > 0:
			_, c.Expected = e.ClusterTypes[c.ClusterType]
		default:
			c.Expected = true
		}
		if c.Expected && c.State != Unknown {
			reporting++
			perType[c.ClusterType]++
		}
	}
	var short []string
	if e.MinClusters > 0 && reporting < e.MinClusters {
		short = append(short, fmt.Sprintf("%s reported, %d expected", plural(reporting, "cluster"), e.MinClusters))
	}
	types := make([]string, 0, len(e.ClusterTypes))
	for ct := range e.ClusterTypes {
		types = append(types, ct)
	}
	sort.Strings(types)
	for _, ct := range types {
		if perType[ct] < e.ClusterTypes[ct] {
			short = append(short, fmt.Sprintf("%d of %d clusters of type %s reported", perType[ct], e.ClusterTypes[ct], ct))
		}
	}
	if len(e.Clusters) > 0 && reporting < len(e.Clusters) {
		var silent []string
		for _, c := range res.Clusters {
			if c.Expected && c.State == Unknown {
				silent = append(silent, c.Label())
			}
		}
		short = append(short, fmt.Sprintf("no report from %s", strings.Join(silent, ", ")))
	}
	if reporting == 0 && len(short) == 0 {
		short = append(short, "no cluster reported")
	}
	res.Shortfall = strings.Join(short, "; ")
}

// summarise sets the counts, the environment's state and the newest commit every expected cluster reached.
func (res *Result) summarise(history []Commit) {
	oldest := -1
	all := true
	for _, c := range res.Clusters {
		if !c.Expected {
			continue
		}
		res.Counts.Expected++
		switch c.State {
		case Succeeded:
			res.Counts.Succeeded++
		case Progressing:
			res.Counts.Progressing++
		case Failed:
			res.Counts.Failed++
		default:
			res.Counts.Unknown++
		}
		if c.reached < 0 {
			all = false
		} else if c.reached > oldest {
			oldest = c.reached
		}
	}
	if all && res.Shortfall == "" && oldest >= 0 {
		res.Succeeded = history[oldest]
	}
	switch {
	case res.Counts.Failed > 0:
		res.State = Failed
	case res.Counts.Expected == 0 || res.Counts.Unknown == res.Counts.Expected:
		res.State = Unknown
	case res.Succeeded.SHA == history[0].SHA:
		res.State = Succeeded
	default:
		res.State = Progressing
	}
}

// Summary is one line about the environment: "9/12 clusters succeeded, 1 failed (drone-7: health
// check failed), 2 progressing".
func (res *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d clusters succeeded", res.Counts.Succeeded, res.Counts.Expected)
	if res.Counts.Failed > 0 {
		var names []string
		for _, c := range res.Clusters {
			if c.Expected && c.State == Failed {
				names = append(names, c.Label()+": "+c.Message)
			}
		}
		if len(names) > 3 {
			names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
		}
		fmt.Fprintf(&b, ", %d failed (%s)", res.Counts.Failed, strings.Join(names, "; "))
	}
	if res.Counts.Progressing > 0 {
		fmt.Fprintf(&b, ", %d progressing", res.Counts.Progressing)
	}
	if res.Counts.Unknown > 0 {
		fmt.Fprintf(&b, ", %d not reporting", res.Counts.Unknown)
	}
	if res.Shortfall != "" {
		fmt.Fprintf(&b, " (%s)", res.Shortfall)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
