// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"fmt"
	"io/fs"
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
		if _, done := files[name]; !done {
			files[name] = string(blobs[e.Hash])
		}
	}
	return files, nil
}

// ErrorHint says what to do about a Git error, and names the attribute it concerns ("" for none).
func ErrorHint(err error) (hint, attribute string) {
	switch {
	case errors.Is(err, gitrepo.ErrCredentialsInURL):
		return "Remove credentials from repository_url (and from the provider's git_url_rewrites) and set the provider's git_token (or GIT_TOKEN/GITHUB_TOKEN) or ssh_private_key instead.", "repository_url"
	case errors.Is(err, gitrepo.ErrAuth):
		return "Check the provider's git_token (GIT_TOKEN/GITHUB_TOKEN) for https, or ssh_private_key and ssh_known_hosts for ssh, and that they may read and push the repository.", ""
	case errors.Is(err, gitrepo.ErrRepositoryNotFound):
		return "Check repository_url and the provider's git_url_rewrites.", "repository_url"
	case errors.Is(err, gitrepo.ErrBranchNotFound):
		return "Check branch; in pull-request mode the base branch must exist.", "branch"
	case errors.Is(err, gitrepo.ErrStale):
		return "Someone changed files under path after the plan was made, so the plan no longer shows what the apply would do. Nothing was written; run terraform plan (or apply) again and review the new changes.", ""
	case errors.Is(err, gitrepo.ErrConflict):
		return "Other writers kept updating the branch while this apply pushed; nothing was written. Apply again.", ""
	case errors.Is(err, gitrepo.ErrTimeout):
		return "The Git server did not answer within the provider's git_timeout; nothing was written. Raise git_timeout (or KALYPSO_GIT_TIMEOUT) for slow or large remotes, or check the server.", ""
	case errors.Is(err, gitrepo.ErrInvalidInput):
		return "Fix path or the file names in files.", ""
	case errors.Is(err, fs.ErrPermission):
		return "The provider process may not read or write the repository or its cache_dir on this machine: check the file permissions of the local repository and of cache_dir.", ""
	case strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		return "TLS verification of the Git server failed (it is always on). For a server whose certificate comes from a private CA, put that CA's PEM certificate in the provider's ca_certificates.", ""
	}
	return "The remote may be unreachable; check the network and retry.", ""
}
