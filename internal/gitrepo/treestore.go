// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Terraform plans and applies in separate provider processes: `terraform plan -out` in one, the apply of
// that plan in another, and even `terraform apply` starts a new process for its apply walk, which plans
// once more before it writes. Without help the second process renders the environment again (16 s of a
// 20 s apply at 86k assignments). A TreeStore keeps the desired tree a plan built, its trees and blobs,
// in a bare repository on local disk, so that the next process loads that tree instead of rendering it.
// Objects are content-addressed: a plan of a small change adds a small pack, not a second environment.

// ErrTreeNotStored means that the store does not hold the tree, or not all of it: the caller renders.
var ErrTreeNotStored = errors.New("the tree is not in the local tree store")

// Bounds of a TreeStore: past them the next Put starts it afresh (it is a cache; whatever is lost is
// rendered again).
const (
	treeStoreMaxPacks = 32
	treeStoreMaxBytes = 2 << 30
)

// TreeStore holds desired trees in packs on local disk (dir/objects/pack, as in a bare repository). It
// reads them itself: go-git's storage looks for a loose object file before each packed one, which made
// loading a whole environment take seconds. It is safe for concurrent use in one process; several
// processes may share one directory (every write is a pack and its index renamed into place).
type TreeStore struct {
	dir string

	mu    sync.Mutex
	packs map[string]*storePack // by pack name; nil until listed
	zr    io.ReadCloser         // a zlib reader, reused through Reset (zlib's readers implement zlib.Resetter)
}

// storePack is one pack of the store with its index.
type storePack struct {
	idx *idxfile.MemoryIndex
	f   *os.File
}

// NewTreeStore returns the store kept in dir, created on the first Put.
func NewTreeStore(dir string) *TreeStore { return &TreeStore{dir: dir} }

func (ts *TreeStore) packDir() string { return filepath.Join(ts.dir, "objects", "pack") }

// listPacks opens the packs (and their indexes) not opened yet. ts.mu must be held.
func (ts *TreeStore) listPacks() error {
	if ts.packs == nil {
		ts.packs = map[string]*storePack{}
	}
	idxs, err := filepath.Glob(filepath.Join(ts.packDir(), "pack-*.idx"))
	if err != nil {
		return err
	}
	for _, name := range idxs {
		base := strings.TrimSuffix(name, ".idx")
		if ts.packs[base] != nil {
			continue
		}
		f, err := os.Open(base + ".pack")
		if err != nil {
			continue // an index whose pack is not there (yet, or any more) holds nothing
		}
		idx := idxfile.NewMemoryIndex()
		b, err := os.ReadFile(name)
		if err == nil {
			err = idxfile.NewDecoder(bytes.NewReader(b)).Decode(idx)
		}
		if err != nil {
			_ = f.Close()
			continue // a damaged index: its objects are missing, so what needs them is rendered again
		}
		ts.packs[base] = &storePack{idx: idx, f: f}
	}
	return nil
}

// reset closes the packs; with remove it deletes the store. ts.mu must be held.
func (ts *TreeStore) reset(remove bool) error {
	for _, p := range ts.packs {
		_ = p.f.Close()
	}
	ts.packs = nil
	if remove {
		return os.RemoveAll(ts.dir)
	}
	return nil
}

// find returns the pack that holds h, or nil. ts.mu must be held, the packs listed.
func (ts *TreeStore) find(h plumbing.Hash) *storePack {
	for _, p := range ts.packs {
		if ok, _ := p.idx.Contains(h); ok {
			return p
		}
	}
	return nil
}

// read returns the type and content of object h (undeltified, as writePack writes them), checking its
// id. ts.mu must be held, the packs listed.
func (ts *TreeStore) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	p := ts.find(h)
	if p == nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, ErrTreeNotStored)
	}
	off, err := p.idx.FindOffset(h)
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, ErrTreeNotStored)
	}
	var hdr [16]byte
	n, err := p.f.ReadAt(hdr[:], off)
	if n == 0 {
		return 0, nil, fmt.Errorf("object %s: %w (%v)", h, ErrTreeNotStored, err)
	}
	typ := plumbing.ObjectType(hdr[0] >> 4 & 7)
	size, i, shift := int64(hdr[0]&0x0f), 1, 4
	for c := hdr[0]; c&0x80 != 0; i++ {
		if i >= n || shift > 56 {
			return 0, nil, fmt.Errorf("object %s: a damaged pack entry: %w", h, ErrTreeNotStored)
		}
		c = hdr[i]
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	if typ != plumbing.TreeObject && typ != plumbing.BlobObject || size > 1<<30 {
		return 0, nil, fmt.Errorf("object %s: a pack entry of type %s and %d bytes, which no tree store writes: %w", h, typ, size, ErrTreeNotStored)
	}
	src := io.NewSectionReader(p.f, off+int64(i), size+(size>>4)+1024)
	if r, ok := ts.zr.(zlib.Resetter); ok {
		err = r.Reset(src, nil)
	} else {
		ts.zr, err = zlib.NewReader(src)
	}
	content := make([]byte, size)
	if err == nil {
		_, err = io.ReadFull(ts.zr, content)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: a damaged pack entry (%v): %w", h, err, ErrTreeNotStored)
	}
	if got := plumbing.ComputeHash(typ, content); got != h {
		return 0, nil, fmt.Errorf("object %s is damaged in the tree store (its content hashes to %s): %w", h, got, ErrTreeNotStored)
	}
	return typ, content, nil
}

// overgrown reports a store past its bounds.
func (ts *TreeStore) overgrown() bool {
	packs, err := os.ReadDir(ts.packDir())
	if err != nil {
		return false
	}
	n, size := 0, int64(0)
	for _, p := range packs {
		if strings.HasSuffix(p.Name(), ".pack") {
			n++
			if fi, err := p.Info(); err == nil {
				size += fi.Size()
			}
		}
	}
	return n > treeStoreMaxPacks || size > treeStoreMaxBytes
}

// Put keeps t in the store. A tree the store holds is complete (a Put writes a tree in the same pack as
// everything below it that the store lacked), so Put descends only into trees the store lacks and
// writes what is new as one pack.
func (ts *TreeStore) Put(t *Tree) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.overgrown() {
		if err := ts.reset(true); err != nil {
			return err
		}
	}
	if err := ts.listPacks(); err != nil {
		return err
	}
	var objs []plumbing.EncodedObject
	seen := map[plumbing.Hash]bool{}
	var walk func(n *dirNode) error
	walk = func(n *dirNode) error {
		if seen[n.hash] {
			return nil
		}
		seen[n.hash] = true
		if ts.find(n.hash) != nil {
			return nil
		}
		for _, l := range n.leaves {
			if seen[l.Hash] {
				continue
			}
			seen[l.Hash] = true
			if ts.find(l.Hash) != nil {
				continue
			}
			o, err := l.object()
			if err != nil {
				return err
			}
			objs = append(objs, o)
		}
		for _, d := range n.dirs {
			if err := walk(d); err != nil {
				return err
			}
		}
		objs = append(objs, n.obj)
		return nil
	}
	if err := walk(t.root); err != nil {
		return err
	}
	if len(objs) == 0 {
		return nil
	}
	// Not compressed: the store is local, and compressing a whole environment costs seconds of a plan.
	if _, err := writePackLevel(osfs.New(ts.dir), objs, zlib.NoCompression); err != nil {
		return fmt.Errorf("writing the tree store %s: %w", ts.dir, err)
	}
	return ts.listPacks()
}

// Tree loads tree id from the store. It reads every tree object (checking its id and that its entry
// names are ones NewTreeFromFiles accepts) and checks that every blob is present; the blobs' content is
// read when needed (Tree.File, an apply). It returns ErrTreeNotStored when any object is missing.
func (ts *TreeStore) Tree(id string) (*Tree, error) {
	if len(id) != hashHexSize || !plumbing.IsHash(id) {
		return nil, fmt.Errorf("tree id %q: %w", id, ErrTreeNotStored)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if err := ts.listPacks(); err != nil {
		return nil, err
	}
	t := &Tree{blobs: map[string]string{}}
	var err error
	if t.root, err = ts.loadDir(plumbing.NewHash(id), "", t.blobs); err != nil {
		return nil, err
	}
	return t, nil
}

func (ts *TreeStore) loadDir(h plumbing.Hash, prefix string, blobs map[string]string) (*dirNode, error) {
	typ, raw, err := ts.read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree: %w", h, typ, ErrTreeNotStored)
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.TreeObject)
	if _, err := mo.Write(raw); err != nil {
		return nil, err
	}
	var t object.Tree
	if err := t.Decode(mo); err != nil {
		return nil, err
	}
	n := newDirNode()
	n.hash, n.obj = h, mo
	for _, e := range t.Entries {
		p := joinRel(prefix, e.Name)
		if err := ValidateFileName(p); err != nil || strings.Contains(e.Name, "/") || (prefix == "" && isDotEntry(e.Name)) {
			return nil, fmt.Errorf("tree %s holds the entry %q, which no render writes: %w", h, p, ErrTreeNotStored)
		}
		switch e.Mode {
		case filemode.Dir:
			if n.dirs[e.Name], err = ts.loadDir(e.Hash, p, blobs); err != nil {
				return nil, err
			}
		case filemode.Regular:
			if ts.find(e.Hash) == nil {
				return nil, fmt.Errorf("blob %s of %s: %w", e.Hash, p, ErrTreeNotStored)
			}
			n.leaves[e.Name] = leaf{entryInfo: entryInfo{Mode: e.Mode, Hash: e.Hash}, stored: ts}
			blobs[p] = e.Hash.String()
		default:
			return nil, fmt.Errorf("tree %s holds %q of mode %s, which no render writes: %w", h, p, e.Mode, ErrTreeNotStored)
		}
	}
	return n, nil
}

// blob reads blob h, checking its id.
func (ts *TreeStore) blob(h plumbing.Hash) ([]byte, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.packs == nil {
		if err := ts.listPacks(); err != nil {
			return nil, err
		}
	}
	typ, b, err := ts.read(h)
	if err == nil && typ != plumbing.BlobObject {
		err = fmt.Errorf("object %s is a %s, not a blob: %w", h, typ, ErrTreeNotStored)
	}
	return b, err
}

// object is the blob of a leaf that holds its content or is stored.
func (l leaf) object() (plumbing.EncodedObject, error) {
	content := l.content
	if l.stored != nil {
		var err error
		if content, err = l.stored.blob(l.Hash); err != nil {
			return nil, err
		}
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	_, err := o.Write(content)
	return o, err
}

// File is the content of the desired file name (relative to the tree's path), read from the store for
// a tree loaded by TreeStore.Tree.
func (t *Tree) File(name string) ([]byte, error) {
	segs := strings.Split(name, "/")
	n := t.root
	for _, s := range segs[:len(segs)-1] {
		if n = n.dirs[s]; n == nil {
			return nil, fmt.Errorf("%q is not in the desired tree", name)
		}
	}
	l, ok := n.leaves[segs[len(segs)-1]]
	if !ok {
		return nil, fmt.Errorf("%q is not in the desired tree", name)
	}
	if l.stored != nil {
		return l.stored.blob(l.Hash)
	}
	return l.content, nil
}

// Len is the number of files in the tree.
func (t *Tree) Len() int { return len(t.blobs) }
