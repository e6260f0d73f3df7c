// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package controlplane

import (
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreFileName is the file Flux reads ignore patterns from, in any directory of a source.
const IgnoreFileName = ".sourceignore"

// The default patterns of Flux's source-controller (pkg/sourceignore).
var (
	// ExcludeVCS is always applied.
	ExcludeVCS = []string{".git/", ".gitignore", ".gitmodules", ".gitattributes"}
	// ExcludeCI and ExcludeExtra apply only when the source has no ignore patterns of its own.
	ExcludeCI    = []string{".github/", ".circleci/", ".travis.yml", ".gitlab-ci.yml", "appveyor.yml", ".drone.yml", "cloudbuild.yaml", "codeship-services.yml", "codeship-steps.yml"}
	ExcludeExtra = []string{"**/.goreleaser.yml", "**/.goreleaser.brew.yml", "**/.sops.yaml", "**/.flux.yaml", "**/.golangci.yaml"}
)

// readPatterns parses gitignore-syntax text as Flux does: blank lines and lines starting with `#` are skipped.
func readPatterns(text string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func parseAll(patterns []string) []gitignore.Pattern {
	ps := make([]gitignore.Pattern, 0, len(patterns))
	for _, p := range patterns {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	return ps
}

// newMatcher reproduces Flux's source-controller filter: every `.sourceignore` of the tree (scoped to its
// directory) plus extra (like GitRepository spec.ignore). When these give no pattern, Flux's defaults apply
// (VCS, CI and extra excludes); otherwise only the VCS excludes are added. Later patterns win, as in git.
func newMatcher(files map[string][]byte, extra string) gitignore.Matcher {
	var ignoreFiles []string
	for p := range files {
		if path.Base(p) == IgnoreFileName {
			ignoreFiles = append(ignoreFiles, p)
		}
	}
	// Parents before children, so a nested file's patterns take precedence.
	sort.Slice(ignoreFiles, func(i, j int) bool {
		di, dj := strings.Count(ignoreFiles[i], "/"), strings.Count(ignoreFiles[j], "/")
		if di != dj {
			return di < dj
		}
		return ignoreFiles[i] < ignoreFiles[j]
	})
	var ps []gitignore.Pattern
	for _, f := range ignoreFiles {
		var domain []string
		if dir := path.Dir(f); dir != "." {
			domain = strings.Split(dir, "/")
		}
		ps = append(ps, readPatterns(string(files[f]), domain)...)
	}
	ps = append(ps, readPatterns(extra, nil)...)
	if len(ps) == 0 {
		all := append(append(append([]string{}, ExcludeVCS...), ExcludeCI...), ExcludeExtra...)
		return gitignore.NewMatcher(parseAll(all))
	}
	return gitignore.NewMatcher(append(parseAll(ExcludeVCS), ps...))
}

// ignored reports whether the file at slash path p is excluded.
func ignored(m gitignore.Matcher, p string) bool {
	return m.Match(strings.Split(p, "/"), false)
}
