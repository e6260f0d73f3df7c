// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
)

// FluxContextPattern matches the status contexts Flux's notification-controller posts with a Provider of
// type github: "<kind>/<name>/<first segment of the Provider's UID>", lower case (generateCommitStatusID
// in internal/notifier/util.go). The Provider object lives in each cluster, so its UID names the cluster;
// the UID is a UUID, so that segment is 8 hexadecimal digits, which a CI check such as
// "kustomization/lint/ci" does not have.
const FluxContextPattern = `^kustomization/(?P<reconciler>[^/]+)/(?P<cluster>[0-9a-f]{8})$`

// StatusesPerContext bounds the statuses read per allowed context of one commit: Flux posts a status
// only when it differs from the latest one of its context, so a reporter that flaps more often than this
// on one commit, or a server that pages without end, fails the read instead of holding the plan.
const StatusesPerContext = 20

// ErrSharedCluster means two accounts post statuses for one cluster: one of them is not the cluster.
var ErrSharedCluster = errors.New("a cluster reported by two accounts")

// StatusLister reads a commit's statuses; githubpr.Service is one.
type StatusLister interface {
	ListStatuses(ctx context.Context, owner, repo, ref string, maxContexts, maxStatuses int) ([]githubpr.Status, error)
}

// GitHubStatuses reads the commit statuses on the GitOps commits. Each pattern is a regular expression
// that must match the whole status context, with a named group `cluster` and, optionally,
// `cluster_type` and `reconciler`; contexts that match no pattern (CI checks) are ignored.
//
// A cluster is its name together with the account that posted its statuses: the latest status of each
// context and account counts, and a cluster name posted by two accounts is ErrSharedCluster, never one
// overwriting the other.
type GitHubStatuses struct {
	Lister      StatusLister
	Owner, Repo string
	Patterns    []*regexp.Regexp
	// Creators, when set, are the only accounts (logins, compared case-insensitively) whose statuses count:
	// anyone who may post a status can otherwise post a context that looks like a cluster's.
	Creators []string
	// Limit bounds the status contexts of one commit.
	Limit int
}

// CompilePatterns checks context patterns: valid regular expressions with a `cluster` group. Each is
// anchored at both ends, so a pattern matches a whole context, never a part of a longer one.
func CompilePatterns(patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for i, p := range patterns {
		re, err := regexp.Compile(`^(?:` + p + `)$`)
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
	// The first account and context seen posting each cluster name, across the commits read.
	type poster struct{ creator, context, commit string }
	posters := map[string]poster{}
	for _, sha := range commits {
		statuses, err := g.Lister.ListStatuses(ctx, g.Owner, g.Repo, sha, g.Limit, g.Limit*StatusesPerContext)
		if err != nil {
			return nil, err
		}
		// Newest first: the first status of a context and account is its latest.
		seen := map[[2]string]bool{}
		for _, st := range statuses {
			if !g.allowed(st.Creator) || seen[[2]string{st.Context, st.Creator}] {
				continue
			}
			seen[[2]string{st.Context, st.Creator}] = true
			r, ok := g.match(st)
			if !ok {
				continue
			}
			if p, ok := posters[r.Cluster]; !ok {
				posters[r.Cluster] = poster{st.Creator, st.Context, sha}
			} else if p.creator != st.Creator {
				return nil, fmt.Errorf("%w: cluster %q is reported by %q (context %q on commit %s) and by %q (context %q on commit %s); "+
					"a cluster's statuses come from one account, so one of them is not that cluster",
					ErrSharedCluster, r.Cluster, p.creator, p.context, short(p.commit), st.Creator, st.Context, short(sha))
			}
			r.Commit = sha
			r.ClusterID = r.Cluster + "@" + st.Creator
			out = append(out, r)
		}
	}
	return out, nil
}

func (g *GitHubStatuses) allowed(creator string) bool {
	if len(g.Creators) == 0 {
		return true
	}
	for _, c := range g.Creators {
		if strings.EqualFold(c, creator) {
			return true
		}
	}
	return false
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
