// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// ID renders a resource's id and import id, `<repository_url>//<path>?ref=<branch>`.
func ID(repoURL, dir, branch string) string {
	clean, err := gitrepo.CleanPath(dir)
	if err != nil || clean == "" {
		clean = "."
	}
	return repoURL + "//" + clean + "?ref=" + branch
}

// ParseID parses `<repository_url>//<path>?ref=<branch>`; a missing `//<path>` means ".".
func ParseID(id string) (repoURL, dir, branch string, err error) {
	i := strings.LastIndex(id, "?ref=")
	if i < 0 {
		return "", "", "", errors.New("the ID has no ?ref=<branch> suffix")
	}
	rest, branch := id[:i], id[i+len("?ref="):]
	if branch == "" {
		return "", "", "", errors.New("the branch after ?ref= is empty")
	}
	repoURL, dir = rest, "."
	if j := strings.LastIndex(rest, "//"); j >= 0 && (j == 0 || rest[j-1] != ':') {
		repoURL, dir = rest[:j], rest[j+2:]
		if dir == "" {
			dir = "."
		}
	}
	if repoURL == "" {
		return "", "", "", errors.New("the repository URL is empty")
	}
	if err := gitrepo.ValidateURL(repoURL); err != nil {
		return "", "", "", err
	}
	if _, err := gitrepo.CleanPath(dir); err != nil {
		return "", "", "", err
	}
	return repoURL, dir, branch, nil
}
