// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// foreignCommit is a commit of another repository, which the GitOps repository does not hold: what a
// submodule entry (a gitlink, mode 160000) points to.
const foreignCommit = "0123456789abcdef0123456789abcdef01234567"

// addGitlink adds a submodule entry at name on branch, as `git submodule add` leaves it in the tree.
func addGitlink(t *testing.T, repo, branch, name string) {
	t.Helper()
	head := gitserver.Head(t, repo, branch)
	gitserver.Git(t, "", []byte("commit refs/heads/"+branch+"\ncommitter Other <o@example.com> 1700000000 +0000\ndata 4\nsub\nfrom "+head+
		"\nM 160000 "+foreignCommit+" "+name+"\n"), "--git-dir", repo, "fast-import", "--quiet")
}

// A submodule entry under path plans as it did before dd3fd0a made a delete's diff hold the removed
// content, which read the gitlink's commit as a blob ("reading blob …: object not found") and failed every
// plan: it is listed as a delete, its diff is what `git diff` shows of a submodule, a files-mode refresh
// skips it, a file desired at its name is an update, and the apply removes it.
func TestPlanAgainstBranch_SubmoduleUnderPath(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", map[string]string{"clusters/a.yaml": "a\n", MarkerPath("clusters"): string(MarkerContent("clusters")), "README.md": "r\n"})
	addGitlink(t, repo, "main", "clusters/vendor/lib")
	c := &gitrepo.Client{}
	r := Resource{RepoURL: "file://" + repo, Branch: "main", Path: "clusters", MaxDeletePercent: DefaultMaxDeletePercent, Message: DefaultCommitMessage}
	ctx := context.Background()
	req := r.RefreshRequest(0)
	req.Files = true
	got, err := Refresh(ctx, c, nil, req)
	if err != nil {
		t.Fatalf("refresh (files mode): %v", err)
	}
	if want := map[string]string{"a.yaml": "a\n"}; !reflect.DeepEqual(got.Files, want) {
		t.Fatalf("refresh read files %v, want %v", got.Files, want)
	}

	keep := r.Desired(map[string][]byte{"a.yaml": []byte("a\n")}, "", false)
	p, err := PlanAgainstBranch(ctx, c, r.PlanRequest(keep, got.ManagedTree, ""))
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	want := map[string]Change{"clusters/vendor/lib": {Action: ActionDelete, Diff: "Subproject commit " + foreignCommit + "\n"}}
	if !reflect.DeepEqual(p.Changes, want) || p.Counts != (Counts{Delete: 1}) {
		t.Fatalf("plan: %+v %+v, want %+v", p.Changes, p.Counts, want)
	}

	over := r.Desired(map[string][]byte{"a.yaml": []byte("a\n"), "vendor/lib": []byte("lib\n")}, "", false)
	p, err = PlanAgainstBranch(ctx, c, r.PlanRequest(over, got.ManagedTree, ""))
	if err != nil {
		t.Fatalf("plan of a file in the submodule's place: %v", err)
	}
	if ch := p.Changes["clusters/vendor/lib"]; ch.Action != ActionUpdate || ch.Diff != UnifiedDiff("clusters/vendor/lib", "Subproject commit "+foreignCommit+"\n", "lib\n") {
		t.Fatalf("a file in the submodule's place: %+v", p.Changes)
	}

	res, err := Deliver(ctx, c, nil, r.DeliverRequest(keep, r.Message, nil, got.ManagedTree, false))
	if err != nil || !res.Git.Changed || !reflect.DeepEqual(res.Git.Changes.Removed, []string{"vendor/lib"}) {
		t.Fatalf("apply: %+v, %v", res.Git, err)
	}
	if files := gitserver.Files(t, repo, "main"); len(files) != 3 || files["clusters/a.yaml"] != "a\n" {
		t.Fatalf("branch after the apply: %v", files)
	}
	if out := gitserver.Git(t, "", nil, "--git-dir", repo, "ls-tree", "-r", "main", "clusters/vendor"); out != "" {
		t.Fatalf("the gitlink is still on the branch: %q", out)
	}
}
