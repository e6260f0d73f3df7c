// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

var seed = map[string]string{
	"README.md":                   "root readme",
	"clusters/.keep":              "dot at root of path",
	"clusters/drone/README.md":    "drone",
	"clusters/drone/app/ns.yaml":  "kind: Namespace",
	"clusters/large/README.md":    "large",
	".github/workflows/check.yml": "on: push",
}

func TestRewriteURL_LongestPrefixWins(t *testing.T) {
	t.Parallel()
	c := &gitrepo.Client{Rewrites: map[string]string{
		"https://github.com/":         "file:///mirror/",
		"https://github.com/org/":     "https://mirror.example/org-",
		"https://github.com/org/repo": "file:///exact",
	}}
	cases := map[string]string{
		"https://github.com/other/x":     "file:///mirror/other/x",
		"https://github.com/org/fleet":   "https://mirror.example/org-fleet",
		"https://github.com/org/repo":    "file:///exact",
		"https://gitlab.example/a/b.git": "https://gitlab.example/a/b.git",
	}
	for in, want := range cases {
		if got := c.RewriteURL(in); got != want {
			t.Errorf("RewriteURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadTree_LocalBare_FileURLAndPath(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "fleet.git", "main", seed)
	head := gitserver.Head(t, repo, "main")
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	for _, u := range []string{"file://" + repo, repo} {
		sha, files, err := c.ReadTree(context.Background(), u, "main", "clusters")
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if sha != head {
			t.Errorf("%s: sha %s, want %s", u, sha, head)
		}
		want := map[string][]byte{
			".keep":             []byte("dot at root of path"),
			"drone/README.md":   []byte("drone"),
			"drone/app/ns.yaml": []byte("kind: Namespace"),
			"large/README.md":   []byte("large"),
		}
		if !reflect.DeepEqual(files, want) {
			t.Errorf("%s: files %v, want %v", u, slices.Sorted(maps.Keys(files)), slices.Sorted(maps.Keys(want)))
		}
	}
	_, managed, err := c.ReadManaged(context.Background(), repo, "main", "clusters")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := managed[".keep"]; ok || len(managed) != 3 {
		t.Errorf("ReadManaged must drop root dot-entries: %v", slices.Sorted(maps.Keys(managed)))
	}
	_, all, err := c.ReadTree(context.Background(), repo, "main", ".")
	if err != nil || len(all) != len(seed) {
		t.Fatalf("root read: %v, %d files", err, len(all))
	}
}

func TestReadTree_SentinelErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	empty := gitserver.NewBareRepo(t, root, "empty.git", "main")
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	ctx := context.Background()
	cases := []struct {
		name, url, branch, path string
		want                    error
		mention                 []string
	}{
		{"missing repo", filepath.Join(root, "nope.git"), "main", ".", gitrepo.ErrRepositoryNotFound, []string{"nope.git"}},
		{"missing branch", repo, "dev", ".", gitrepo.ErrBranchNotFound, []string{"fleet.git", `"dev"`}},
		{"empty repo", empty, "main", ".", gitrepo.ErrBranchNotFound, []string{"empty.git", `"main"`}},
		{"missing path", repo, "main", "nope/dir", gitrepo.ErrPathNotFound, []string{"fleet.git", `"main"`, `"nope/dir"`}},
		{"path is a file", repo, "main", "README.md", gitrepo.ErrPathNotFound, []string{"README.md"}},
		{"escaping path", repo, "main", "../x", gitrepo.ErrInvalidInput, []string{"../x"}},
		{"credentials in URL", "https://user:secret@example.com/r.git", "main", ".", gitrepo.ErrCredentialsInURL, []string{"credentials"}},
		{"unsupported scheme", "ftp://example.com/r.git", "main", ".", gitrepo.ErrInvalidInput, []string{"ftp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.ReadTree(ctx, tc.url, tc.branch, tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the URL password: %v", err)
			}
		})
	}
}

func TestReadTree_SmartHTTP_AuthCacheAndErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	srv := gitserver.Start(t, root, gitserver.Options{Token: "s3cr3t-token"})
	ctx := context.Background()
	cache := t.TempDir()

	bad := &gitrepo.Client{CacheDir: cache, Auth: gitrepo.Auth{LoopbackHTTP: true, Token: "wrong"}}
	_, _, err := bad.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "clusters")
	if !errors.Is(err, gitrepo.ErrAuth) {
		t.Fatalf("wrong token: err = %v, want ErrAuth", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("error leaks the token: %v", err)
	}
	none := &gitrepo.Client{CacheDir: cache}
	if _, _, err := none.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "clusters"); !errors.Is(err, gitrepo.ErrAuth) {
		t.Fatalf("no token: err = %v, want ErrAuth", err)
	}

	c := &gitrepo.Client{CacheDir: cache, Auth: gitrepo.Auth{LoopbackHTTP: true, Token: "s3cr3t-token"}}
	sha, files, err := c.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "clusters")
	if err != nil {
		t.Fatal(err)
	}
	if sha != gitserver.Head(t, repo, "main") || string(files["drone/README.md"]) != "drone" || len(files) != 4 {
		t.Fatalf("sha %s files %v", sha, slices.Sorted(maps.Keys(files)))
	}

	// A new upstream commit is seen by the next read, fetched into the same cache entry.
	next := gitserver.Commit(t, repo, "main", "edit", map[string]string{"clusters/drone/README.md": "drone v2"}, []string{"clusters/large/README.md"})
	sha, files, err = c.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "clusters")
	if err != nil {
		t.Fatal(err)
	}
	if sha != next || string(files["drone/README.md"]) != "drone v2" || len(files) != 3 {
		t.Fatalf("after update: sha %s files %v", sha, slices.Sorted(maps.Keys(files)))
	}
	var entries []os.DirEntry
	all, _ := os.ReadDir(cache)
	for _, e := range all {
		if e.IsDir() {
			entries = append(entries, e)
		}
	}
	if len(entries) != 1 {
		t.Fatalf("cache has %d entries, want 1 reused entry", len(entries))
	}
	if _, err := os.Stat(filepath.Join(cache, entries[0].Name(), "shallow")); err != nil {
		t.Errorf("cache entry is not a shallow fetch: %v", err)
	}
	// A read with nothing new upstream does not download a pack (no re-clone).
	posts := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r, "POST ") && strings.Contains(r, "git-upload-pack") {
				n++
			}
		}
		return n
	}
	before := posts()
	if _, _, err := c.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "clusters"); err != nil {
		t.Fatal(err)
	}
	if after := posts(); after != before {
		t.Errorf("an up-to-date read downloaded a pack (%d upload-pack POSTs)", after-before)
	}

	if _, _, err := c.ReadTree(ctx, srv.RepoURL("missing.git"), "main", "."); !errors.Is(err, gitrepo.ErrRepositoryNotFound) {
		t.Errorf("missing repo over http: %v", err)
	}
	if _, _, err := c.ReadTree(ctx, srv.RepoURL("fleet.git"), "gone", "."); !errors.Is(err, gitrepo.ErrBranchNotFound) {
		t.Errorf("missing branch over http: %v", err)
	}

	// Rewrites: a github.com URL resolves to the test server.
	rw := &gitrepo.Client{CacheDir: cache, Auth: c.Auth, Rewrites: map[string]string{"https://github.com/org/": srv.URL + "/"}}
	if _, files, err := rw.ReadTree(ctx, "https://github.com/org/fleet.git", "main", "clusters/drone"); err != nil || string(files["README.md"]) != "drone v2" {
		t.Errorf("rewritten read: %v %v", err, slices.Sorted(maps.Keys(files)))
	}
}
