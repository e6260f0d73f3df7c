// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// LogDirs tells, commit by commit, the tree id of each folder under a path: a folder's id changes exactly
// where its content did. Over smart HTTP the shallow cache is deepened to the history asked for.
func TestLogDirs_FolderIDsPerCommit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare := gitserver.NewBareRepo(t, root, "g.git", "dev")
	c1 := gitserver.Commit(t, bare, "dev", "both", map[string]string{"clusters/a/x.yaml": "1", "clusters/b/x.yaml": "1", "clusters/README.md": "r"}, nil)
	c2 := gitserver.Commit(t, bare, "dev", "a", map[string]string{"clusters/a/x.yaml": "2"}, nil)
	c3 := gitserver.Commit(t, bare, "dev", "outside", map[string]string{"other/y.yaml": "1"}, nil)
	srv := gitserver.Start(t, root, gitserver.Options{})
	for name, url := range map[string]string{"file": "file://" + bare, "http": srv.RepoURL(filepath.Base(bare))} {
		t.Run(name, func(t *testing.T) {
			c := &gitrepo.Client{CacheDir: t.TempDir()}
			if _, err := c.Inspect(context.Background(), gitrepo.InspectRequest{RepoURL: url, Branch: "dev", Path: "clusters"}); err != nil {
				t.Fatal(err) // a plan reads the head first: the HTTP cache is now shallow
			}
			log, complete, err := c.LogDirs(context.Background(), url, "dev", "clusters", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != 3 || !complete || log[0].Commit != c3 || log[1].Commit != c2 || log[2].Commit != c1 {
				t.Fatalf("log = %+v, complete %v", log, complete)
			}
			a, b := func(i int) string { return log[i].Dirs["a"] }, func(i int) string { return log[i].Dirs["b"] }
			if len(log[0].Dirs) != 2 || a(0) != a(1) || a(1) == a(2) || b(0) != b(1) || b(1) != b(2) || a(0) == "" {
				t.Errorf("dirs = %v / %v / %v", log[0].Dirs, log[1].Dirs, log[2].Dirs)
			}
			short, complete, err := c.LogDirs(context.Background(), url, "dev", "missing", 2)
			if err != nil || len(short) != 2 || complete || len(short[0].Dirs) != 0 {
				t.Errorf("a missing path, 2 commits: %+v %v %v", short, complete, err)
			}
		})
	}
}
