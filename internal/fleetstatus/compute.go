// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// Compute derives the status from what Gather read. Same input, same status. The environments are
// computed at the same time (at most GOMAXPROCS at once) and joined in their order.
func Compute(in *Input) (*Status, error) {
	req := in.Request.withDefaults()
	if err := req.validate(); err != nil {
		return nil, err
	}
	if len(in.Envs) != len(req.Environments) {
		return nil, fmt.Errorf("%w: %d environments, %d reads", ErrInput, len(req.Environments), len(in.Envs))
	}
	versions := folderVersions(in)
	type envResult struct {
		status   EnvironmentStatus
		rows     []Row
		clusters []Cluster
		metrics  Metrics
		err      error
	}
	results := make([]envResult, len(in.Envs))
	parallel.For(len(results), 0, func(i int) {
		env, r := req.Environments[i], &results[i]
		r.status, r.rows, r.clusters, r.err = computeEnv(req, env, in.Envs[i], versions)
		if r.err == nil {
			r.metrics = metrics(req, env, in.Envs[i], in.ControlPlaneTimes)
		}
	})
	st := &Status{Now: req.Now}
	index := map[string]int{}
	nRows, nClusters := 0, 0
	for i, r := range results {
		if r.err != nil {
			return nil, &EnvError{Index: i, Env: req.Environments[i].Name, Err: r.err}
		}
		nRows, nClusters = nRows+len(r.rows), nClusters+len(r.clusters)
	}
	st.Rows, st.Clusters = make([]Row, 0, nRows), make([]Cluster, 0, nClusters)
	for i, r := range results {
		index[req.Environments[i].Name] = i
		st.Environments = append(st.Environments, r.status)
		st.Rows = append(st.Rows, r.rows...)
		st.Clusters = append(st.Clusters, r.clusters...)
		st.Drift += r.status.Drift
		st.Metrics = append(st.Metrics, r.metrics)
		results[i].rows, results[i].clusters = nil, nil
	}
	for _, c := range req.Compare {
		a, b := index[c.From], index[c.To]
		st.Comparisons = append(st.Comparisons, compare(c, in.Envs[a], in.Envs[b], in.Trees, versions))
	}
	return st, nil
}

// history is the branch's commits as internal/rollout reads them, with each commit's position.
func history(e EnvInput) ([]rollout.Commit, map[string]int) {
	out := make([]rollout.Commit, len(e.Log.Commits))
	pos := make(map[string]int, len(out))
	for i, c := range e.Log.Commits {
		out[i] = rollout.Commit{SHA: c.Commit, Promoted: promoted(c), Time: c.Time}
		pos[c.Commit] = i
	}
	return out, pos
}

// evaluate folds the environment's reports with internal/rollout's rules and places each cluster in its
// cluster type: the one Environment.Clusters names it in, else the one its source gave.
func evaluate(req Request, env Environment, e EnvInput, hist []rollout.Commit) (*rollout.Result, map[string][]rollout.Cluster, map[string]string, error) {
	typeOf := map[string]string{}
	var named []string
	types := make([]string, 0, len(env.Clusters))
	for ct := range env.Clusters {
		types = append(types, ct)
	}
	sort.Strings(types)
	for _, ct := range types {
		for _, n := range env.Clusters[ct] {
			if prev, ok := typeOf[strings.ToLower(n)]; ok && prev != ct {
				return nil, nil, nil, fmt.Errorf("%w: cluster %q is listed in cluster types %s and %s; a cluster reads one cluster type's folder", ErrInput, n, prev, ct)
			}
			if _, ok := typeOf[strings.ToLower(n)]; !ok {
				named = append(named, n)
			}
			typeOf[strings.ToLower(n)] = ct
		}
	}
	expect := rollout.Expect{MinClusters: 1}
	if len(named) > 0 {
		expect = rollout.Expect{Clusters: named}
	}
	res, err := rollout.Evaluate(hist, e.Reports, rollout.Options{Expect: expect, Soak: env.Soak, Now: req.Now, MaxClusters: req.MaxClusters})
	if err != nil {
		return nil, nil, nil, err
	}
	byType := map[string][]rollout.Cluster{}
	typeByID := make(map[string]string, len(res.Clusters))
	for _, c := range res.Clusters {
		ct, ok := typeOf[strings.ToLower(c.ID)]
		if !ok {
			if ct, ok = typeOf[strings.ToLower(c.Name)]; !ok {
				ct = c.ClusterType
			}
		}
		c.ClusterType = ct
		byType[ct] = append(byType[ct], c)
		typeByID[c.ID] = ct
	}
	return res, byType, typeByID, nil
}

func computeEnv(req Request, env Environment, e EnvInput, versions map[string]folderVersion) (EnvironmentStatus, []Row, []Cluster, error) {
	hist, pos := history(e)
	res, byType, typeByID, err := evaluate(req, env, e, hist)
	if err != nil {
		return EnvironmentStatus{}, nil, nil, err
	}
	head := hist[0]
	es := EnvironmentStatus{Name: env.Name, Branch: env.Branch, Head: head.SHA, Promoted: head.Promoted, HeadTime: head.Time,
		State: res.State, Summary: res.Summary()}

	folders := make([]string, 0, len(e.Log.Folders))
	for f := range e.Log.Folders {
		if deploymentFolder(f) {
			folders = append(folders, f)
		}
	}
	sort.Strings(folders)
	// newest is, per cluster type, the position of the newest change among its folders.
	newest := map[string]int{}
	// standing memoizes how a cluster type's clusters stand with a position: every folder of the cluster
	// type that changed at the same commit has the same counts.
	type typeAt struct {
		ct     string
		target int
	}
	standing := map[typeAt]Row{}
	rows := make([]Row, 0, len(folders))
	for _, f := range folders {
		ct, dt, _ := strings.Cut(f, "/")
		target, known := e.Log.Changed[f]
		if !known {
			// Older than the history read: every commit read carries it as the head does.
			target = len(hist) - 1
		}
		if p, ok := newest[ct]; !ok || target < p {
			newest[ct] = target
		}
		r, ok := standing[typeAt{ct, target}]
		if !ok {
			r = stand(byType[ct], pos, target)
			standing[typeAt{ct, target}] = r
		}
		r.Environment, r.ClusterType, r.DeploymentTarget = env.Name, ct, dt
		if known {
			r.DesiredCommit, r.Promoted, r.ChangedAt = hist[target].SHA, hist[target].Promoted, hist[target].Time
			r.Age = req.Now.Sub(r.ChangedAt)
		}
		v := versions[e.Log.Folders[f]]
		r.Version, r.VersionFrom = v.Version, v.From
		rows = append(rows, r)
	}

	clusters := make([]Cluster, 0, len(res.Clusters))
	for _, c := range res.Clusters {
		ct := typeByID[c.ID]
		out := Cluster{Environment: env.Name, ClusterType: ct, Name: c.Name, ID: c.ID, Commit: c.Commit, State: c.State, Message: c.Message, ReportedAt: c.Time}
		if p, ok := newest[ct]; ok {
			out.FolderCommit = hist[p].SHA
			if at, reported := pos[c.Commit]; reported && at > p {
				out.Drift = true
				es.Drift++
			}
		}
		clusters = append(clusters, out)
	}
	sort.SliceStable(clusters, func(i, j int) bool {
		a, b := clusters[i], clusters[j]
		if a.ClusterType != b.ClusterType {
			return a.ClusterType < b.ClusterType
		}
		return a.Name < b.Name || a.Name == b.Name && a.ID < b.ID
	})
	es.Rows, es.Clusters = len(rows), len(clusters)
	return es, rows, clusters, nil
}

// stand counts how clusters stand with the content of the commit at position target, and the row's state.
func stand(clusters []rollout.Cluster, pos map[string]int, target int) Row {
	r := Row{State: rollout.Unknown}
	for _, c := range clusters {
		r.Clusters++
		if c.Commit != "" {
			r.Reporting++
		}
		switch c.Against(pos, target) {
		case rollout.StandingSucceeded:
			r.Succeeded++
		case rollout.StandingFailed:
			r.Failed++
		default:
			r.Pending++
		}
	}
	switch {
	case r.Reporting == 0:
		r.State = rollout.Unknown
	case r.Failed > 0:
		r.State = rollout.Failed
	case r.Succeeded == r.Clusters:
		r.State = rollout.Succeeded
	default:
		r.State = rollout.Progressing
	}
	return r
}

// deploymentFolder tells a cluster type's deployment target folder from the repository's own folders
// (.github/tracking holds Promoted_Commit_Id): a Kubernetes name never starts with a dot.
func deploymentFolder(f string) bool { return f != "" && !strings.HasPrefix(f, ".") }
