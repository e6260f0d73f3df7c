// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package controlplane reads an upstream Kalypso control-plane repository (a directory or a Git tree) as
// Flux and the upstream operator see it: every YAML document below the path, whatever the folder
// structure, minus what `.sourceignore` excludes. It has no Terraform dependency.
package controlplane

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
	"github.com/kalypso/terraform-provider-kalypso/internal/workloadsource"
)

// Options tune a read.
type Options struct {
	// ResolveWorkloads fetches the Workload of every WorkloadRegistration and appends it, linked.
	ResolveWorkloads bool
	// Client performs every Git read (its URL rewrites and credentials apply). Nil: a default client.
	Client *gitrepo.Client
	// Ignore holds extra gitignore-syntax patterns, like Flux's GitRepository spec.ignore.
	Ignore string
	// Commit pins ReadGit to a commit of the branch (a full SHA or a prefix of 7+ hex digits); "" reads the head.
	Commit string
	// FollowBaseRepo makes ReadGit also read the BaseRepo named `main` at its spec.commit (see ReadGit).
	FollowBaseRepo bool
}

// Skipped describes a document that was read but is not a Kalypso object.
type Skipped struct {
	File       string
	Document   int
	Line       int
	APIVersion string
	Kind       string
}

func (s Skipped) String() string {
	what := "a YAML document that is not a Kubernetes object"
	if s.Kind != "" || s.APIVersion != "" {
		what = fmt.Sprintf("kind %q (apiVersion %q)", s.Kind, s.APIVersion)
	}
	return fmt.Sprintf("file %s, document %d (line %d): %s", s.File, s.Document, s.Line, what)
}

// Result is what a control-plane read returns.
type Result struct {
	// Manifests are the Kalypso documents, verbatim, in file order then document order, followed by the
	// resolved Workloads. Pass them to the render as they are.
	Manifests []string
	// Set is the decoded model of Manifests.
	Set *model.Set

	// BaseRepoCommit is spec.commit of the BaseRepo named `main`, or "".
	BaseRepoCommit string
	// GitOpsRepo is the spec of the GitOpsRepo, or nil.
	GitOpsRepo *model.RepoRef
	// Commit is the commit that was read, in Git mode.
	Commit string
	// Base is where FollowBaseRepo read the BaseRepo named `main`; nil otherwise.
	Base *BaseRead
	// WorkloadCommits maps a registration name to the commit its Workload was read from.
	WorkloadCommits map[string]string
	// Skipped lists the documents that are not Kalypso objects, in file order.
	Skipped []Skipped
}

func errorDiag(summary, detail string) model.Diagnostic {
	return model.Diagnostic{Severity: model.SeverityError, Summary: summary, Detail: detail, Source: model.NoSource}
}

// ReadDir reads the control plane in a local directory.
func ReadDir(ctx context.Context, dir string, opts Options) (*Result, model.Diagnostics) {
	files, err := readDirFiles(dir)
	if err != nil {
		return nil, model.Diagnostics{errorDiag("Cannot read control-plane directory", fmt.Sprintf("%v; set dir to an existing directory (relative paths are resolved from the working directory of terraform)", err))}
	}
	return ReadFiles(ctx, files, "", opts)
}

// ReadGit reads the control plane at path on branch: at its head, or at opts.Commit, which must be on
// the branch. Ignore files are honoured from the repository root, as Flux does, and file names in
// diagnostics are relative to the repository root. With opts.FollowBaseRepo, the BaseRepo named `main`
// on that branch is read too, at its spec.commit, and its documents come first: what the operator
// makes Flux fetch for the environment.
func ReadGit(ctx context.Context, repo, branch, dir string, opts Options) (*Result, model.Diagnostics) {
	if opts.Client == nil {
		opts.Client = &gitrepo.Client{}
	}
	env, diags := readGitSource(ctx, opts.Client, gitSource{repo: repo, branch: branch, commit: opts.Commit, dir: dir}, controlPlaneFields, opts.Ignore)
	if diags.HasError() {
		return nil, sanitizeDiagnostics(diags)
	}
	sources := []*source{env}
	var base *BaseRead
	if opts.FollowBaseRepo {
		b, bsrc, ds := followBaseRepo(ctx, opts.Client, env, branch, opts.Ignore)
		diags = append(diags, ds...)
		if diags.HasError() {
			return nil, sanitizeDiagnostics(diags)
		}
		base, sources = b, []*source{bsrc, env}
	}
	res, ds := assemble(ctx, sources, opts)
	diags = append(diags, ds...)
	if res != nil {
		res.Commit, res.Base = env.commit, base
	}
	return res, sanitizeDiagnostics(diags)
}

// BaseRead is where FollowBaseRepo read the BaseRepo named `main`.
type BaseRead struct {
	Repo, Branch, Path string
	// Commit is the full SHA read: spec.commit resolved on the branch, or its head when spec.commit is empty.
	Commit string
}

// gitSource is one Git read: a branch, optionally pinned to a commit, and a directory.
type gitSource struct {
	repo, branch, commit, dir string
	// label prefixes file names in diagnostics ("main@42f2c20:"); empty for the branch the user named.
	label bool
}

// source is the documents of one read, before they are decoded together.
type source struct {
	docs    []model.Document
	skipped []Skipped
	commit  string
}

func readGitSource(ctx context.Context, client *gitrepo.Client, g gitSource, fields gitrepo.Fields, ignore string) (*source, model.Diagnostics) {
	sub, err := gitrepo.CleanPath(g.dir)
	if err != nil {
		return nil, model.Diagnostics{errorDiag("Invalid control-plane path", err.Error()+"; fix "+fields.Path)}
	}
	if g.commit != "" {
		if err := gitrepo.ValidateCommit(g.commit); err != nil {
			d := errorDiag("Invalid commit", err.Error()+"; fix "+fields.Commit)
			d.Field = fields.Commit
			return nil, model.Diagnostics{d}
		}
	}
	commit, files, err := client.ReadTreeAt(ctx, g.repo, g.branch, g.commit, "")
	if err != nil {
		d := errorDiag("Cannot read control-plane repository", describeGitError(err, fields))
		_, d.Field = gitrepo.Hint(err, fields)
		return nil, model.Diagnostics{d}
	}
	if sub != "" && !hasPrefixDir(files, sub) {
		return nil, model.Diagnostics{errorDiag("Cannot read control-plane repository", fmt.Sprintf(
			"repository %q, branch %q (commit %s) has no directory %q; fix %s", gitrepo.RedactURL(g.repo), g.branch, commit, sub, fields.Path))}
	}
	src, diags := collect(files, sub, ignore)
	src.commit = commit
	if g.label {
		relabel(src, fmt.Sprintf("%s@%s:", g.branch, commit[:7]))
	}
	return src, diags
}

// relabel prefixes the file names of a source's documents, so that a diagnostic says which read they came from.
func relabel(src *source, prefix string) {
	for i := range src.docs {
		src.docs[i].Source.File = prefix + src.docs[i].Source.File
	}
	for i := range src.skipped {
		src.skipped[i].File = prefix + src.skipped[i].File
	}
}

// baseRepoDiag is an error about following the BaseRepo named `main`.
func baseRepoDiag(summary, detail string) model.Diagnostic {
	d := errorDiag(summary, detail)
	d.Kind, d.Name = model.KindBaseRepo, model.BaseRepoMain
	return d
}

// followBaseRepo reads the BaseRepo named `main` that env holds, at its spec.commit, as the operator
// makes Flux do (a GitRepository with spec.ref.commit).
func followBaseRepo(ctx context.Context, client *gitrepo.Client, env *source, branch, ignore string) (*BaseRead, *source, model.Diagnostics) {
	set, diags := model.ParseDocuments(env.docs)
	if diags.HasError() {
		return nil, nil, diags
	}
	b := set.MainBaseRepo()
	if b == nil || b.Spec.Repo == "" || b.Spec.Branch == "" {
		return nil, nil, model.Diagnostics{baseRepoDiag("No BaseRepo to follow", fmt.Sprintf(
			"follow_base_repo is set, but branch %q (commit %s) holds no BaseRepo named %q with spec.repo and spec.branch. "+
				"Add one (the operator needs it too), or unset follow_base_repo and read the base branch with a second kalypso_control_plane.",
			branch, env.commit, model.BaseRepoMain))}
	}
	fields := gitrepo.Fields{Repo: "spec.repo of BaseRepo main", Branch: "spec.branch of BaseRepo main", Path: "spec.path of BaseRepo main", Commit: "spec.commit of BaseRepo main"}
	spec := b.Spec
	// spec.repo is repository content: whoever can write the branch chooses it.
	src, ds := readGitSource(ctx, client.ForContent(), gitSource{repo: spec.Repo, branch: spec.Branch, commit: spec.Commit, dir: spec.Path, label: true}, fields, ignore)
	diags = append(diags, ds...)
	if diags.HasError() {
		for i := range diags {
			diags[i].Kind, diags[i].Name = model.KindBaseRepo, model.BaseRepoMain
			diags[i].Source = set.Source(model.KindBaseRepo, model.BaseRepoMain)
		}
		return nil, nil, diags
	}
	return &BaseRead{Repo: spec.Repo, Branch: spec.Branch, Path: spec.Path, Commit: src.commit}, src, diags
}

// The attributes that set a Git read: the data source's git block, and a WorkloadRegistration's workload source.
var (
	controlPlaneFields = gitrepo.Fields{Repo: "git.repo", Branch: "git.branch", Path: "git.path", Commit: "git.commit"}
	workloadFields     = gitrepo.Fields{Repo: "spec.workload.repo", Branch: "spec.workload.branch", Path: "spec.workload.path"}
)

// describeGitError is the error and what to do about it.
func describeGitError(err error, f gitrepo.Fields) string {
	hint, _ := gitrepo.Hint(err, f)
	return err.Error() + ". " + hint
}

func hasPrefixDir(files map[string][]byte, dir string) bool {
	for p := range files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// readDirFiles reads every regular file below dir, except `.git` directories.
func readDirFiles(dir string) (map[string][]byte, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			// Follow symlinks to regular files; skip anything else.
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				return nil //nolint:nilerr // a dangling symlink is skipped like any other non-regular entry
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}

// ReadFiles reads the control plane from a tree of files keyed by slash path (relative to the source
// root, where ignore files are honoured), restricted to the directory sub ("" for the root).
//
// The control plane's files and the Workloads it resolves come from other people's repositories, so the
// diagnostics that quote them are sanitized here (see internal/sanitize): no control sequence or
// echoed credential reaches the plan output.
func ReadFiles(ctx context.Context, files map[string][]byte, sub string, opts Options) (*Result, model.Diagnostics) {
	res, diags := readFiles(ctx, files, sub, opts)
	return res, sanitizeDiagnostics(diags)
}

// sanitizeDiagnostics sanitizes the text of every diagnostic; it is cut far later than one server's
// answer, since the provider's own words surround the quoted text.
func sanitizeDiagnostics(diags model.Diagnostics) model.Diagnostics {
	s := sanitize.New().Limit(16 << 10)
	for i := range diags {
		diags[i].Summary, diags[i].Detail = s.String(diags[i].Summary), s.String(diags[i].Detail)
	}
	return diags
}

func readFiles(ctx context.Context, files map[string][]byte, sub string, opts Options) (*Result, model.Diagnostics) {
	src, diags := collect(files, sub, opts.Ignore)
	if diags.HasError() {
		return nil, diags
	}
	res, ds := assemble(ctx, []*source{src}, opts)
	return res, append(diags, ds...)
}

// collect splits every YAML file below sub that no ignore rule excludes into documents, in path order,
// and sets aside the documents that are not Kalypso objects.
func collect(files map[string][]byte, sub, ignore string) (*source, model.Diagnostics) {
	matcher := newMatcher(files, ignore)
	var paths []string
	for p := range files {
		if sub != "" && !strings.HasPrefix(p, sub+"/") {
			continue
		}
		if !workloadsource.IsYAMLFile(p) || ignored(matcher, p) {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)

	src := &source{}
	var diags model.Diagnostics
	for _, p := range paths {
		split, ds := model.SplitDocuments(-1, string(files[p]))
		for _, d := range ds {
			d.Source.File = p
			diags = append(diags, d)
		}
		for _, doc := range split {
			doc.Source.Input = -1
			doc.Source.File = p
			apiVersion, kind, _, err := workloadsource.Header(doc.Text)
			if err != nil {
				diags = append(diags, model.Diagnostic{
					Severity: model.SeverityError, Summary: "Malformed YAML document", Source: doc.Source,
					Detail: fmt.Sprintf("%v. Fix the YAML syntax in %s, or exclude the file with a .sourceignore entry", err, p),
				})
				continue
			}
			if !model.IsKnownKind(apiVersion, kind) {
				src.skipped = append(src.skipped, Skipped{File: p, Document: doc.Source.Document, Line: doc.Source.Line, APIVersion: apiVersion, Kind: kind})
				continue
			}
			src.docs = append(src.docs, doc)
		}
	}
	return src, diags
}

// assemble decodes the documents of every source together (a duplicate across sources names both
// places), resolves the Workloads when asked and summarises the result.
func assemble(ctx context.Context, sources []*source, opts Options) (*Result, model.Diagnostics) {
	res := &Result{WorkloadCommits: map[string]string{}}
	var docs []model.Document
	for _, s := range sources {
		docs = append(docs, s.docs...)
		res.Skipped = append(res.Skipped, s.skipped...)
	}
	set, diags := model.ParseDocuments(docs)
	if diags.HasError() {
		return nil, diags
	}
	for _, d := range docs {
		res.Manifests = append(res.Manifests, d.Text)
	}
	if opts.ResolveWorkloads && len(set.WorkloadRegistrations) > 0 {
		fetched, ds := resolveWorkloads(ctx, opts.Client, set, res.WorkloadCommits)
		diags = append(diags, ds...)
		if diags.HasError() {
			return nil, diags
		}
		// One parse of everything: a fetched Workload that duplicates one in the control plane names both places.
		set, ds = model.ParseDocuments(append(append([]model.Document{}, docs...), fetched...))
		diags = append(diags, ds...)
		if diags.HasError() {
			return nil, diags
		}
		for _, d := range fetched {
			res.Manifests = append(res.Manifests, d.Text)
		}
	}
	res.Set = set
	summarise(res, set)
	if len(set.GitOpsRepos) > 1 {
		var names []string
		for _, g := range set.GitOpsRepos {
			names = append(names, g.Metadata.Name)
		}
		diags = append(diags, model.Diagnostic{Severity: model.SeverityWarning, Summary: "Several GitOpsRepo objects", Source: model.NoSource,
			Detail: fmt.Sprintf("found GitOpsRepo %s; gitops_repo reports %q", strings.Join(names, ", "), names[0])})
	}
	return res, diags
}

// resolveWorkloads fetches the Workload of every registration in set, records the commit each was read
// from in commits, and returns the Workload documents, named by repository, commit and path.
func resolveWorkloads(ctx context.Context, client *gitrepo.Client, set *model.Set, commits map[string]string) ([]model.Document, model.Diagnostics) {
	if client == nil {
		client = &gitrepo.Client{}
	}
	// spec.workload.repo is repository content: whoever can write the control plane chooses it.
	client = client.ForContent()
	var fetched []model.Document
	var diags model.Diagnostics
	for _, reg := range set.WorkloadRegistrations {
		if err := ctx.Err(); err != nil {
			return nil, append(diags, errorDiag("Read cancelled", err.Error()))
		}
		commit, wdocs, err := workloadsource.FetchDocuments(ctx, client, reg)
		if err != nil {
			d := errorDiag("Cannot resolve the Workload of a WorkloadRegistration", describeGitError(err, workloadFields))
			d.Source, d.Kind, d.Name, d.Field = set.Source(model.KindWorkloadRegistration, reg.Metadata.Name), model.KindWorkloadRegistration, reg.Metadata.Name, "spec.workload"
			diags = append(diags, d)
			continue
		}
		commits[reg.Metadata.Name] = commit
		for _, w := range wdocs {
			fetched = append(fetched, model.Document{Text: w.Text, Source: model.Source{
				Input: -1, Document: w.Index, Line: w.Line,
				File: fmt.Sprintf("%s@%s:%s", reg.Spec.Workload.Repo, commit, path.Join(strings.TrimPrefix(reg.Spec.Workload.Path, "./"), w.File)),
			}})
		}
	}
	return fetched, diags
}

func summarise(res *Result, set *model.Set) {
	res.BaseRepoCommit = set.PromotedCommit()
	if len(set.GitOpsRepos) > 0 {
		spec := set.GitOpsRepos[0].Spec
		res.GitOpsRepo = &spec
	}
}
