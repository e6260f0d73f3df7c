// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

func TestCheckHeadBranch(t *testing.T) {
	t.Parallel()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		name, base, head string
		tip              gitrepo.Tip
		want             string // "" for accepted
	}{
		{"the base itself", "dev", "dev", gitrepo.Tip{}, `the head branch "dev" is the base branch`},
		{"the default branch", "dev", "main", gitrepo.Tip{DefaultBranch: "main", Exists: true, SHA: sha, Message: "hotfix\n"}, `the head branch "main" is the repository's default branch`},
		{"a branch someone else wrote", "dev", "feature", gitrepo.Tip{DefaultBranch: "main", Exists: true, SHA: sha, Message: "their work\n"},
			`branch "feature" exists and its head commit 0123456789ab was not written by this resource (its message has no "Kalypso-Head-Branch: feature" line)`},
		{"our marker for another head branch", "dev", "feature", gitrepo.Tip{Exists: true, SHA: sha, Message: "x\n\nKalypso-Head-Branch: kalypso/dev\n"}, `was not written by this resource`},
		{"the marker quoted inside a line", "dev", "feature", gitrepo.Tip{Exists: true, SHA: sha, Message: "see Kalypso-Head-Branch: feature\n"}, `was not written by this resource`},
		{"a branch that does not exist", "dev", "kalypso/dev", gitrepo.Tip{DefaultBranch: "main"}, ""},
		{"our own head branch", "dev", "kalypso/dev", gitrepo.Tip{DefaultBranch: "main", Exists: true, SHA: sha, Message: "Update\n\nKalypso-Head-Branch: kalypso/dev\n"}, ""},
		{"an empty repository", "dev", "kalypso/dev", gitrepo.Tip{}, ""},
	}
	for _, c := range cases {
		err := CheckHeadBranch(c.base, c.head, c.tip)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if HeadMarker("kalypso/dev") != "Kalypso-Head-Branch: kalypso/dev" {
		t.Error(HeadMarker("kalypso/dev"))
	}
}

func TestCheckSettings_HeadBranchIsNotTheBase(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	got := CheckSettings(Settings{RepoURL: str("https://github.com/org/fleet.git"), PullRequest: true, Branch: str("dev"), HeadBranch: str("dev")})
	if len(got) != 1 || got[0].Attribute != "pull_request.head_branch" || got[0].Summary != "Head branch not allowed" ||
		!strings.HasPrefix(got[0].Detail, `the head branch "dev" is the base branch`) || !strings.HasSuffix(got[0].Detail, "Nothing was written.") {
		t.Fatalf("%+v", got)
	}
}
