// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// Input is what Read gathers for Compute: everything Git and the sources said, nothing derived.
type Input struct {
	Request Request
	Envs    []EnvInput
	// ControlPlaneTimes maps control-plane commits to their committer time (nil without a control plane).
	ControlPlaneTimes map[string]time.Time
	// Trees maps the tree id of each deployment target folder of the environments' heads to its regular
	// files (paths relative to the folder, sorted, with blob ids). Equal folders share one entry.
	Trees map[string][]gitrepo.TreeFile
	// Blobs holds the content of those folders' YAML manifests by blob id, each read once: the reconciler
	// manifests among them name the workload's version.
	Blobs map[string][]byte
}

// EnvInput is one environment's branch and reports.
type EnvInput struct {
	Log     *gitrepo.FolderLog
	Reports []rollout.Report
}

// Read reads every environment's branch (history, folders, head tree) and reports, and computes the
// status. Any failure fails the whole read: a status with one environment missing would say that
// environment has nothing.
func Read(ctx context.Context, git Git, req Request) (*Status, error) {
	in, err := Gather(ctx, git, req)
	if err != nil {
		return nil, err
	}
	return Compute(in)
}

// Gather is the reading half of Read. The environments (and the control plane) are read at the same time,
// at most GOMAXPROCS at once; when several fail, the error is the first environment's, as if they had been
// read in order.
func Gather(ctx context.Context, git Git, req Request) (*Input, error) {
	req = req.withDefaults()
	if err := req.validate(); err != nil {
		return nil, err
	}
	in := &Input{Request: req, Envs: make([]EnvInput, len(req.Environments))}
	errs := make([]error, len(req.Environments)+1)
	parallel.For(len(errs), 0, func(i int) {
		if i < len(req.Environments) {
			in.Envs[i], errs[i] = gatherEnv(ctx, git, req, i)
			return
		}
		if cp := req.ControlPlane; cp != nil {
			log, err := git.Log(ctx, cp.Repo, cp.Branch, cp.History, "")
			if err != nil {
				errs[i] = &EnvError{Index: -1, Env: "control plane", Err: err}
				return
			}
			in.ControlPlaneTimes = make(map[string]time.Time, len(log))
			for _, e := range log {
				in.ControlPlaneTimes[e.Commit] = e.Time
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// The folders' files, by tree id, and their manifests, by blob id: environments share most of them.
	in.Trees, in.Blobs = map[string][]gitrepo.TreeFile{}, map[string][]byte{}
	for i, env := range req.Environments {
		fail := func(err error) error {
			return &EnvError{Index: i, Env: env.Name, Err: &gitrepo.Error{Op: "read", Repo: req.Repo, Branch: env.Branch, Path: displayPath(req.Path), Err: err}}
		}
		var ids []string
		for f, id := range in.Envs[i].Log.Folders {
			if _, ok := in.Trees[id]; !ok && deploymentFolder(f) {
				in.Trees[id] = nil
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		trees, err := git.ListTrees(req.Repo, ids)
		if err != nil {
			return nil, fail(err)
		}
		var blobs []string
		for _, id := range ids {
			in.Trees[id] = trees[id]
			for _, f := range trees[id] {
				if _, ok := in.Blobs[f.Blob]; !ok && manifest(f.Path) {
					in.Blobs[f.Blob] = nil
					blobs = append(blobs, f.Blob)
				}
			}
		}
		contents, err := git.ReadBlobs(req.Repo, blobs)
		if err != nil {
			return nil, fail(err)
		}
		for id, b := range contents {
			in.Blobs[id] = b
		}
	}
	return in, nil
}

// gatherEnv reads environment i's history, head folders and reports.
func gatherEnv(ctx context.Context, git Git, req Request, i int) (EnvInput, error) {
	env := req.Environments[i]
	fail := func(err error) error { return &EnvError{Index: i, Env: env.Name, Err: err} }
	log, err := git.LogFolders(ctx, req.Repo, env.Branch, req.Path, req.History, model.PromotedCommitFile)
	if err != nil {
		return EnvInput{}, fail(err)
	}
	if len(log.Commits) == 0 {
		return EnvInput{}, fail(fmt.Errorf("branch %q has no commits", env.Branch))
	}
	for _, c := range log.Commits {
		if p := promoted(c); p != "" && gitrepo.ValidateCommit(p) != nil {
			return EnvInput{}, fail(fmt.Errorf("%w: %s at commit %s of branch %q is not a commit SHA; fix the file (kalypso_gitops_commit.promoted_commit_id writes it)",
				rollout.ErrMalformedPromoted, model.PromotedCommitFile, c.Commit, env.Branch))
		}
	}
	head := log.Commits[0]
	if promoted(head) == "" {
		return EnvInput{}, fail(fmt.Errorf("%w: the head %s of branch %q has no %s, so it is not known which control-plane commit the environment runs; "+
			"render it with kalypso_gitops_commit.promoted_commit_id set", ErrNoPromoted, short(head.Commit), env.Branch, model.PromotedCommitFile))
	}
	out := EnvInput{Log: log}
	if env.Source != nil {
		shas := make([]string, len(log.Commits))
		for j, c := range log.Commits {
			shas[j] = c.Commit
		}
		if out.Reports, err = env.Source.Reports(ctx, shas); err != nil {
			return EnvInput{}, fail(fmt.Errorf("%w: %w", ErrSource, err))
		}
	}
	return out, nil
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func (r Request) withDefaults() Request {
	if r.History <= 0 {
		r.History = DefaultHistory
	}
	if r.MaxClusters <= 0 {
		r.MaxClusters = rollout.DefaultMaxClusters
	}
	if r.Window <= 0 {
		r.Window = DefaultWindow
	}
	if r.Now.IsZero() {
		r.Now = time.Now()
	}
	if cp := r.ControlPlane; cp != nil {
		c := *cp
		if c.Branch == "" {
			c.Branch = "main"
		}
		if c.History <= 0 {
			c.History = DefaultHistory
		}
		r.ControlPlane = &c
	}
	if r.Compare == nil {
		for i := 0; i+1 < len(r.Environments); i++ {
			r.Compare = append(r.Compare, Comparison{From: r.Environments[i].Name, To: r.Environments[i+1].Name})
		}
	}
	return r
}

func (r Request) validate() error {
	if len(r.Environments) == 0 {
		return fmt.Errorf("%w: list at least one environment", ErrInput)
	}
	names := map[string]bool{}
	for i, e := range r.Environments {
		if strings.TrimSpace(e.Name) == "" || e.Branch == "" {
			return &EnvError{Index: i, Env: e.Name, Err: fmt.Errorf("%w: an environment needs a name and a branch", ErrInput)}
		}
		if names[e.Name] {
			return &EnvError{Index: i, Env: e.Name, Err: fmt.Errorf("%w: environment %q is listed twice; name each once", ErrInput, e.Name)}
		}
		// The branch defaults to the environment's name, which no branch rule checked: "../x", "-x",
		// "refs/heads/dev" or "HEAD" were read as branches and ended in "branch not found" or a storage error.
		if err := gitrepo.ValidateBranchName(e.Branch); err != nil {
			return &EnvError{Index: i, Env: e.Name, Err: fmt.Errorf("%w: %w; name the environment's branch (branch = \"...\") as git accepts it, such as \"dev\" or \"envs/dev\"", ErrInput, err)}
		}
		names[e.Name] = true
	}
	for _, c := range r.Compare {
		for _, n := range []string{c.From, c.To} {
			if !names[n] {
				return fmt.Errorf("%w: comparison %s vs %s names environment %q, which is not in the environments", ErrInput, c.From, c.To, n)
			}
		}
	}
	return nil
}

func promoted(e gitrepo.LogEntry) string { return strings.TrimSpace(string(e.File)) }

func short(sha string) string {
	if len(sha) > 7 {
		// A Promoted_Commit_Id is text from a commit message, not always a hash: cut at a character boundary.
		end := 7
		for end > 0 && !utf8.RuneStart(sha[end]) {
			end--
		}
		return sha[:end]
	}
	return sha
}
