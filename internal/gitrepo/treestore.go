// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
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
	inf   inflater              // the reader state of read
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
	ts.packs, ts.inf.last = nil, nil
	if remove {
		return os.RemoveAll(ts.dir)
	}
	return nil
}

// find returns the pack that holds h, or nil. ts.mu must be held, the packs listed.
func (ts *TreeStore) find(h plumbing.Hash) *storePack {
	p, _ := ts.locate(h)
	return p
}

// locate returns the pack that holds h and the offset of its entry, or nil. ts.mu must be held, the
// packs listed; goroutines of one Tree call share it (it only reads).
func (ts *TreeStore) locate(h plumbing.Hash) (*storePack, int64) {
	for _, p := range ts.packs {
		if off, ok := idxOffset(p.idx, h); ok {
			return p, off
		}
	}
	return nil, 0
}

// locateFrom is locate for a goroutine that reads with inf: it asks the pack of inf's last hit first. The
// objects of one tree mostly sit in one pack (the pack of the render that wrote them, or of the change
// before), and the store holds up to treeStoreMaxPacks of them: trying each in map order was most of loading
// a tree from a store of many packs.
func (ts *TreeStore) locateFrom(inf *inflater, h plumbing.Hash) (*storePack, int64) {
	if p := inf.last; p != nil {
		if off, ok := idxOffset(p.idx, h); ok {
			return p, off
		}
	}
	for _, p := range ts.packs {
		if p == inf.last {
			continue
		}
		if off, ok := idxOffset(p.idx, h); ok {
			inf.last = p
			return p, off
		}
	}
	return nil, 0
}

// idxOffset looks h up in idx. MemoryIndex.FindOffset does the same but also records every offset it
// returns in a map for reverse lookups, which the store never makes: a map entry per object loaded.
func idxOffset(idx *idxfile.MemoryIndex, h plumbing.Hash) (int64, bool) {
	k := idx.FanoutMapping[h[0]]
	if k < 0 || k >= len(idx.Names) || k >= len(idx.Offset32) {
		return 0, false
	}
	// A binary search for the first name not below h, comparing the first 8 bytes as one integer and the
	// rest only when they are equal: loading a 300k-assignment environment looks up 900k blobs, and
	// sort.Find with bytes.Compare per step was half of it.
	names := idx.Names[k]
	n := len(names) / hashLen
	key := binary.BigEndian.Uint64(h[:8])
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1) //nolint:gosec // lo+hi >= 0
		e := names[m*hashLen : (m+1)*hashLen]
		if v := binary.BigEndian.Uint64(e); v < key || v == key && bytes.Compare(e, h[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo
	found := i < n && bytes.Equal(names[i*hashLen:(i+1)*hashLen], h[:])
	if o32 := idx.Offset32[k]; !found || len(o32) < 4*(i+1) {
		return 0, false
	}
	ofs := binary.BigEndian.Uint32(idx.Offset32[k][4*i:])
	if ofs&(1<<31) == 0 {
		return int64(ofs), true
	}
	j := 8 * int(ofs&^(1<<31))
	if j+8 > len(idx.Offset64) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(idx.Offset64[j:])), true
}

// inflater reads the objects of one goroutine: a scratch buffer and a zlib reader reused through Reset.
type inflater struct {
	buf   []byte
	zr    io.ReadCloser
	files []dirRef   // loadTree's scratch list of a tree's files (without their paths)
	last  *storePack // the pack of the last object found (locateFrom)
}

// readWith returns the type and content of object h (undeltified, as writePack writes them), checking its
// id, with the reader state of the calling goroutine. ts.mu must be held, the packs listed.
func (ts *TreeStore) readWith(inf *inflater, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	p, off := ts.locateFrom(inf, h)
	if p == nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, ErrTreeNotStored)
	}
	return readEntry(inf, p, off, h)
}

// readEntry reads object h from its entry at off in pack p with inf's buffers, checking its id. It only
// reads p's file (ReadAt), so goroutines with inflaters of their own may call it at the same time.
func readEntry(inf *inflater, p *storePack, off int64, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	// One read takes the entry header and, for a small object (every tree), all of its stored data.
	if cap(inf.buf) < 1024 {
		inf.buf = make([]byte, 1024)
	}
	hdr := inf.buf[:1024]
	n, err := p.f.ReadAt(hdr, off)
	if n == 0 {
		return 0, nil, fmt.Errorf("object %s: %w (%v)", h, ErrTreeNotStored, err)
	}
	hdr = hdr[:n]
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
	content := make([]byte, size)
	if !inflateStored(hdr[i:], content) {
		// Not stored blocks in one read: a large object, or a pack compressed by another writer.
		src := io.NewSectionReader(p.f, off+int64(i), size+(size>>4)+1024)
		if r, ok := inf.zr.(zlib.Resetter); ok {
			err = r.Reset(src, nil)
		} else {
			inf.zr, err = zlib.NewReader(src)
		}
		if err == nil {
			_, err = io.ReadFull(inf.zr, content)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("object %s: a damaged pack entry (%v): %w", h, err, ErrTreeNotStored)
		}
	}
	if got := plumbing.ComputeHash(typ, content); got != h {
		return 0, nil, fmt.Errorf("object %s is damaged in the tree store (its content hashes to %s): %w", h, got, ErrTreeNotStored)
	}
	return typ, content, nil
}

// inflateStored decodes src, a zlib stream of stored (uncompressed) deflate blocks as Put writes them,
// into content, which must come out exactly full. It reports false for anything else (compressed blocks,
// a stream longer than src, a damaged one), for which the caller runs zlib. Going through zlib's reader
// cost most of loading a tree, for a copy.
func inflateStored(src, content []byte) bool {
	// CMF 0x78 (deflate, 32 KiB window), FLG without a preset dictionary, the header check of RFC 1950.
	if len(src) < 2 || src[0] != 0x78 || src[1]&0x20 != 0 || (uint(src[0])<<8|uint(src[1]))%31 != 0 {
		return false
	}
	src, out := src[2:], content
	for {
		// A stored block: BFINAL and BTYPE 00 in the low bits of a byte (the rest of it padding, as the
		// block starts on a byte boundary here), then LEN and its complement NLEN, little-endian.
		if len(src) < 5 || src[0]&^1 != 0 {
			return false
		}
		final := src[0]&1 == 1
		l := int(src[1]) | int(src[2])<<8
		if nl := int(src[3]) | int(src[4])<<8; l != ^nl&0xffff || l > len(out) || len(src) < 5+l {
			return false
		}
		copy(out, src[5:5+l])
		src, out = src[5+l:], out[l:]
		if final {
			break
		}
	}
	if len(out) != 0 || len(src) < 4 {
		return false
	}
	return adler32.Checksum(content) == uint32(src[0])<<24|uint32(src[1])<<16|uint32(src[2])<<8|uint32(src[3])
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
	// Into an empty store the whole tree goes: its files and about one directory per three files.
	size := 0
	if len(ts.packs) == 0 {
		size = t.files + t.files/3 + 1
	}
	objs := make([]plumbing.EncodedObject, 0, size)
	seen := make(map[plumbing.Hash]bool, size)
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
	if _, err := writePackLevel(osfs.New(ts.dir), objs, zlib.NoCompression, false); err != nil {
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
	rootFiles := 0
	root, subs, err := ts.loadTree(&ts.inf, plumbing.NewHash(id), "", &rootFiles)
	if err != nil {
		return nil, err
	}
	// The top-level directories (a GitOps tree's cluster types) load on every core, each with its own
	// reader; the packs do not change meanwhile (ts.mu is held).
	nodes := make([]*dirNode, len(subs))
	counts := make([]int, len(subs))
	errs := make([]error, len(subs))
	parallel.For(len(subs), 0, func(i int) {
		nodes[i], errs[i] = ts.loadDir(&inflater{}, subs[i].hash, subs[i].path, &counts[i])
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t := &Tree{root: root, files: rootFiles}
	for i, s := range subs {
		root.dirs[s.name] = nodes[i]
		t.files += counts[i]
	}
	return t, nil
}

// dirRef is a directory entry of a tree being loaded.
type dirRef struct {
	name, path string // the entry's name, and its path below the tree's path
	hash       plumbing.Hash
	// pack and off locate a file's blob (loadTree found it there).
	pack *storePack
	off  int64
}

// loadDir loads the directory h at prefix and everything below it.
func (ts *TreeStore) loadDir(inf *inflater, h plumbing.Hash, prefix string, files *int) (*dirNode, error) {
	n, subs, err := ts.loadTree(inf, h, prefix, files)
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		if n.dirs[s.name], err = ts.loadDir(inf, s.hash, s.path, files); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// The modes of tree entries as Git (and Tree.Encode) writes them: the only two a render's tree holds.
// hashLen is the length of a binary object id.
const hashLen = len(plumbing.Hash{})

var (
	treeModeDir     = []byte("40000")
	treeModeRegular = []byte("100644")
)

// loadTree reads tree h at prefix: its node with its files, and its directories, still to be loaded. It
// parses the entries itself (object.Tree's decoding and a MemoryObject per tree were half the cost of a
// load) and checks each name as one segment: the prefix has been checked, and ValidateFileName checks a
// path segment by segment, so that is the same check as ValidateFileName on the whole path.
func (ts *TreeStore) loadTree(inf *inflater, h plumbing.Hash, prefix string, files *int) (*dirNode, []dirRef, error) {
	typ, raw, err := ts.readWith(inf, h)
	if err != nil {
		return nil, nil, err
	}
	if typ != plumbing.TreeObject {
		return nil, nil, fmt.Errorf("object %s is a %s, not a tree: %w", h, typ, ErrTreeNotStored)
	}
	var subs []dirRef
	leaves := inf.files[:0]
	for rest := raw; len(rest) > 0; {
		sp, nul := bytes.IndexByte(rest, ' '), bytes.IndexByte(rest, 0)
		if sp < 0 || nul < sp || len(rest) < nul+1+hashLen {
			return nil, nil, fmt.Errorf("tree %s is damaged: %w", h, ErrTreeNotStored)
		}
		mode, name := rest[:sp], string(rest[sp+1:nul])
		var eh plumbing.Hash
		copy(eh[:], rest[nul+1:nul+1+hashLen])
		rest = rest[nul+1+hashLen:]
		if strings.ContainsAny(name, "/\\") || checkSegment(name) != nil || (prefix == "" && isDotEntry(name)) {
			return nil, nil, fmt.Errorf("tree %s holds the entry %q, which no render writes: %w", h, joinRel(prefix, name), ErrTreeNotStored)
		}
		switch {
		case bytes.Equal(mode, treeModeDir):
			subs = append(subs, dirRef{name: name, path: joinRel(prefix, name), hash: eh})
		case bytes.Equal(mode, treeModeRegular):
			pack, off := ts.locateFrom(inf, eh)
			if pack == nil {
				return nil, nil, fmt.Errorf("blob %s of %s: %w", eh, joinRel(prefix, name), ErrTreeNotStored)
			}
			leaves = append(leaves, dirRef{name: name, hash: eh, pack: pack, off: off})
		default:
			return nil, nil, fmt.Errorf("tree %s holds %q of mode %s, which no render writes: %w", h, joinRel(prefix, name), mode, ErrTreeNotStored)
		}
	}
	inf.files = leaves
	*files += len(leaves)
	n := &dirNode{leaves: make(map[string]leaf, len(leaves)), dirs: make(map[string]*dirNode, len(subs)), hash: h}
	for _, f := range leaves {
		n.leaves[f.name] = leaf{entryInfo: entryInfo{Mode: filemode.Regular, Hash: f.hash}, stored: &storedEntry{pack: f.pack, off: f.off}}
	}
	// readEntry checked the id: a MemoryObject would hash the tree again when the apply asks for it.
	n.obj = &knownObject{hash: h, typ: plumbing.TreeObject, content: raw}
	return n, subs, nil
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
		return l.stored.content(l.Hash)
	}
	return l.content, nil
}

// Has reports whether the tree holds the file name (relative to the tree's path), without reading it.
func (t *Tree) Has(name string) bool {
	segs := strings.Split(name, "/")
	n := t.root
	for _, s := range segs[:len(segs)-1] {
		if n = n.dirs[s]; n == nil {
			return false
		}
	}
	_, ok := n.leaves[segs[len(segs)-1]]
	return ok
}

// Len is the number of files in the tree.
func (t *Tree) Len() int { return t.files }
