// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// wantDeltas is the file-by-file comparison of what the branch holds under the path (root dot-entries
// excluded) with the desired files, written out independently of the tree walk.
func wantDeltas(current, desired map[string]string) []gitrepo.Delta {
	var out []gitrepo.Delta
	for name, content := range desired {
		id := gitrepo.BlobID([]byte(content))
		old, ok := current[name]
		switch {
		case !ok:
			out = append(out, gitrepo.Delta{Path: name, New: id})
		case old != content:
			out = append(out, gitrepo.Delta{Path: name, Old: gitrepo.Entry{Hash: gitrepo.BlobID([]byte(old)), Mode: 0o100644}, New: id})
		}
	}
	for name, content := range current {
		if _, ok := desired[name]; !ok {
			out = append(out, gitrepo.Delta{Path: name, Old: gitrepo.Entry{Hash: gitrepo.BlobID([]byte(content)), Mode: 0o100644}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func desiredTree(t *testing.T, files map[string]string) *gitrepo.Tree {
	t.Helper()
	tree, err := gitrepo.NewTreeFromFiles(fixtures.Bytes(files))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// Diff walks only the trees whose ids differ; whatever it skips, it must find every changed file, as the
// plain comparison of the two listings does: creates, updates, deletes, a file that becomes a directory
// and back, a whole directory removed, and another resource's ownership record below the path.
func TestInspectionDiffFindsEveryChangedFile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	current := map[string]string{}
	for ct := 0; ct < 6; ct++ {
		for target := 0; target < 5; target++ {
			for _, f := range []string{"namespace.yaml", "platform-config.yaml", "reconciler.yaml"} {
				current[fmt.Sprintf("ct-%d/target-%d/%s", ct, target, f)] = fmt.Sprintf("%d-%d-%s", ct, target, f)
			}
		}
	}
	current["top.yaml"] = "top"
	current["swap/leaf"] = "a file inside a directory that becomes a file"
	current["nested/.kalypso-gitops-commit"] = "other resource"
	outside := map[string]string{"README.md": "outside", "gitops/.flux/keep.yaml": "root dot-entry, never managed"}
	files := map[string]string{}
	for k, v := range outside {
		files[k] = v
	}
	for k, v := range current {
		files["gitops/"+k] = v
	}
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "r.git", "main", files)
	client := &gitrepo.Client{CacheDir: t.TempDir()}

	cases := map[string]map[string]string{"unchanged": current}
	mutate := func(name string, f func(m map[string]string)) {
		m := map[string]string{}
		for k, v := range current {
			m[k] = v
		}
		f(m)
		cases[name] = m
	}
	mutate("one file updated", func(m map[string]string) { m["ct-3/target-2/reconciler.yaml"] = "changed" })
	mutate("one assignment added", func(m map[string]string) {
		for _, f := range []string{"namespace.yaml", "platform-config.yaml", "reconciler.yaml"} {
			m["ct-1/target-9/"+f] = "new " + f
		}
	})
	mutate("a cluster type removed", func(m map[string]string) {
		for k := range m {
			if len(k) > 5 && k[:5] == "ct-4/" {
				delete(m, k)
			}
		}
	})
	mutate("file becomes directory, directory becomes file", func(m map[string]string) {
		delete(m, "top.yaml")
		m["top.yaml/inner"] = "now a directory"
		delete(m, "swap/leaf")
		m["swap"] = "now a file"
	})
	mutate("everything gone", func(m map[string]string) {
		for k := range m {
			delete(m, k)
		}
	})
	mutate("random", func(m map[string]string) {
		for k := range m {
			switch rng.Intn(5) {
			case 0:
				delete(m, k)
			case 1:
				m[k] = "edited " + k
			}
		}
		for i := 0; i < 10; i++ {
			m[fmt.Sprintf("ct-%d/new-%d/file.yaml", rng.Intn(8), i)] = "added"
		}
	})

	for name, desired := range cases {
		t.Run(name, func(t *testing.T) {
			want := wantDeltas(current, desired)
			tree := desiredTree(t, desired)
			for _, listFiles := range []bool{false, true} {
				ins, err := client.Inspect(context.Background(), gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: "gitops", ListFiles: listFiles})
				if err != nil {
					t.Fatal(err)
				}
				got, err := ins.Diff(tree)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ListFiles=%v: Diff found\n%v\nwant\n%v", listFiles, got, want)
				}
			}
		})
	}
}

// A path that does not exist on the branch: every desired file is new.
func TestInspectionDiffOfAMissingPath(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "r.git", "main", map[string]string{"README.md": "x"})
	ins, err := (&gitrepo.Client{CacheDir: t.TempDir()}).Inspect(context.Background(), gitrepo.InspectRequest{RepoURL: "file://" + repo, Branch: "main", Path: "gitops"})
	if err != nil {
		t.Fatal(err)
	}
	desired := map[string]string{"a/b.yaml": "b", "c.yaml": "c"}
	got, err := ins.Diff(desiredTree(t, desired))
	if err != nil {
		t.Fatal(err)
	}
	if want := wantDeltas(nil, desired); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// An apply given the tree its plan built (ApplyRequest.Tree) writes exactly what an apply that builds it
// from Files writes: same commit tree, dot-entries at the path's root kept, the empty file included.
func TestApplyWithThePlannedTreeWritesTheSameTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	seed := map[string]string{"README.md": "outside", "gitops/.sops.yaml": "kept", "gitops/old/x.yaml": "removed", "gitops/a/keep.yaml": "same"}
	files := map[string][]byte{"a/keep.yaml": []byte("same"), "a/new.yaml": []byte("new"), "b/c/d.yaml": []byte("deep"), "empty.yaml": nil}
	trees := map[bool]string{}
	for _, withTree := range []bool{false, true} {
		name := fmt.Sprintf("r-%v.git", withTree)
		repo := gitserver.NewSeededRepo(t, root, name, "main", seed)
		req := gitrepo.ApplyRequest{RepoURL: "file://" + repo, Branch: "main", Path: "gitops", Message: "m",
			Author: gitrepo.Signature{Name: "Bot", Email: "bot@example.com"}, Files: files}
		if withTree {
			tree, err := gitrepo.NewTreeFromFiles(files)
			if err != nil {
				t.Fatal(err)
			}
			req.Tree = tree
		}
		if _, err := (&gitrepo.Client{CacheDir: t.TempDir()}).Apply(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		trees[withTree] = gitserver.Git(t, "", nil, "--git-dir", repo, "rev-parse", "main^{tree}")
		got := gitserver.Files(t, repo, "main")
		want := map[string]string{"README.md": "outside", "gitops/.sops.yaml": "kept", "gitops/a/keep.yaml": "same", "gitops/a/new.yaml": "new", "gitops/b/c/d.yaml": "deep", "gitops/empty.yaml": ""}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("withTree=%v: branch holds %v, want %v", withTree, got, want)
		}
		if out := gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict"); strings.Contains(out, "error") {
			t.Errorf("withTree=%v: git fsck: %s", withTree, out)
		}
	}
	if trees[false] != trees[true] {
		t.Errorf("root trees differ: built from files %s, from the planned tree %s", trees[false], trees[true])
	}
}

// TestNewTreeFromFilesRefusesAFileThatIsADirectory: a name that is both a file and a directory of
// another file is invalid input naming that path, whichever of the two comes first (map order varies),
// and at any depth.
func TestNewTreeFromFilesRefusesAFileThatIsADirectory(t *testing.T) {
	t.Parallel()
	for _, files := range []map[string]string{
		{"a/b": "file", "a/b/c.yaml": "below it"},
		{"a": "file", "a/b/c.yaml": "below it"},
		{"x/y/z": "file", "x/y/z/w/v.yaml": "below it", "x/y/other.yaml": "beside it"},
	} {
		for range 20 {
			_, err := gitrepo.NewTreeFromFiles(fixtures.Bytes(files))
			if !errors.Is(err, gitrepo.ErrInvalidInput) || !strings.Contains(err.Error(), "is both a file and a directory") {
				t.Fatalf("%v: err = %v, want a file and directory clash", files, err)
			}
			var file string
			for name := range files {
				if strings.Count(name, "/") == 0 || name == "a/b" || name == "x/y/z" {
					file = name
				}
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", file)) {
				t.Fatalf("%v: err = %v, want it to name %q", files, err, file)
			}
		}
	}
}

// TestCompareTreeNames: entries sort as Git sorts them, by name with a slash after a directory's, so that
// "a.yaml" < "a/" (dir) < "a0", and a file "a" < "a.yaml" < a directory "a".
func TestCompareTreeNames(t *testing.T) {
	t.Parallel()
	type e struct {
		name string
		dir  bool
	}
	key := func(x e) string {
		if x.dir {
			return x.name + "/"
		}
		return x.name
	}
	all := []e{{"a", false}, {"a", true}, {"a.yaml", false}, {"a0", true}, {"a0", false}, {"a-b", true}, {"ab", false}, {"b", true}, {"", false}, {"a/", false}, {"\xff", false}, {"a\xff", true}}
	for _, x := range all {
		for _, y := range all {
			got := gitrepo.CompareTreeNames(x.name, x.dir, y.name, y.dir)
			want := strings.Compare(key(x), key(y))
			if (got < 0) != (want < 0) || (got == 0) != (want == 0) {
				t.Errorf("%+v vs %+v: %d, want the sign of %d", x, y, got, want)
			}
		}
	}
}
