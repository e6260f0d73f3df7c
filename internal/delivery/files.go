// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// FileProblem is a file name of a files map that cannot be delivered.
type FileProblem struct {
	Name    string
	Summary string
	Detail  string
}

// NullContent is a file of a files map whose content is null.
func NullContent(name string) FileProblem {
	return FileProblem{name, "Null file content", fmt.Sprintf("file %q has null content. Give it content (\"\" for an empty file) or remove it from files.", name)}
}

// CheckFileNames finds the names of a files map (relative to path) that cannot be delivered: invalid
// names, dot-entries at the root of path (never managed), and a name that is both a file and a directory.
func CheckFileNames(names []string) []FileProblem {
	var out []FileProblem
	valid := make([]string, 0, len(names))
	for _, name := range names {
		if err := gitrepo.ValidateFileName(name); err != nil {
			out = append(out, FileProblem{name, "Invalid file name", fmt.Sprintf("%s. File names are relative to path and use forward slashes.", err)})
			continue
		}
		if base := name[strings.LastIndexByte(name, '/')+1:]; base == OwnerMarker {
			out = append(out, FileProblem{name, "Invalid file name", fmt.Sprintf("%q is named like the ownership record (%s) that marks another "+
				"kalypso_gitops_commit's path; a copy inside files would hide that resource from the overlap guard. Rename the file.", name, OwnerMarker)})
			continue
		}
		if strings.HasPrefix(name, ".") {
			out = append(out, FileProblem{name, "Dot-entry at the root of path", fmt.Sprintf("%q starts with a dot. Dot-entries at the root of path are never managed, so that "+
				"repository metadata such as .github or .sops.yaml is safe; move the file into a sub-directory or write it outside this resource.", name)})
			continue
		}
		valid = append(valid, name)
	}
	sort.Strings(valid)
	isFile := make(map[string]bool, len(valid))
	for _, name := range valid {
		isFile[name] = true
	}
	reported := map[string]bool{}
	for _, name := range valid {
		for k := strings.IndexByte(name, '/'); k >= 0; k = nextSlash(name, k) {
			if dir := name[:k]; isFile[dir] && !reported[dir] {
				reported[dir] = true
				out = append(out, FileProblem{dir, "File and directory of the same name",
					fmt.Sprintf("%q is a file, but %q needs a directory of that name. Rename one of them.", dir, name)})
			}
		}
	}
	return append(out, caseCollisions(valid)...)
}

// caseCollisions finds names (sorted) whose file or one of whose directories differs from another's only
// in letter case ("Clusters/a" and "clusters/b"): checked out on Windows or macOS, whose file systems
// ignore case, one overwrites the other and the working tree shows changes nobody made.
func caseCollisions(sorted []string) []FileProblem {
	var out []FileProblem
	first := map[string]string{} // lower-cased prefix -> its first spelling
	reported := map[string]bool{}
	for _, name := range sorted {
		for end := 0; end < len(name); {
			if next := strings.IndexByte(name[end+1:], '/'); next >= 0 {
				end += 1 + next
			} else {
				end = len(name)
			}
			prefix := name[:end]
			key := strings.ToLower(prefix)
			seen, ok := first[key]
			if !ok {
				first[key] = prefix
			} else if seen != prefix && !reported[key] {
				reported[key] = true
				out = append(out, FileProblem{name, "File names that differ only in case",
					fmt.Sprintf("%q and %q differ only in letter case. Windows and macOS checkouts cannot hold both, so one would overwrite the "+
						"other; use one spelling.", seen, prefix)})
			}
		}
	}
	return out
}

func nextSlash(s string, after int) int {
	if i := strings.IndexByte(s[after+1:], '/'); i >= 0 {
		return after + 1 + i
	}
	return -1
}

// ReadManaged returns the managed files an inspection found, with their content: from known (what the
// caller last saw) when the blob id matches, else read.
func ReadManaged(ins *gitrepo.Inspection, known map[string]string, read BlobReader) (map[string]string, error) {
	files := make(map[string]string, len(ins.Managed))
	var missing []string
	for name, e := range ins.Managed {
		if e.Gitlink() { // a submodule is no file: files never holds it, and the next plan deletes it
			continue
		}
		if k, ok := known[name]; ok && gitrepo.BlobID([]byte(k)) == e.Hash {
			files[name] = k
			continue
		}
		missing = append(missing, e.Hash)
	}
	if len(missing) == 0 {
		return files, nil
	}
	blobs, err := read(missing)
	if err != nil {
		return nil, err
	}
	for name, e := range ins.Managed {
		if _, done := files[name]; !done && !e.Gitlink() {
			files[name] = string(blobs[e.Hash])
		}
	}
	return files, nil
}

// gitFields names the attributes of kalypso_gitops_commit that set each input of its Git operations.
var gitFields = gitrepo.Fields{Repo: "repository_url", Branch: "branch", Path: "path", HeadBranch: "pull_request.head_branch", Names: "path or the file names in files", Writes: true}

// ErrorHint says what to do about a Git error, and names the attribute it concerns ("" for none).
func ErrorHint(err error) (hint, attribute string) { return gitrepo.Hint(err, gitFields) }
