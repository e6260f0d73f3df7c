// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// BenchmarkIncrementalPush20k measures one Apply of a 20,000-file desired set
// that differs from the branch head by one file: fetch, hash, build trees, one
// commit, push. Run: go test ./internal/gitrepo -run '^$' -bench IncrementalPush20k -benchtime 20x
func BenchmarkIncrementalPush20k(b *testing.B) {
	const dirs, perDir = 200, 100
	seed := make(map[string]string, dirs*perDir+2)
	desired := make(map[string][]byte, dirs*perDir)
	for d := 0; d < dirs; d++ {
		for f := 0; f < perDir; f++ {
			name := fmt.Sprintf("cluster-type-%03d/target-%03d/reconciler.yaml", d, f)
			content := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t-%d-%d\n", d, f)
			seed["gitops/"+name] = content
			desired[name] = []byte(content)
		}
	}
	seed["README.md"] = "outside"
	counter := 0
	root := b.TempDir()
	srv := gitserver.Start(b, root, gitserver.Options{Token: "t"})
	for _, tc := range []struct {
		name   string
		url    func(repo string) string
		client *gitrepo.Client
	}{
		{"file", func(repo string) string { return "file://" + root + "/" + repo }, &gitrepo.Client{CacheDir: b.TempDir()}},
		{"smart-http", srv.RepoURL, &gitrepo.Client{CacheDir: b.TempDir(), Auth: gitrepo.Auth{Token: "t"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			repo := gitserver.NewSeededRepo(b, root, tc.name+".git", "main", seed)
			req := gitrepo.ApplyRequest{RepoURL: tc.url(tc.name + ".git"), Branch: "main", Path: "gitops", Files: desired}
			ctx := context.Background()
			if _, err := tc.client.Apply(ctx, req); err != nil { // warm the cache: no change
				b.Fatal(err)
			}
			before := gitserver.CommitCount(b, repo, "main")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				counter++
				desired["cluster-type-007/target-042/reconciler.yaml"] = []byte(fmt.Sprintf("changed %d\n", counter))
				res, err := tc.client.Apply(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if !res.Pushed || len(res.Changes.Modified) != 1 {
					b.Fatalf("expected a one-file commit: %+v", res.Changes)
				}
			}
			b.StopTimer()
			if got := gitserver.CommitCount(b, repo, "main"); got != before+b.N {
				b.Fatalf("commits %d, want %d", got, before+b.N)
			}
		})
	}
}

// BenchmarkRefreshRead20k measures the refresh read of kalypso_gitops_commit (Snapshot: fetch
// check plus reading every managed file) on a 20,000-file path over smart HTTP with a warm cache.
// Run: go test ./internal/gitrepo -run '^$' -bench RefreshRead20k -benchtime 10x
func BenchmarkRefreshRead20k(b *testing.B) {
	seed := make(map[string]string, 20000)
	for d := 0; d < 200; d++ {
		for f := 0; f < 100; f++ {
			seed[fmt.Sprintf("gitops/ct-%03d/t-%03d/reconciler.yaml", d, f)] = fmt.Sprintf("name: t-%d-%d\n", d, f)
		}
	}
	root := b.TempDir()
	gitserver.NewSeededRepo(b, root, "r.git", "main", seed)
	srv := gitserver.Start(b, root, gitserver.Options{})
	c := &gitrepo.Client{CacheDir: b.TempDir()}
	ctx := context.Background()
	if _, err := c.Snapshot(ctx, srv.RepoURL("r.git"), "main", "gitops", nil); err != nil {
		b.Fatal(err)
	}
	// read-all reads every blob; known passes the delivered content, as kalypso_gitops_commit's refresh
	// does, so that only changed files are read.
	known := make(map[string]string, len(seed))
	for p, v := range seed {
		known[p[len("gitops/"):]] = v
	}
	for _, mode := range []struct {
		name  string
		known map[string]string
	}{{"read-all", nil}, {"known", known}} {
		b.Run(mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				snap, err := c.SnapshotKnown(ctx, srv.RepoURL("r.git"), "main", "gitops", []string{".github/tracking/Promoted_Commit_Id"}, mode.known)
				if err != nil || len(snap.Files) != 20000 {
					b.Fatalf("%v %d", err, len(snap.Files))
				}
			}
		})
	}
}
