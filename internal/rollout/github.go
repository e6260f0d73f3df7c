// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"fmt"
	"regexp"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
)

// FluxContextPattern matches the status contexts Flux's notification-controller posts with a Provider of
// type github: "<kind>/<name>/<first segment of the Provider's UID>", lower case (generateCommitStatusID
// in internal/notifier/util.go). The Provider object lives in each cluster, so its UID names the cluster.
const FluxContextPattern = `^kustomization/(?P<reconciler>[^/]+)/(?P<cluster>[^/]+)$`

// StatusLister reads a commit's statuses; githubpr.Service is one.
type StatusLister interface {
	CombinedStatuses(ctx context.Context, owner, repo, ref string, limit int) ([]githubpr.Status, error)
}

// GitHubStatuses reads the commit statuses on the GitOps commits. Each pattern is a regular expression
// over the status context with a named group `cluster` and, optionally, `cluster_type` and
// `reconciler`; contexts that match no pattern (CI checks) are ignored.
type GitHubStatuses struct {
	Lister      StatusLister
	Owner, Repo string
	Patterns    []*regexp.Regexp
	// Limit bounds the status contexts of one commit.
	Limit int
}

// CompilePatterns checks context patterns: valid regular expressions with a `cluster` group.
func CompilePatterns(patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %d: %w", i, err)
		}
		if re.SubexpIndex("cluster") < 0 {
			return nil, fmt.Errorf("pattern %d (%q) has no named group `cluster`, for example (?P<cluster>[^/]+)", i, p)
		}
		out = append(out, re)
	}
	return out, nil
}

func (g *GitHubStatuses) Reports(ctx context.Context, commits []string) ([]Report, error) {
	var out []Report
	for _, sha := range commits {
		statuses, err := g.Lister.CombinedStatuses(ctx, g.Owner, g.Repo, sha, g.Limit)
		if err != nil {
			return nil, err
		}
		for _, st := range statuses {
			r, ok := g.match(st)
			if !ok {
				continue
			}
			r.Commit = sha
			out = append(out, r)
		}
	}
	return out, nil
}

func (g *GitHubStatuses) match(st githubpr.Status) (Report, bool) {
	for _, re := range g.Patterns {
		m := re.FindStringSubmatch(st.Context)
		if m == nil {
			continue
		}
		group := func(name string) string {
			if i := re.SubexpIndex(name); i >= 0 {
				return m[i]
			}
			return ""
		}
		r := Report{Cluster: group("cluster"), ClusterType: group("cluster_type"), Reconciler: group("reconciler"), Message: st.Description, Time: st.UpdatedAt}
		if r.Reconciler == "" {
			r.Reconciler = st.Context
		}
		switch st.State {
		case "success":
			r.State = Succeeded
		case "failure", "error":
			r.State = Failed
		default:
			r.State = Progressing
		}
		return r, r.Cluster != ""
	}
	return Report{}, false
}
