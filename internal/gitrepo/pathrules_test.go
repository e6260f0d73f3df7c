// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// dotGitNames are path components that Git on Windows or macOS reads as .git: git fsck --strict reports
// each as hasDotgit (TestGitItselfRefusesDotGitNames checks that against the git binary).
var dotGitNames = []string{".git", ".GIT", ".Git", ".git.", ".git..", ".git ", ".git. .", ".git::$INDEX_ALLOCATION", ".git:x",
	"git~1", "GIT~1", "git~1.", "git~1 ", ".g\u200cit", "\u200d.git", ".git\ufeff", ".G\u200eI\u200fT", ".\u202agit", ".gi\u206ft"}

// dotGitmodulesNames are spellings of .gitmodules on some file system.
var dotGitmodulesNames = []string{".gitmodules", ".GitModules", ".gitmodules.", ".gitmodules ", ".gitmodules:stream", "gitmod~1", "GITMOD~4", "gi7eba~1", ".git\u200cmodules"}

// nearMisses are legitimate names close to those; git accepts them and so must the provider.
var nearMisses = []string{".gitx", ".git-keep", ".gitignore", ".gitattributes", "git", "git~", "git~1x", "git~a", "agit~1", "x.git", ".g.it",
	"gitmodules", "gitmod~", ".gitmodulesx", "\u200c", "caf\u00e9", "\u00c9t\u00e9", "a b", "a.", "a~1"}

func TestCheckGitComponent(t *testing.T) {
	t.Parallel()
	for _, n := range dotGitNames {
		if err := gitrepo.CheckGitComponent(n); err == nil || !strings.Contains(err.Error(), "reads as .git (git fsck: hasDotgit)") {
			t.Errorf("%q: err = %v, want the .git refusal", n, err)
		}
	}
	for _, n := range dotGitmodulesNames {
		if err := gitrepo.CheckGitComponent(n); err == nil || !strings.Contains(err.Error(), "reads as .gitmodules") {
			t.Errorf("%q: err = %v, want the .gitmodules refusal", n, err)
		}
	}
	for _, n := range nearMisses {
		if err := gitrepo.CheckGitComponent(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	if err := gitrepo.CheckGitComponent("a\xffb"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// TestGitItselfRefusesDotGitNames: the names the provider refuses as .git are the ones git fsck --strict
// (what GitHub runs on every push) reports as hasDotgit, and the near misses are not: the rules are git's,
// not a guess. Each name goes into its own fresh repository, since fsck checks every object it holds.
func TestGitItselfRefusesDotGitNames(t *testing.T) {
	t.Parallel()
	fsck := func(name string) string {
		repo := gitserver.NewBareRepo(t, "", "r.git", "main")
		blob := gitserver.Git(t, "", []byte("x\n"), "--git-dir", repo, "hash-object", "-w", "--stdin")
		inner := gitserver.Git(t, "", []byte(fmt.Sprintf("100644 blob %s\t%s\n", blob, name)), "--git-dir", repo, "mktree")
		outer := gitserver.Git(t, "", []byte(fmt.Sprintf("040000 tree %s\tx\n", inner)), "--git-dir", repo, "mktree")
		commit := gitserver.Git(t, "", nil, "--git-dir", repo, "commit-tree", outer, "-m", "m")
		gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", commit)
		out, _ := exec.Command("git", "--git-dir", repo, "fsck", "--strict").CombinedOutput() //nolint:gosec // test input
		return string(out)
	}
	for _, n := range dotGitNames {
		if out := fsck(n); !strings.Contains(out, "hasDotgit") {
			t.Errorf("%q: git fsck --strict does not report hasDotgit:\n%s", n, out)
		}
	}
	for _, n := range nearMisses {
		if out := fsck(n); strings.Contains(out, "error") {
			t.Errorf("%q: git fsck --strict refuses a near miss:\n%s", n, out)
		}
	}
}

// TestApply_HostileNamesWriteNothingAndEveryCommitPassesFsck: a file or path whose component is .git or
// .gitmodules in any platform's spelling is ErrInvalidInput and the branch is untouched; a tree of near
// misses is written, and the repository (over file:// and smart HTTP) passes git fsck --strict.
func TestApply_HostileNamesWriteNothingAndEveryCommitPassesFsck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tg := range targets(t, root) {
		t.Run(tg.name, func(t *testing.T) {
			name := tg.name + ".git"
			repo := gitserver.NewSeededRepo(t, root, name, "main", map[string]string{"README.md": "outside"})
			head := gitserver.Head(t, repo, "main")
			ctx := context.Background()
			hostile := append(append([]string(nil), dotGitNames...), dotGitmodulesNames...)
			for _, n := range hostile {
				for _, req := range []gitrepo.ApplyRequest{
					{RepoURL: tg.url(name), Branch: "main", Path: "clusters", Files: fixtures.Bytes(map[string]string{"x/" + n + "/config": "[core]\n\thooksPath = /tmp\n"})},
					{RepoURL: tg.url(name), Branch: "main", Path: "clusters", Files: fixtures.Bytes(map[string]string{"x/" + n: "[submodule \"x\"]\n\tpath = x\n\turl = -u./payload\n"})},
					{RepoURL: tg.url(name), Branch: "main", Path: "clusters/" + n, Files: fixtures.Bytes(map[string]string{"a": "a"})},
				} {
					if _, err := tg.client.Apply(ctx, req); !errors.Is(err, gitrepo.ErrInvalidInput) {
						t.Errorf("%q (path %q): err = %v, want ErrInvalidInput", n, req.Path, err)
					}
				}
			}
			if gitserver.Head(t, repo, "main") != head {
				t.Fatal("a hostile name reached the branch")
			}
			files := map[string]string{}
			for i, n := range nearMisses {
				files[fmt.Sprintf("d%d/%s", i, n)] = n
			}
			res, err := tg.client.Apply(ctx, gitrepo.ApplyRequest{RepoURL: tg.url(name), Branch: "main", Path: "clusters", Files: fixtures.Bytes(files),
				Author: gitrepo.Signature{Name: "Zoë Ünïcode (bot)", Email: "zoe+bot@example.com"}, Message: "near misses\n\nwith a body"})
			if err != nil || !res.Pushed {
				t.Fatalf("%+v %v", res, err)
			}
			gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict", "--no-dangling")
		})
	}
}

// TestApply_CommitHeaderInjectionWritesNothing: an author with a line break, '<', '>' or NUL, or a message
// with NUL, is ErrInvalidInput before anything is written, so no commit carries forged header lines.
func TestApply_CommitHeaderInjectionWritesNothing(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "r.git", "main", map[string]string{"README.md": "outside"})
	head := gitserver.Head(t, repo, "main")
	c := &gitrepo.Client{}
	for _, tc := range []struct {
		author gitrepo.Signature
		msg    string
		want   string
	}{
		{gitrepo.Signature{Name: "Bot\nparent 0000000000000000000000000000000000000000\ncommitter M <m@x> 0 +0000", Email: "b@x"}, "", "author name contains a line break"},
		{gitrepo.Signature{Name: "Bot", Email: "b@x> 0 +0000\ncommitter M <m@x"}, "", "author email contains a line break"},
		{gitrepo.Signature{Name: "Bot", Email: "b>@x"}, "", "author email contains '<' or '>'"},
		{gitrepo.Signature{Name: "B<ot", Email: "b@x"}, "", "author name contains '<' or '>'"},
		{gitrepo.Signature{Name: "B\x00ot", Email: "b@x"}, "", "author name contains a NUL character"},
		{gitrepo.Signature{}, "release\x00notes", "commit message contains a NUL character"},
	} {
		_, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: repo, Branch: "main", Path: "p", Author: tc.author, Message: tc.msg,
			Files: fixtures.Bytes(map[string]string{"a": "a"})})
		if !errors.Is(err, gitrepo.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v %q: err = %v, want %q", tc.author, tc.msg, err, tc.want)
		}
	}
	if gitserver.Head(t, repo, "main") != head {
		t.Fatal("a malformed commit was written")
	}
	gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict")
}

// TestCheckGitComponentFastPathAgrees: the fast path for ordinary ASCII names decides every name as the
// full rules do. It tries every name of up to four characters from an alphabet of the characters the
// rules look at, and the names of the lists above.
func TestCheckGitComponentFastPathAgrees(t *testing.T) {
	t.Parallel()
	alphabet := []string{".", "g", "G", "i", "I", "t", "~", "1", " ", ":", "m", "a", "7", "\u200c"}
	names := append(append(append([]string{""}, dotGitNames...), dotGitmodulesNames...), nearMisses...)
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	for _, n := range names {
		fast, full := gitrepo.CheckGitComponent(n), gitrepo.CheckGitComponentFully(n)
		if (fast == nil) != (full == nil) {
			t.Errorf("%q: fast path %v, full rules %v", n, fast, full)
		}
	}
}
