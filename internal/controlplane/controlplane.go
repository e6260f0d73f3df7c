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

// ReadGit reads the control plane at path on the head of branch. Ignore files are honoured from the
// repository root, as Flux does, and file names in diagnostics are relative to the repository root.
func ReadGit(ctx context.Context, repo, branch, dir string, opts Options) (*Result, model.Diagnostics) {
	client := opts.Client
	if client == nil {
		client = &gitrepo.Client{}
		opts.Client = client
	}
	sub, err := gitrepo.CleanPath(dir)
	if err != nil {
		return nil, model.Diagnostics{errorDiag("Invalid control-plane path", err.Error())}
	}
	commit, files, err := client.ReadTree(ctx, repo, branch, "")
	if err != nil {
		return nil, model.Diagnostics{errorDiag("Cannot read control-plane repository", describeGitError(err, controlPlaneFields))}
	}
	if sub != "" && !hasPrefixDir(files, sub) {
		return nil, sanitizeDiagnostics(model.Diagnostics{errorDiag("Cannot read control-plane repository", fmt.Sprintf(
			"repository %q, branch %q (commit %s) has no directory %q; fix git.path", repo, branch, commit, sub))})
	}
	res, diags := ReadFiles(ctx, files, sub, opts)
	if res != nil {
		res.Commit = commit
	}
	return res, diags
}

// The attributes that set a Git read: the data source's git block, and a WorkloadRegistration's workload source.
var (
	controlPlaneFields = gitrepo.Fields{Repo: "git.repo", Branch: "git.branch", Path: "git.path"}
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
	matcher := newMatcher(files, opts.Ignore)
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

	res := &Result{WorkloadCommits: map[string]string{}}
	var diags model.Diagnostics
	var docs []model.Document
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
				res.Skipped = append(res.Skipped, Skipped{File: p, Document: doc.Source.Document, Line: doc.Source.Line, APIVersion: apiVersion, Kind: kind})
				continue
			}
			docs = append(docs, doc)
		}
	}
	set, ds := model.ParseDocuments(docs)
	diags = append(diags, ds...)
	if diags.HasError() {
		return nil, diags
	}
	for _, d := range docs {
		res.Manifests = append(res.Manifests, d.Text)
	}

	if opts.ResolveWorkloads && len(set.WorkloadRegistrations) > 0 {
		client := opts.Client
		if client == nil {
			client = &gitrepo.Client{}
		}
		var fetched []model.Document
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
			res.WorkloadCommits[reg.Metadata.Name] = commit
			for _, w := range wdocs {
				fetched = append(fetched, model.Document{Text: w.Text, Source: model.Source{
					Input: -1, Document: w.Index, Line: w.Line,
					File: fmt.Sprintf("%s@%s:%s", reg.Spec.Workload.Repo, commit, path.Join(strings.TrimPrefix(reg.Spec.Workload.Path, "./"), w.File)),
				}})
			}
		}
		if diags.HasError() {
			return nil, diags
		}
		// One parse of everything: a fetched Workload that duplicates one in the control plane names both places.
		all := append(append([]model.Document{}, docs...), fetched...)
		set, ds = model.ParseDocuments(all)
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

func summarise(res *Result, set *model.Set) {
	res.BaseRepoCommit = set.PromotedCommit()
	if len(set.GitOpsRepos) > 0 {
		spec := set.GitOpsRepos[0].Spec
		res.GitOpsRepo = &spec
	}
}
