// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// ErrMalformedPromoted means a Promoted_Commit_Id on the GitOps branch is not a commit SHA.
var ErrMalformedPromoted = errors.New("malformed Promoted_Commit_Id")

// DefaultHistory is how many commits of the GitOps branch a read examines by default: enough for a
// day of changes to an environment, few enough to cost one status request each.
const DefaultHistory = 20

// Request is the rollout of one environment's GitOps branch.
type Request struct {
	Repo, Branch string
	// History is how many first-parent commits to examine (DefaultHistory when zero).
	History int
	Source  Source
	Options Options
}

// Read reads the branch's history with the promoted commit of each commit, asks the source what the
// clusters reported about those commits and evaluates the rollout.
func Read(ctx context.Context, git *gitrepo.Client, req Request) (*Result, error) {
	history, err := History(ctx, git, req.Repo, req.Branch, req.History)
	if err != nil {
		return nil, err
	}
	shas := make([]string, len(history))
	for i, c := range history {
		shas[i] = c.SHA
	}
	reports, err := req.Source.Reports(ctx, shas)
	if err != nil {
		return nil, err
	}
	return Evaluate(history, reports, req.Options)
}

// History is the branch's first-parent history, newest first, each commit with its Promoted_Commit_Id.
// A Promoted_Commit_Id that is not a commit SHA is an error: promotion would carry it on.
func History(ctx context.Context, git *gitrepo.Client, repo, branch string, n int) ([]Commit, error) {
	if n <= 0 {
		n = DefaultHistory
	}
	log, err := git.Log(ctx, repo, branch, n, model.PromotedCommitFile)
	if err != nil {
		return nil, err
	}
	out := make([]Commit, len(log))
	for i, e := range log {
		out[i] = Commit{SHA: e.Commit, Promoted: strings.TrimSpace(string(e.File)), Time: e.Time}
		if p := out[i].Promoted; p != "" && gitrepo.ValidateCommit(p) != nil {
			return nil, fmt.Errorf("%w: %s at commit %s of branch %q holds %q, which is not a commit SHA; fix the file (kalypso_gitops_commit.promoted_commit_id writes it)",
				ErrMalformedPromoted, model.PromotedCommitFile, e.Commit, branch, truncate(p, 80))
		}
	}
	return out, nil
}

// Promoted is the Promoted_Commit_Id at the head of branch ("" when the head has none).
func Promoted(ctx context.Context, git *gitrepo.Client, repo, branch string) (string, error) {
	h, err := History(ctx, git, repo, branch, 1)
	if err != nil {
		return "", err
	}
	return h[0].Promoted, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
