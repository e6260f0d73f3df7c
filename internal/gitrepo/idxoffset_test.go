// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestIdxOffsetAgreesWithGoGit: the store's lookup of an object in a pack index finds every object of
// the pack at the offset go-git's MemoryIndex.FindOffset gives, and nothing for ids the pack does not hold
// (ids next to held ones, sharing their first bytes, included).
func TestIdxOffsetAgreesWithGoGit(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{}
	for i := range 3000 {
		files[fmt.Sprintf("ct-%02d/app-%03d/f.yaml", i%30, i)] = []byte(fmt.Sprintf("kind: ConfigMap # %d\n", i))
	}
	tree, err := NewTreeFromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	ts := NewTreeStore(filepath.Join(t.TempDir(), "trees"))
	if err := ts.Put(tree); err != nil {
		t.Fatal(err)
	}
	if len(ts.packs) != 1 {
		t.Fatalf("%d packs, want 1", len(ts.packs))
	}
	for _, p := range ts.packs {
		found := 0
		for k := range p.idx.Names {
			names := p.idx.Names[k]
			for j := 0; j+hashLen <= len(names); j += hashLen {
				var h plumbing.Hash
				copy(h[:], names[j:j+hashLen])
				want, err := p.idx.FindOffset(h)
				if err != nil {
					t.Fatal(err)
				}
				if got, ok := idxOffset(p.idx, h); !ok || got != want {
					t.Fatalf("%s: offset %d, %v; go-git says %d", h, got, ok, want)
				}
				found++
				for _, d := range []int{hashLen - 1, 7, 8} { // ids next to it: the last byte, around the 8-byte key
					near := h
					near[d]++
					if _, err := p.idx.FindOffset(near); err == nil {
						continue // the pack holds that one too
					}
					if off, ok := idxOffset(p.idx, near); ok {
						t.Fatalf("%s is not in the pack, but idxOffset finds it at %d", near, off)
					}
				}
			}
		}
		if found < 3000 {
			t.Fatalf("looked up %d objects, want at least the 3000 blobs", found)
		}
	}
}
