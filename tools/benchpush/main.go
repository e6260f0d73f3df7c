// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Command benchpush times the delivery of a rendered GitOps tree with the same Git code as
// kalypso_gitops_commit (internal/gitrepo): a first push of the whole tree into an empty local bare
// repository, a no-op apply, then a push that changes one file. benchmarks/compare.sh runs it on the
// fleets whose trees are too large to go through one kalypso_gitops_commit comfortably.
//
//	go run ./tools/benchpush -fleet /tmp/fleet-10k -repo /tmp/push-10k.git
//
// It prints one CSV line: files,render_s,first_push_s,noop_apply_s,one_file_push_s.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

func main() {
	fleetDir := flag.String("fleet", "", "directory of fleetgen YAML (every *.yaml below it is read, in path order)")
	repo := flag.String("repo", "", "bare repository to create (must not exist)")
	environment := flag.String("environment", "dev", "environment to render")
	flag.Parse()
	if *fleetDir == "" || *repo == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*fleetDir, *repo, *environment); err != nil {
		fmt.Fprintln(os.Stderr, "benchpush:", err)
		os.Exit(1)
	}
}

func readManifests(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			paths = append(paths, p)
		}
		return err
	})
	sort.Strings(paths)
	manifests := make([]string, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		manifests[i] = string(b)
	}
	return manifests, err
}

func run(fleetDir, repo, environment string) error {
	manifests, err := readManifests(fleetDir)
	if err != nil {
		return err
	}
	start := time.Now()
	res, diags := render.NewEngine().Render(environment, manifests, render.Options{})
	if diags.HasError() {
		return fmt.Errorf("render: %v", diags.Errors())
	}
	renderTime := time.Since(start)

	// The benchmark's own fixture set-up may use the git CLI; the product never does.
	if out, err := exec.Command("git", "init", "--quiet", "--bare", "--initial-branch=main", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	files := make(map[string][]byte, len(res.Files))
	for p, c := range res.Files {
		files[p] = []byte(c)
	}
	cache, err := os.MkdirTemp("", "benchpush-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	client := &gitrepo.Client{CacheDir: cache}
	req := gitrepo.ApplyRequest{
		RepoURL: "file://" + repo, Branch: "main", Path: ".", Files: files, Message: "benchpush",
		Author: gitrepo.Signature{Name: "bench", Email: "bench@example.com"},
	}
	ctx := context.Background()
	apply := func(wantChanged int) (time.Duration, error) {
		start := time.Now()
		got, err := client.Apply(ctx, req)
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		changed := len(got.Changes.Added) + len(got.Changes.Modified) + len(got.Changes.Removed)
		if changed != wantChanged {
			return took, fmt.Errorf("apply changed %d files, want %d", changed, wantChanged)
		}
		return took, nil
	}
	first, err := apply(len(files))
	if err != nil {
		return fmt.Errorf("first push: %w", err)
	}
	noop, err := apply(0)
	if err != nil {
		return fmt.Errorf("no-op apply: %w", err)
	}
	one := res.Assignments[len(res.Assignments)/2].Path + "/namespace.yaml"
	files[one] = append(files[one], "# changed by benchpush\n"...)
	incremental, err := apply(1)
	if err != nil {
		return fmt.Errorf("one-file push: %w", err)
	}
	fmt.Printf("%d,%.3f,%.3f,%.3f,%.3f\n", len(files), renderTime.Seconds(), first.Seconds(), noop.Seconds(), incremental.Seconds())
	return nil
}
