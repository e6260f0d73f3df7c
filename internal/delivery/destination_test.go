// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// The destination step names a move's missing repository or branch before the move's guards run, and
// lets a move to an existing location (or to a branch it creates) through.
func TestPlanDestination(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{"README.md": "r\n"})
	from := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters"}
	for _, c := range []struct {
		name    string
		to      Resource
		summary string
	}{
		{"another path", Resource{RepoURL: from.RepoURL, Branch: "main", Path: "envs"}, ""},
		{"a branch it creates", Resource{RepoURL: from.RepoURL, Branch: "dev", Path: "clusters", CreateBranch: true}, ""},
		{"a missing branch", Resource{RepoURL: from.RepoURL, Branch: "dev", Path: "clusters"}, "Git branch does not exist"},
		{"a missing repository", Resource{RepoURL: "file://" + repo + "-missing", Branch: "main", Path: "clusters"}, "Git repository not found"},
	} {
		p := &Planning{Git: &gitrepo.Client{}, ID: "id", Prior: &Prior{Resource: from}, Config: Config{Resource: c.to}}
		err := planDestination(context.Background(), p)
		var rf *Refusal
		switch {
		case c.summary == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.summary != "" && (!errors.As(err, &rf) || rf.Summary != c.summary):
			t.Errorf("%s: %v, want %q", c.name, err, c.summary)
		}
	}
	if s, d := GoneWarning(&gitrepo.Error{Op: "read", Err: gitrepo.ErrRepositoryNotFound}); s != "Git repository not found" || !strings.Contains(d, "check the provider's git_token") {
		t.Errorf("a repository gone: %q %q", s, d)
	}
	if s, _ := GoneWarning(&gitrepo.Error{Op: "read", Err: gitrepo.ErrBranchNotFound}); s != "Git branch no longer exists" {
		t.Errorf("a branch gone: %q", s)
	}
}
