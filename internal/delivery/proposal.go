// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The one open proposal of a resource in pull-request mode. An apply leaves at most one pull request of
// the resource open: the one it opened or updated. Any other one the state records as open is closed,
// with the reason in its body:
//   - nothing left to propose: the base branch already holds what the configuration asks for (a change
//     reverted in the configuration before it was merged);
//   - superseded: the resource moved to another branch or repository, or its head branch changed, so the
//     new proposal is another pull request;
//   - direct mode: pull_request was removed, and the change is pushed to the branch.
// A path move on the same branch keeps the head branch, so its pull request is updated in place.
// A proposal merged after the plan refuses the apply before anything is written: the plan was made
// against the proposal, not against the base that now holds it.

import (
	"context"
	"errors"
	"fmt"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Proposal is the pull request a resource's state records as open: its repository, base and head
// branches, and number.
type Proposal struct {
	RepoURL, Base, Head string
	Number              int
}

// OpenProposal is the proposal the state of prior records as open, or nil. prNumber and prState are the
// state's pull_request_number and pull_request_state.
func (r Resource) OpenProposal(prNumber int, prState string) *Proposal {
	if r.PullRequest == nil || prNumber == 0 || prState != githubpr.StateOpen {
		return nil
	}
	return &Proposal{RepoURL: r.RepoURL, Base: r.Branch, Head: r.headBranch(), Number: prNumber}
}

// ProposalOutcome is what a plan says the apply does to the open proposal.
type ProposalOutcome int

const (
	// ProposalKept: no open proposal, or the apply updates it in place.
	ProposalKept ProposalOutcome = iota
	// ProposalWithdrawn: the base already holds the desired content; the apply closes the proposal.
	ProposalWithdrawn
	// ProposalSuperseded: the new proposal (or the direct push) is elsewhere; the apply closes the old one.
	ProposalSuperseded
	// ProposalRetargeted: a move to another branch or repository; the old proposal's head branch now
	// proposes the removal of the old location's files from its base.
	ProposalRetargeted
)

// DecideProposal is what the apply of to (the planned configuration) does to open (the state's open
// proposal, nil for none), given the plan p (nil when not computed): a warning to show in the plan, or
// "" when nothing happens to it. removesOld is the number of files a move to another branch or
// repository removes at the old location (0 for none, or no such move): the removal is proposed on the
// old proposal's head branch, so that pull request is updated to propose it.
func DecideProposal(open *Proposal, to Resource, p *Plan, sameRepo bool, removesOld int) (ProposalOutcome, string) {
	if open == nil {
		return ProposalKept, ""
	}
	moved := !sameRepo || to.Branch != open.Base
	switch {
	case moved && removesOld > 0:
		return ProposalRetargeted, fmt.Sprintf("the resource moves away from %q, so pull request #%d (%s into %s) no longer proposes its files: the apply "+
			"updates it to propose the removal of the %d file%s the old location holds on %q, and opens a new pull request at the new location",
			open.Base, open.Number, open.Head, open.Base, removesOld, plural(removesOld), open.Base)
	case to.PullRequest == nil:
		return ProposalSuperseded, fmt.Sprintf("pull_request was removed, so the apply pushes to branch %q directly and closes pull request #%d "+
			"(%s into %s), which would otherwise propose the same files a second time", to.Branch, open.Number, open.Head, open.Base)
	case moved || to.headBranch() != open.Head:
		return ProposalSuperseded, fmt.Sprintf("the proposal moves from %s into %s to %s into %s, so the apply opens a new pull request there "+
			"and closes pull request #%d, which stays on the old branch otherwise and would still merge what the configuration no longer asks for",
			open.Head, open.Base, to.headBranch(), to.Branch, open.Number)
	case p != nil && p.Withdraws:
		return ProposalWithdrawn, fmt.Sprintf("branch %q already holds what the configuration asks for under %s (the change was reverted before "+
			"pull request #%d was merged). The changes listed are relative to that proposal: the apply writes nothing to %q and closes pull request #%d, "+
			"so that nobody merges what the configuration no longer asks for", to.Branch, displayPath(to.Path), open.Number, open.Base, open.Number)
	}
	return ProposalKept, ""
}

// withdraws reports whether the base branch already holds what d asks for (its managed tree and root
// files): a plan made against the head branch of an open proposal then finds changes that the apply
// does not propose, since it builds on the base, and the proposal is to be closed.
func withdraws(ctx context.Context, c *gitrepo.Client, req PlanRequest, p *Plan) (bool, error) {
	base, err := c.Inspect(ctx, branchInspection(req.RepoURL, req.Branch, req.Desired.Path, false))
	if err != nil {
		return false, gitError("Cannot read the Git repository", err)
	}
	return base.BranchExists && base.PathFile == "" && base.ManagedTree == p.DesiredTree && len(rootChanges(base, req.Desired)) == 0, nil
}

// closeReplaced closes the open proposal of req (DeliverRequest.Replaces) unless it is the pull request
// the apply opened or updated (opened, nil for none).
func closeReplaced(ctx context.Context, c *gitrepo.Client, gh GitHub, req DeliverRequest, opened *githubpr.PR) (*githubpr.PR, error) {
	old := req.Replaces
	if old == nil {
		return nil, nil
	}
	sameRepo := req.Apply.HeadBranch != "" && c.RepositoryKey(old.RepoURL) == c.RepositoryKey(req.Apply.RepoURL)
	if opened != nil && sameRepo && opened.Number == old.Number {
		return nil, nil
	}
	reason := fmt.Sprintf("Closed by terraform-provider-kalypso: `%s` already holds what the configuration asks for under `%s`, "+
		"so there is nothing left to propose (the change was reverted in the configuration before this pull request was merged).", old.Base, displayPath(req.Apply.Path))
	switch {
	case req.Removal && opened == nil:
		reason = fmt.Sprintf("Closed by terraform-provider-kalypso: the resource no longer delivers to `%s` on `%s`, which holds none of its files, "+
			"so there is nothing left to propose.", displayPath(req.Apply.Path), old.Base)
	case req.Apply.HeadBranch == "":
		reason = fmt.Sprintf("Closed by terraform-provider-kalypso: `pull_request` was removed from the configuration, and the change is pushed to `%s` directly.", req.Apply.Branch)
	case opened != nil && sameRepo:
		reason = fmt.Sprintf("Closed by terraform-provider-kalypso: superseded by #%d (%s into %s).", opened.Number, req.Apply.HeadBranch, req.Apply.Branch)
	case opened != nil:
		reason = fmt.Sprintf("Closed by terraform-provider-kalypso: superseded by %s (%s into %s).", opened.URL, req.Apply.HeadBranch, req.Apply.Branch)
	}
	owner, repo, err := githubpr.ParseRepo(old.RepoURL)
	if err != nil {
		return nil, &Error{Attribute: "repository_url", Summary: "Pull-request mode needs a GitHub repository URL", Err: err}
	}
	svc, err := gh()
	if err != nil {
		return nil, &Error{Summary: "Invalid GitHub configuration", Err: fmt.Errorf("%w. Check the provider's github_base_url", err)}
	}
	closed, err := svc.Close(ctx, owner, repo, old.Number, reason)
	if err != nil {
		return nil, &Error{Summary: "Cannot close the replaced pull request", Err: fmt.Errorf(
			"pull request #%d (%s into %s) is still open and proposes what the configuration no longer asks for: %w. Close it on GitHub, or apply again", old.Number, old.Head, old.Base, err)}
	}
	return &closed, nil
}

// checkNotMerged refuses an apply, before anything is written, when the proposal the plan was made
// against was merged after the plan: its content is on the base now, and the plan no longer shows what
// the apply would do.
func checkNotMerged(ctx context.Context, gh GitHub, old *Proposal) error {
	if old == nil {
		return nil
	}
	pr, err := ReadPullRequest(ctx, gh, old.RepoURL, old.Number)
	if errors.Is(err, githubpr.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if pr.State == githubpr.StateMerged {
		return &Error{Summary: "The pull request was merged since the plan", Err: fmt.Errorf(
			"pull request #%d (%s into %s) was merged after the plan was made (after the state was last refreshed), so branch %q now holds what it proposed, "+
				"and the plan, made against the proposal, no longer shows what the apply would do. Nothing was written. Run terraform plan again "+
				"(with refresh) and review the changes against %q as it is now", old.Number, old.Head, old.Base, old.Base, old.Base)}
	}
	return nil
}

// planProposal warns what the apply does to the pull request the state records as open: it closes it
// (nothing left to propose, or superseded), or updates it to propose the removal at a move's old location.
func planProposal(_ context.Context, p *Planning) error {
	if p.Prior == nil || !p.Config.RepoURLKnown || !p.Config.BranchKnown || p.Config.PullRequestUnknown {
		return nil
	}
	open := p.Prior.Resource.OpenProposal(p.Prior.PullRequestNumber, p.Prior.PullRequestState)
	if open == nil {
		return nil
	}
	to := p.Config.Resource
	sameRepo := p.repoKey(open.RepoURL) == p.repoKey(to.RepoURL)
	removesOld := 0
	if m := p.Move; m != nil && !m.Retain && !m.Old.Gone && (!sameRepo || to.Branch != open.Base) {
		removesOld = m.Old.Files + len(m.Old.RootFiles)
	}
	outcome, why := DecideProposal(open, to, p.Changes, sameRepo, removesOld)
	summary := map[ProposalOutcome]string{
		ProposalWithdrawn:  "The apply closes pull request #%d: nothing is left to propose",
		ProposalSuperseded: "The apply closes pull request #%d",
		ProposalRetargeted: "The apply updates pull request #%d to propose the removal at the old location",
	}[outcome]
	if summary != "" {
		p.Warn(fmt.Sprintf(summary, open.Number), fmt.Sprintf("kalypso_gitops_commit %s: %s.", p.ID, why))
	}
	return nil
}

// planOpenProposal refuses the plan when the pull request the state records as open was merged since the
// state was refreshed: Terraform plans again right before it applies a saved plan, with the state of the
// saved plan, and that plan would show other changes (the proposal's content is on the base now), which
// Terraform reports only as "Provider produced inconsistent final plan". It runs before the steps that
// read the branch, whose refusals (a protected move) would name another cause.
func planOpenProposal(ctx context.Context, p *Planning) error {
	if p.Prior == nil || p.GitHub == nil {
		return nil
	}
	if err := checkNotMerged(ctx, p.GitHub, p.Prior.Resource.OpenProposal(p.Prior.PullRequestNumber, p.Prior.PullRequestState)); err != nil {
		return Explain(p.Prior.ID, err)
	}
	return nil
}
