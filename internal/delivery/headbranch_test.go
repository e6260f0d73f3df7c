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

func TestValidateBranchName_RefusesWhatIsNotABranch(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"HEAD": "pseudo-ref", "FETCH_HEAD": "pseudo-ref", "ORIG_HEAD": "pseudo-ref",
		"refs/heads/main": "full ref name", "refs/tags/v1": "full ref name",
		"origin/dev": "remote-tracking", "remotes/origin/dev": "remote-tracking",
	} {
		if err := ValidateBranchName(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", name, err, want)
		}
	}
	for _, ok := range []string{"main", "envs/dev", "kalypso/dev", "head", "my_HEAD_branch", "Fetch_head", "originals/x"} {
		if err := ValidateBranchName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestParseID_Refusals(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"https://github.com/o/r.git//clusters\n?ref=main":    "control character",
		"https://github.com/o/r.git//clus\x1bters?ref=main":  "control character",
		"https://github.com/o/r.git//%2e%2e?ref=main":        "not URL-decoded",
		"https://github.com/o/r.git//a/%2e%2e/b?ref=main":    "not URL-decoded",
		"https://github.com/o/r.git//clusters?ref=HEAD":      "pseudo-ref",
		"https://github.com/o/r.git//clusters?ref=origin/x":  "remote-tracking",
		"https://github.com/o/r.git//clusters/.git.?ref=dev": "reads as .git",
	} {
		if _, _, _, err := ParseID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", id, err, want)
		}
	}
	if u, d, b, err := ParseID("https://github.com/o/r.git//clusters/dev?ref=main"); err != nil || u != "https://github.com/o/r.git" || d != "clusters/dev" || b != "main" {
		t.Errorf("%q %q %q %v", u, d, b, err)
	}
}
