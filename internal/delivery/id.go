// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"fmt"
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
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return "", "", "", fmt.Errorf("the ID %q contains a control character (a line break?); write it on one line", id)
		}
	}
	rest, branch := id[:i], id[i+len("?ref="):]
	if branch == "" {
		return "", "", "", errors.New("the branch after ?ref= is empty")
	}
	if err := ValidateBranchName(branch); err != nil {
		return "", "", "", err
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
	if strings.Contains(dir, "%") {
		return "", "", "", fmt.Errorf("the path %q contains %%: the ID is not URL-decoded, so %%2e%%2e would name a directory called that; write the path as it is", dir)
	}
	if _, err := gitrepo.CleanPath(dir); err != nil {
		return "", "", "", err
	}
	return repoURL, dir, branch, nil
}
