// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
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
		{"smart-http", srv.RepoURL, &gitrepo.Client{CacheDir: b.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: "t"}}},
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

// fleetFiles returns a desired tree shaped like one environment of the 86k fleetgen preset: cts
// cluster-type directories of perCT deployment-target directories holding three small manifests each
// (3*cts*perCT blobs, cts*perCT + cts + 1 trees).
func fleetFiles(cts int) map[string][]byte {
	const perCT = 290 // targets per cluster type, as the 86k fleet
	files := make(map[string][]byte, 3*cts*perCT)
	for c := 0; c < cts; c++ {
		for t := 0; t < perCT; t++ {
			dir := fmt.Sprintf("cluster-type-%03d/app-%03d-target-%03d", c, t%37, t)
			files[dir+"/namespace.yaml"] = []byte(fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev-app-%03d-%03d-%03d\n  labels:\n    environment: dev\n    workspace: team-%d\n", c, t%37, t, t%11))
			files[dir+"/config.yaml"] = []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: dev-app-%03d-%03d-%03d\ndata:\n  CLUSTER_TYPE: cluster-type-%03d\n  REGION: region-%d\n  REPLICAS: \"%d\"\n  DB_URL: postgres://db-%d.internal:5432/app\n", c, t%37, t, c, c%5, 1+t%4, t%13))
			files[dir+"/reconciler.yaml"] = []byte(fmt.Sprintf("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: app-%03d-target-%03d\n  namespace: flux-system\nspec:\n  interval: 30s\n  url: https://github.com/example/app-%03d-gitops\n  ref:\n    branch: dev\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app-%03d-target-%03d\n  namespace: flux-system\nspec:\n  interval: 30s\n  prune: true\n  path: ./cluster-type-%03d/target-%03d\n  sourceRef:\n    kind: GitRepository\n    name: app-%03d-target-%03d\n", t%37, t, t%37, t%37, t, c, t, t%37, t))
		}
	}
	return files
}

// BenchmarkFirstApply350k measures the first delivery of a whole environment at the scale of the 86k
// preset (261k blobs, 87k trees, one commit: about 348k new objects in one pack) into a branch holding
// only a README: hashing, trees, the pack, and for smart-http the push of every object to git
// http-backend. The push_s metric is the push alone.
// Run: go test ./internal/gitrepo -run '^$' -bench FirstApply350k -benchtime 1x -count 3
func BenchmarkFirstApply350k(b *testing.B) {
	files := fleetFiles(300)
	root := b.TempDir()
	srv := gitserver.Start(b, root, gitserver.Options{Token: "t"})
	for _, tc := range []struct {
		name   string
		url    func(repo string) string
		client func() *gitrepo.Client
	}{
		{"file", func(repo string) string { return "file://" + root + "/" + repo }, func() *gitrepo.Client { return &gitrepo.Client{CacheDir: b.TempDir()} }},
		{"smart-http", srv.RepoURL, func() *gitrepo.Client {
			return &gitrepo.Client{CacheDir: b.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: "t"}}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var push time.Duration
			var cpu, serverCPU float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				name := fmt.Sprintf("%s-%d-%d.git", tc.name, i, time.Now().UnixNano())
				repo := gitserver.NewSeededRepo(b, root, name, "main", map[string]string{"README.md": "outside"})
				c := tc.client()
				c.Debug = func(_ context.Context, msg string, fields map[string]any) {
					if msg == "git push" {
						ms, _ := fields["duration_ms"].(int64)
						push += time.Duration(ms) * time.Millisecond
					}
				}
				ctx := context.Background()
				req := gitrepo.ApplyRequest{RepoURL: tc.url(name), Branch: "main", Path: "gitops", Files: files}
				if _, err := c.Snapshot(ctx, req.RepoURL, "main", "gitops", nil); err != nil { // the plan's read warms the cache
					b.Fatal(err)
				}
				cpuBefore, childrenBefore := proccpu.Seconds(), proccpu.ChildrenSeconds()
				b.StartTimer()
				res, err := c.Apply(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += proccpu.Seconds() - cpuBefore
				serverCPU += proccpu.ChildrenSeconds() - childrenBefore
				if !res.Pushed || len(res.Changes.Added) != len(files) {
					b.Fatalf("pushed %v, %d files added, want %d", res.Pushed, len(res.Changes.Added), len(files))
				}
				if n := gitserver.CommitCount(b, repo, "main"); n != 2 {
					b.Fatalf("%d commits, want 2", n)
				}
				_ = os.RemoveAll(repo)
				b.StartTimer()
			}
			b.ReportMetric(push.Seconds()/float64(b.N), "push_s/op")
			// CPU time stays comparable on a loaded machine; git-cpu_s is git http-backend's (receive-pack,
			// index-pack), the in-process HTTP handler counts in cpu_s.
			b.ReportMetric(cpu/float64(b.N), "cpu_s/op")
			b.ReportMetric(serverCPU/float64(b.N), "git-cpu_s/op")
		})
	}
}

// BenchmarkWritePack350k measures the write alone of BenchmarkFirstApply350k's objects (348k: 261k
// blobs, 87k trees) as one pack with its index into a bare repository, once they are staged.
// Run: go test ./internal/gitrepo -run '^$' -bench WritePack350k -benchtime 1x -count 3
func BenchmarkWritePack350k(b *testing.B) {
	files := fleetFiles(300)
	var cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		repo := gitserver.NewBareRepo(b, b.TempDir(), "r.git", "main")
		n, write, err := gitrepo.StagePack(repo, "gitops", files)
		if err != nil {
			b.Fatal(err)
		}
		cpuBefore := proccpu.Seconds()
		b.StartTimer()
		if err := write(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += proccpu.Seconds() - cpuBefore
		b.ReportMetric(cpu/float64(i+1), "cpu_s/op")
		b.ReportMetric(float64(n), "objects")
		b.ReportMetric(float64(dirSize(b, filepath.Join(repo, "objects", "pack")))/(1<<20), "pack_MiB")
		b.StartTimer()
	}
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkTreeStore260k: what keeping a whole environment's desired tree (300 cluster types × 290
// targets × 3 files, as the 86k fleet) costs a plan (Put into an empty store, then Put of the same tree
// changed in one file, as a plan of a small change), and what loading it costs the apply (Load).
func BenchmarkTreeStore260k(b *testing.B) {
	files := fleetFiles(treeStoreCTs)
	t, err := gitrepo.NewTreeFromFiles(files)
	if err != nil {
		b.Fatal(err)
	}
	files["ct-0/app-0/reconciler.yaml"] = []byte("changed\n")
	changed, err := gitrepo.NewTreeFromFiles(files)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "trees")
		start := time.Now()
		if err := gitrepo.NewTreeStore(dir).Put(t); err != nil {
			b.Fatal(err)
		}
		put := time.Since(start)
		start = time.Now()
		if err := gitrepo.NewTreeStore(dir).Put(changed); err != nil {
			b.Fatal(err)
		}
		putSmall := time.Since(start)
		start, cpu := time.Now(), proccpu.Seconds()
		if _, err := gitrepo.NewTreeStore(dir).Tree(changed.ID()); err != nil {
			b.Fatal(err)
		}
		load, loadCPU := time.Since(start), proccpu.Seconds()-cpu
		b.ReportMetric(put.Seconds(), "put-s")
		b.ReportMetric(putSmall.Seconds(), "put-small-s")
		b.ReportMetric(load.Seconds(), "load-s")
		b.ReportMetric(loadCPU, "load-cpu-s")
		b.ReportMetric(float64(dirSize(b, dir))/(1<<20), "store-MiB")
	}
}

// treeStoreCTs is 300 (the 86k fleet); a profile of BenchmarkTreeStore260k may lower it.
var treeStoreCTs = 300

// BenchmarkNewTreeFromFiles260k measures what a plan pays to turn the render's 261k files (the 86k
// fleet's shape) into the desired tree: hashing every blob, the directories and the tree objects.
// Run: go test ./internal/gitrepo -run '^$' -bench NewTreeFromFiles260k -benchtime 3x
func BenchmarkNewTreeFromFiles260k(b *testing.B) {
	files := fleetFiles(300)
	b.ResetTimer()
	cpu := proccpu.Seconds()
	for i := 0; i < b.N; i++ {
		if _, err := gitrepo.NewTreeFromFiles(files); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((proccpu.Seconds()-cpu)/float64(b.N), "cpu_s/op")
}
