// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"fmt"
	gohash "hash"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	githash "github.com/go-git/go-git/v5/plumbing/hash"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
)

// A plan compares a whole environment (260k files in 87k trees at the 86k fleet) with what the branch
// holds. Git names every tree by its content, so a subtree whose id equals the desired one holds exactly
// the desired files: the comparison descends only where ids differ, and a model change that touches one
// assignment reads a handful of trees instead of all of them.

// Tree is a desired set of managed files with the Git id of every directory.
type Tree struct {
	root  *dirNode // leaves hold their content, nodes their encoded trees
	files int
	// blobs (path → blob id) is built on the first diffListed only: building it for every plan was 260k
	// map entries and hex ids at 86k, and the diff of a branch descends the trees instead.
	blobsOnce sync.Once
	blobs     map[string]string
}

// blobIDs is the desired blob id of every file by path.
func (t *Tree) blobIDs() map[string]string {
	t.blobsOnce.Do(func() {
		t.blobs = make(map[string]string, t.files)
		var walk func(n *dirNode, prefix string)
		walk = func(n *dirNode, prefix string) {
			for name, l := range n.leaves {
				t.blobs[joinRel(prefix, name)] = l.Hash.String()
			}
			for name, d := range n.dirs {
				walk(d, joinRel(prefix, name))
			}
		}
		walk(t.root, "")
	})
	return t.blobs
}

// NewTreeFromFiles is the tree that files (names relative to a path → content) form under that path.
// Nothing is stored. It keeps the content and the encoded trees, so that an apply in the same process
// writes it (ApplyRequest.Tree) without building it again. files must not be modified afterwards.
func NewTreeFromFiles(files map[string][]byte) (*Tree, error) {
	names, contents := make([]string, 0, len(files)), make([][]byte, 0, len(files))
	for name, content := range files {
		names, contents = append(names, name), append(contents, content)
	}
	ids := make([]plumbing.Hash, len(names))
	const chunk = 1024
	parallel.For((len(names)+chunk-1)/chunk, 0, func(c int) {
		h := newBlobHasher()
		for i := c * chunk; i < min(len(names), (c+1)*chunk); i++ {
			ids[i] = h.id(contents[i])
		}
	})
	node, err := buildDirs(names, contents, ids)
	if err != nil {
		return nil, err
	}
	if err := node.encodeParallel(nil); err != nil {
		return nil, err
	}
	return &Tree{root: node, files: len(names)}, nil
}

// buildDirs places every file in its directory. The top-level directories (a GitOps tree's cluster
// types) are built on every core, each from its own files: at 300k assignments a plan places 900k files
// in 300k directories, and one goroutine doing it was most of building the tree. The files at the top
// level go in first, so that a name that is both a file and a directory is found wherever it is.
func buildDirs(names []string, contents [][]byte, ids []plumbing.Hash) (*dirNode, error) {
	node := newDirNode()
	byTop := map[string][]int{}
	var tops []string
	for i, name := range names {
		j := strings.IndexByte(name, '/')
		if j < 0 {
			if err := placeFile(node, nil, name, contents[i], ids[i]); err != nil {
				return nil, err
			}
			continue
		}
		top := name[:j]
		if _, ok := byTop[top]; !ok {
			tops = append(tops, top)
		}
		byTop[top] = append(byTop[top], i)
	}
	subs := make([]*dirNode, len(tops))
	errs := make([]error, len(tops))
	parallel.For(len(tops), 0, func(k int) {
		// Each group builds below a root of its own, with the whole path, so that its errors name it.
		groupRoot := newDirNode()
		dirs := map[string]*dirNode{}
		for _, i := range byTop[tops[k]] {
			if errs[k] = placeFile(groupRoot, dirs, names[i], contents[i], ids[i]); errs[k] != nil {
				return
			}
		}
		subs[k] = groupRoot.dirs[tops[k]]
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for k, top := range tops {
		if _, clash := node.leaves[top]; clash {
			return nil, withClass(ErrInvalidInput, fmt.Errorf("%q is both a file and a directory", top))
		}
		node.dirs[top] = subs[k]
	}
	return node, nil
}

// placeFile adds the file name with its content and blob id below root, finding its directory in dirs
// (by path) when it is not nil.
func placeFile(root *dirNode, dirs map[string]*dirNode, name string, content []byte, id plumbing.Hash) error {
	if err := ValidateFileName(name); err != nil {
		return err
	}
	if content == nil {
		content = []byte{} // nil content marks an entry kept as is (leaf)
	}
	// Most files share their directory with others: find it by its path rather than segment by segment.
	dir, base := "", name
	if j := strings.LastIndexByte(name, '/'); j >= 0 {
		dir, base = name[:j], name[j+1:]
	}
	d := root
	if dir != "" {
		if d = dirs[dir]; d == nil {
			var err error
			if d, err = root.mkdirs(dir); err != nil {
				return err
			}
			dirs[dir] = d
		}
	}
	return d.addLeaf(name, base, leaf{entryInfo: entryInfo{Mode: filemode.Regular, Hash: id}, content: content})
}

// blobHasher computes blob ids with one hash state, reset for each blob: plumbing.ComputeHash allocates a
// state and a header per object. It uses go-git's hash (SHA-1 with collision detection) as ComputeHash does.
type blobHasher struct {
	h        gohash.Hash
	hdr, sum []byte
}

func newBlobHasher() *blobHasher { return &blobHasher{h: githash.New(githash.CryptoType)} }

// id is the Git id of content as a blob.
func (b *blobHasher) id(content []byte) plumbing.Hash {
	b.h.Reset()
	b.hdr = append(strconv.AppendInt(append(b.hdr[:0], "blob "...), int64(len(content)), 10), 0)
	_, _ = b.h.Write(b.hdr)
	_, _ = b.h.Write(content)
	b.sum = b.h.Sum(b.sum[:0])
	var id plumbing.Hash
	copy(id[:], b.sum)
	return id
}

// ID is the tree's Git id: what Inspection.ManagedTree reads once the files are delivered.
func (t *Tree) ID() string { return t.root.hash.String() }

// Delta is a file under the path that the desired tree adds, changes or removes.
type Delta struct {
	// Path is relative to the inspected path.
	Path string
	// Old is the branch's entry; its Hash is "" when the file is new.
	Old Entry
	// New is the desired blob id; "" when the file goes away.
	New string
}

// Diff lists, sorted by path, the files under the inspected path (dot-entries at its root excluded) that
// differ between the branch and want: absent, of another content, or not a regular file. It reads only
// the trees whose ids differ from want's.
func (ins *Inspection) Diff(want *Tree) ([]Delta, error) {
	if ins.ManagedTree == want.ID() {
		return nil, nil
	}
	var out []Delta
	if len(ins.Managed) == 0 && (ins.client == nil || ins.listed || ins.sub.IsZero()) {
		// Nothing under the path (a first delivery): every desired file is new, listed in order by a walk
		// of the desired tree, without a map of 900k paths to sort afterwards.
		return want.creates(), nil
	}
	if ins.client == nil || ins.listed || ins.sub.IsZero() {
		out = diffListed(ins.Managed, want.blobIDs())
	} else {
		s, err := ins.client.open(ins.repoURL)
		if err != nil {
			return nil, err
		}
		defer s.close()
		d := &differ{get: func(h plumbing.Hash) (*object.Tree, error) { return object.GetTree(s.repo.Storer, h) }}
		if err := d.dir(want.root, ins.sub, "", true); err != nil {
			return nil, err
		}
		out = d.out
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// creates lists every file of t as new, sorted by path: a walk in Git's entry order (a directory's name
// sorts as if it ended in a slash) visits the paths in byte order.
func (t *Tree) creates() []Delta {
	out := make([]Delta, 0, t.files)
	var walk func(n *dirNode, prefix string)
	walk = func(n *dirNode, prefix string) {
		entries := make([]rawTreeEntry, 0, len(n.leaves)+len(n.dirs))
		for name, l := range n.leaves {
			entries = append(entries, rawTreeEntry{name: name, mode: l.Mode, hash: l.Hash})
		}
		for name := range n.dirs {
			entries = append(entries, rawTreeEntry{name: name, mode: filemode.Dir})
		}
		slices.SortFunc(entries, func(a, b rawTreeEntry) int {
			return compareTreeNames(a.name, a.mode == filemode.Dir, b.name, b.mode == filemode.Dir)
		})
		for _, e := range entries {
			if e.mode == filemode.Dir {
				walk(n.dirs[e.name], joinRel(prefix, e.name))
				continue
			}
			out = append(out, Delta{Path: joinRel(prefix, e.name), New: e.hash.String()})
		}
	}
	walk(t.root, "")
	return out
}

// diffListed compares a full listing of the branch with the desired blobs.
func diffListed(managed map[string]Entry, want map[string]string) []Delta {
	var out []Delta
	for name, id := range want {
		cur, ok := managed[name]
		if !ok || cur.Hash != id || cur.Mode != filemode.Regular {
			out = append(out, Delta{Path: name, Old: cur, New: id})
		}
	}
	for name, cur := range managed {
		if _, ok := want[name]; !ok {
			out = append(out, Delta{Path: name, Old: cur})
		}
	}
	return out
}

type differ struct {
	get func(plumbing.Hash) (*object.Tree, error)
	out []Delta
}

// dir compares the desired directory n (nil: none) with the branch's tree cur (zero: none) at prefix.
// At the top, the branch's dot-entries are not managed and are skipped.
func (d *differ) dir(n *dirNode, cur plumbing.Hash, prefix string, top bool) error {
	if n != nil && !cur.IsZero() && n.hash == cur {
		return nil
	}
	var entries []object.TreeEntry
	if !cur.IsZero() {
		t, err := d.get(cur)
		if err != nil {
			return err
		}
		entries = t.Entries
	}
	if n == nil {
		n = newDirNode()
	}
	onBranch := make(map[string]filemode.FileMode, len(entries))
	for _, e := range entries {
		if top && isDotEntry(e.Name) {
			continue
		}
		onBranch[e.Name] = e.Mode
		p := joinRel(prefix, e.Name)
		if e.Mode == filemode.Dir {
			// A directory the desired tree lacks (or has as a file, created below) loses every file.
			if err := d.dir(n.dirs[e.Name], e.Hash, p, false); err != nil {
				return err
			}
			continue
		}
		old := Entry{Hash: e.Hash.String(), Mode: e.Mode}
		l, ok := n.leaves[e.Name]
		switch {
		case !ok:
			d.out = append(d.out, Delta{Path: p, Old: old})
		case l.Hash != e.Hash || e.Mode != filemode.Regular:
			d.out = append(d.out, Delta{Path: p, Old: old, New: l.Hash.String()})
		}
	}
	for name, l := range n.leaves {
		if m, ok := onBranch[name]; !ok || m == filemode.Dir {
			d.out = append(d.out, Delta{Path: joinRel(prefix, name), New: l.Hash.String()})
		}
	}
	for name, sub := range n.dirs {
		if m, ok := onBranch[name]; !ok || m != filemode.Dir {
			if err := d.dir(sub, plumbing.ZeroHash, joinRel(prefix, name), false); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinRel(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}
