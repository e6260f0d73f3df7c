// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestHostileRollbackTo: every rollback.to that does not name a commit of the branch holding the path is
// refused at rollback.to with what to write; none is read as a ref, a revision expression or a tag.
func TestHostileRollbackTo(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"README.md": "fleet"})
	good := gitserver.Commit(t, repo, "main", "good", map[string]string{"clusters/a/x.yaml": "x1", "clusters/" + OwnerMarker: string(MarkerContent("clusters"))}, nil)
	gitserver.Git(t, "", nil, "--git-dir", repo, "tag", "v1.0.0", good)
	gitserver.Git(t, "", nil, "--git-dir", repo, "branch", "feature", good)
	elsewhere := gitserver.Commit(t, repo, "feature", "elsewhere", map[string]string{"clusters/a/x.yaml": "feature"}, nil)
	orphan := gitserver.Commit(t, repo, "orphan", "orphan", map[string]string{"clusters/a/x.yaml": "orphan"}, nil)
	gitserver.Git(t, "", nil, "--git-dir", repo, "branch", "side", good)
	side := gitserver.Commit(t, repo, "side", "side", map[string]string{"clusters/a/x.yaml": "side"}, nil)
	bad := gitserver.Commit(t, repo, "main", "bad", map[string]string{"clusters/a/x.yaml": "x2"}, nil)
	// side is merged into main: an ancestor of main's head, but main never pointed at it.
	tree := strings.TrimSpace(gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", bad+"^{tree}"))
	merge := strings.TrimSpace(gitserver.Git(t, "", nil, "--git-dir", repo, "-c", "user.name=Other", "-c", "user.email=other@example.com",
		"commit-tree", tree, "-p", bad, "-p", side, "-m", "merge side"))
	gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", merge)
	ctx := context.Background()
	plan := func(to string) (*Planning, error) {
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(map[string]string{"a/x.yaml": "x3"})}})
		p.Config.Rollback = &Rollback{To: to}
		p.Prior = prior(repo, "clusters", true)
		_ = planIdentity(ctx, p)
		return p, planRollback(ctx, p)
	}
	cases := []struct {
		name, to string
		detail   []string // of the refusal at rollback.to; nil for a rollback to good
	}{
		{"full id", good, nil},
		{"7-digit prefix", good[:7], nil},
		{"upper-case prefix", strings.ToUpper(good[:10]), nil},
		{"revision expression", "HEAD~1", []string{"is neither a commit id nor", "at least its first 7 hexadecimal digits"}},
		{"branch name", "main", []string{"is neither a commit id"}},
		{"full ref", "refs/heads/main", []string{"is neither a commit id"}},
		{"tag name", "v1.0.0", []string{"is neither a commit id"}},
		{"revision range", good[:7] + ".." + good[:7], []string{"is neither a commit id"}},
		{"reflog", "main@{1}", []string{"is neither a commit id"}},
		{"6 digits", good[:6], []string{"is neither a commit id"}},
		{"empty", "", []string{"is neither a commit id"}},
		{"leading space", " " + good, []string{"is neither a commit id"}},
		{"trailing newline", good + "\n", []string{"is neither a commit id"}},
		{"an option", "--all", []string{"is neither a commit id"}},
		{"a path", "../../etc/passwd", []string{"is neither a commit id"}},
		{"41 digits", good + "0", []string{"is neither a commit id"}},
		{"a SHA-256 id", strings.Repeat("ab", 32), []string{"is neither a commit id"}},
		{"not a commit", "0123456789abcdef0123456789abcdef01234567", []string{"is not main's head", "first-parent ancestors"}},
		{"a commit of another branch", elsewhere, []string{"is not main's head"}},
		{"a prefix of a commit of another branch", elsewhere[:8], []string{"is not main's head"}},
		{"an unrelated history's commit", orphan, []string{"is not main's head"}},
		{"the tag's commit by id is fine", good[:12], nil},
		{"a commit merged from another branch", side, []string{"reached branch main through a merge", "first-parent ancestors"}},
		{"a prefix of a commit merged from another branch", side[:9], []string{"reached branch main through a merge"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := plan(c.to)
			if c.detail == nil {
				if err != nil || p.RolledBack == nil || p.RolledBack.To != good || string(p.Rendered.Files["a/x.yaml"]) != "x1" {
					t.Fatalf("rollback.to %q: %v, rolled back %+v", c.to, err, p.RolledBack)
				}
				return
			}
			refusal(t, err, "rollback.to", c.detail...)
		})
	}
}
