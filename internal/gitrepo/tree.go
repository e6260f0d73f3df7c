// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
)

// CleanPath normalises a directory path inside a repository: "" and "." mean
// the root (returned as ""). Absolute paths, ".." segments, ".git" segments,
// backslashes and NUL are rejected.
func CleanPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == "." || p == "./" {
		return "", nil
	}
	if strings.HasPrefix(p, "/") {
		return "", withClass(ErrInvalidInput, fmt.Errorf("path %q must be relative to the repository root", p))
	}
	p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
	segs, err := splitSegments(p)
	if err != nil {
		return "", withClass(ErrInvalidInput, fmt.Errorf("path %q: %v", p, err))
	}
	return strings.Join(segs, "/"), nil
}

// ValidateFileName checks a file name relative to the managed path.
func ValidateFileName(name string) error {
	if name == "" {
		return withClass(ErrInvalidInput, errors.New("file name is empty"))
	}
	if strings.HasPrefix(name, "/") {
		return withClass(ErrInvalidInput, fmt.Errorf("file name %q must be relative", name))
	}
	if err := checkSegments(name); err != nil {
		return withClass(ErrInvalidInput, fmt.Errorf("file name %q: %v", name, err))
	}
	return nil
}

// maxSegment is NAME_MAX of common file systems: a longer file or directory name cannot be checked out.
const maxSegment = 255

func splitSegments(p string) ([]string, error) {
	if err := checkSegments(p); err != nil {
		return nil, err
	}
	return strings.Split(p, "/"), nil
}

// checkSegments applies the path rules to every segment of p without splitting it (ValidateFileName runs
// once per file of a render).
func checkSegments(p string) error {
	if strings.IndexByte(p, 0) >= 0 {
		return errors.New("contains a NUL byte")
	}
	if strings.IndexByte(p, '\\') >= 0 {
		return errors.New("contains a backslash; use forward slashes")
	}
	for rest, more := p, true; more; {
		var s string
		s, rest, more = strings.Cut(rest, "/")
		if err := checkSegment(s); err != nil {
			return err
		}
	}
	return nil
}

// checkSegment applies the path rules to one segment (a name without a slash).
func checkSegment(s string) error {
	switch {
	case s == "":
		return errors.New("contains an empty segment (// or a trailing slash)")
	case s == "." || s == "..":
		return fmt.Errorf("contains a %q segment", s)
	case strings.EqualFold(s, ".git"):
		return errors.New("contains a .git segment")
	case len(s) > maxSegment:
		return fmt.Errorf("has a segment of %d bytes; file systems store at most %d, so no cluster could check it out", len(s), maxSegment)
	}
	return CheckGitComponent(s)
}

func isDotEntry(name string) bool { return strings.HasPrefix(name, ".") }

// subtree returns the tree hash at dir ("" = root) below root, or found=false.
func subtree(s storer.EncodedObjectStorer, root plumbing.Hash, dir string) (plumbing.Hash, bool, error) {
	if root.IsZero() {
		return plumbing.ZeroHash, dir == "", nil
	}
	if dir == "" {
		return root, true, nil
	}
	cur := root
	for _, seg := range strings.Split(dir, "/") {
		t, err := object.GetTree(s, cur)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		next := plumbing.ZeroHash
		for _, e := range t.Entries {
			if e.Name == seg && e.Mode == filemode.Dir {
				next = e.Hash
				break
			}
		}
		if next.IsZero() {
			return plumbing.ZeroHash, false, nil
		}
		cur = next
	}
	return cur, true, nil
}

// entryInfo is a leaf of a tree walk.
type entryInfo struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// walkLeaves lists every non-tree entry below tree h, keyed by slash path.
func walkLeaves(s storer.EncodedObjectStorer, h plumbing.Hash, prefix string, out map[string]entryInfo) error {
	if h.IsZero() {
		return nil
	}
	t, err := object.GetTree(s, h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		if e.Mode == filemode.Dir {
			if err := walkLeaves(s, e.Hash, p, out); err != nil {
				return err
			}
			continue
		}
		out[p] = entryInfo{Mode: e.Mode, Hash: e.Hash}
	}
	return nil
}

func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

func readBlob(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// readFilesAt returns the regular files below dir of the tree root, relative to dir.
// skipRootDot drops dot-entries at the root of dir.
//
// A file whose blob hash equals the Git blob hash of known[path] is taken from known instead of being
// read: a refresh compares the remote with what it delivered, and reading and inflating every blob of
// an unchanged folder was most of its cost.
func readFilesAt(s storer.EncodedObjectStorer, root plumbing.Hash, dir string, skipRootDot bool, known map[string]string) (map[string][]byte, bool, error) {
	h, found, err := subtree(s, root, dir)
	if err != nil || !found {
		return nil, found, err
	}
	leaves := map[string]entryInfo{}
	if err := walkLeaves(s, h, "", leaves); err != nil {
		return nil, true, err
	}
	files := make(map[string][]byte, len(leaves))
	for p, e := range leaves {
		if !isRegular(e.Mode) {
			continue
		}
		if skipRootDot && isDotEntry(strings.SplitN(p, "/", 2)[0]) {
			continue
		}
		if k, ok := known[p]; ok && blobHash(k) == e.Hash {
			files[p] = []byte(k)
			continue
		}
		b, err := readBlob(s, e.Hash)
		if err != nil {
			return nil, true, err
		}
		files[p] = b
	}
	return files, true, nil
}

// blobHash is the Git object ID content would have as a blob.
func blobHash(content string) plumbing.Hash {
	h := plumbing.NewHasher(plumbing.BlobObject, int64(len(content)))
	_, _ = io.WriteString(h, content)
	return h.Sum()
}

// storeBlob stores content unless present and returns its hash.
func storeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if err := s.HasEncodedObject(h); err == nil {
		return h, nil
	}
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		w.Close()
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// storeTree encodes entries (sorted the git way) and stores the tree unless present.
// An empty entry list returns the zero hash (the caller drops the entry).
func storeTree(s storer.EncodedObjectStorer, entries []object.TreeEntry) (plumbing.Hash, error) {
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	sort.Slice(entries, func(i, j int) bool { return treeSortKey(entries[i]) < treeSortKey(entries[j]) })
	t := &object.Tree{Entries: entries}
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	h := obj.Hash()
	if err := s.HasEncodedObject(h); err == nil {
		return h, nil
	}
	return s.SetEncodedObject(obj)
}

func treeSortKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// dirNode is an in-memory directory used to build trees bottom-up.
type dirNode struct {
	leaves map[string]leaf
	dirs   map[string]*dirNode
	hash   plumbing.Hash
	obj    plumbing.EncodedObject
}

// leaf is a file to write (content != nil, or stored), or an entry kept as is.
type leaf struct {
	entryInfo
	content []byte
	// stored is where the TreeStore that a tree was loaded from holds the blob (content is nil).
	stored *storedEntry
}

func newDirNode() *dirNode {
	return &dirNode{leaves: map[string]leaf{}, dirs: map[string]*dirNode{}}
}

func (n *dirNode) empty() bool { return len(n.leaves) == 0 && len(n.dirs) == 0 }

// mkdirs returns the directory at dir ("" = n) below n, creating what is missing.
func (n *dirNode) mkdirs(dir string) (*dirNode, error) {
	cur := n
	for rest, more := dir, dir != ""; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		if _, clash := cur.leaves[seg]; clash {
			return nil, withClass(ErrInvalidInput, fmt.Errorf("%q is both a file and a directory", dir[:len(dir)-len(rest)-btoi(more)]))
		}
		next, ok := cur.dirs[seg]
		if !ok {
			next = newDirNode()
			cur.dirs[seg] = next
		}
		cur = next
	}
	return cur, nil
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addLeaf adds the file path, named base in n.
func (n *dirNode) addLeaf(path, base string, l leaf) error {
	if _, clash := n.dirs[base]; clash {
		return withClass(ErrInvalidInput, fmt.Errorf("%q is both a file and a directory", path))
	}
	n.leaves[base] = l
	return nil
}

// encode computes the tree hashes bottom-up in memory, without touching the store.
func (n *dirNode) encode(newObj func() plumbing.EncodedObject) error {
	for _, d := range n.dirs {
		if err := d.encode(newObj); err != nil {
			return err
		}
	}
	return n.encodeShallow(newObj)
}

// encodeParallel is encode with the top-level directories (a GitOps tree's cluster types) encoded
// concurrently: building the tree of a whole environment is hundreds of thousands of hashes.
func (n *dirNode) encodeParallel(newObj func() plumbing.EncodedObject) error {
	dirs := make([]*dirNode, 0, len(n.dirs))
	for _, d := range n.dirs {
		dirs = append(dirs, d)
	}
	errs := make([]error, len(dirs))
	parallel.For(len(dirs), 0, func(i int) { errs[i] = dirs[i].encode(newObj) })
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return n.encodeShallow(newObj)
}

// encodeShallow encodes n from its leaves and its directories' hashes, which must be known, into an object
// from newObj (nil: a knownObject of its own). It writes the entries as object.Tree.Encode does ("<octal
// mode> <name>\0<binary id>", sorted the Git way), without fmt and without building a sort key per
// comparison: a whole environment is 87k trees.
func (n *dirNode) encodeShallow(newObj func() plumbing.EncodedObject) error {
	entries := make([]rawTreeEntry, 0, len(n.leaves)+len(n.dirs))
	size := 0
	for name, l := range n.leaves {
		entries = append(entries, rawTreeEntry{name: name, mode: l.Mode, hash: l.Hash})
		size += len(name)
	}
	for name, d := range n.dirs {
		entries = append(entries, rawTreeEntry{name: name, mode: filemode.Dir, hash: d.hash})
		size += len(name)
	}
	slices.SortFunc(entries, func(a, b rawTreeEntry) int {
		return compareTreeNames(a.name, a.mode == filemode.Dir, b.name, b.mode == filemode.Dir)
	})
	buf := make([]byte, 0, size+len(entries)*(8+hashLen))
	for _, e := range entries {
		if strings.IndexByte(e.name, 0) >= 0 {
			return fmt.Errorf("malformed filename %q", e.name)
		}
		buf = strconv.AppendUint(buf, uint64(e.mode), 8)
		buf = append(buf, ' ')
		buf = append(buf, e.name...)
		buf = append(buf, 0)
		buf = append(buf, e.hash[:]...)
	}
	if newObj == nil {
		// A desired tree's own object: its encoding as is, with the id computed once (a MemoryObject
		// would copy it, and the pack writer and prune read it in place).
		n.hash = plumbing.ComputeHash(plumbing.TreeObject, buf)
		n.obj = &knownObject{hash: n.hash, typ: plumbing.TreeObject, content: buf}
		return nil
	}
	obj := newObj()
	obj.SetType(plumbing.TreeObject)
	w, err := obj.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	n.obj, n.hash = obj, obj.Hash()
	return nil
}

// rawTreeEntry is an entry of a tree being encoded.
type rawTreeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// compareTreeNames orders tree entries as Git does (treeSortKey): by name, a directory's name followed by
// a slash.
func compareTreeNames(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	keyAt := func(name string, dir bool, i int) int {
		switch {
		case i < len(name):
			return int(name[i])
		case dir && i == len(name):
			return '/'
		}
		return -1
	}
	for i := n; ; i++ {
		ca, cb := keyAt(a, aDir, i), keyAt(b, bDir, i)
		if ca != cb || ca == -1 {
			return ca - cb
		}
	}
}

// builder stores the objects of a new tree that differ from an old one, records the
// file-level changes, and collects the hashes a push must send.
type builder struct {
	st      storer.EncodedObjectStorer
	changes Changes
	newObjs []plumbing.Hash
	// onRemote holds the trees and blobs the remote has already below a path of the base commit (the old
	// side of a move, ApplyRequest.Vacate): the new tree refers to them and neither stores nor sends them.
	onRemote map[plumbing.Hash]bool
}

// objectsBelow returns the trees and blobs below dir of tree root (none when dir is not a directory there).
func objectsBelow(st storer.EncodedObjectStorer, root plumbing.Hash, dir string) (map[plumbing.Hash]bool, error) {
	out := map[plumbing.Hash]bool{}
	sub, found, err := subtree(st, root, dir)
	if err != nil || !found || sub.IsZero() {
		return out, err
	}
	stack := []plumbing.Hash{sub}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[h] {
			continue
		}
		out[h] = true
		t, err := object.GetTree(st, h)
		if err != nil {
			return nil, err
		}
		for _, e := range t.Entries {
			switch {
			case e.Mode == filemode.Dir:
				stack = append(stack, e.Hash)
			case e.Mode != filemode.Submodule: // a gitlink names a commit of another repository
				out[e.Hash] = true
			}
		}
	}
	return out, nil
}

// addedTree records every file below tree h, which the remote has already, as added at prefix.
func (b *builder) addedTree(h plumbing.Hash, prefix string) error {
	leaves := map[string]entryInfo{}
	if err := walkLeaves(b.st, h, prefix, leaves); err != nil {
		return err
	}
	for p := range leaves {
		b.changes.Added = append(b.changes.Added, p)
	}
	return nil
}

func (b *builder) put(h plumbing.Hash, obj func() (plumbing.EncodedObject, error)) error {
	b.newObjs = append(b.newObjs, h)
	if err := b.st.HasEncodedObject(h); err == nil {
		return nil
	}
	o, err := obj()
	if err != nil {
		return err
	}
	_, err = b.st.SetEncodedObject(o)
	return err
}

// persist stores node n (already encoded) where it differs from the old tree and
// records changes; subtrees with equal hashes are skipped without being read.
func (b *builder) persist(n *dirNode, old plumbing.Hash, prefix string) error {
	if n.hash == old {
		return nil
	}
	oldEntries := map[string]object.TreeEntry{}
	if !old.IsZero() {
		t, err := object.GetTree(b.st, old)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			oldEntries[e.Name] = e
		}
	}
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "/" + name
	}
	for name, l := range n.leaves {
		if l.content == nil && l.stored == nil {
			continue // kept entry
		}
		oe, had := oldEntries[name]
		if had && oe.Hash == l.Hash && oe.Mode == l.Mode {
			continue
		}
		switch {
		case had && oe.Mode == filemode.Dir:
			if err := b.removedTree(oe.Hash, join(name)); err != nil {
				return err
			}
			b.changes.Added = append(b.changes.Added, join(name))
		case had:
			b.changes.Modified = append(b.changes.Modified, join(name))
		default:
			b.changes.Added = append(b.changes.Added, join(name))
		}
		if b.onRemote[l.Hash] {
			continue
		}
		if err := b.put(l.Hash, l.object); err != nil {
			return err
		}
	}
	for name, child := range n.dirs {
		oe, had := oldEntries[name]
		oldChild := plumbing.ZeroHash
		if had && oe.Mode == filemode.Dir {
			oldChild = oe.Hash
		} else if had {
			b.changes.Removed = append(b.changes.Removed, join(name))
		}
		if oldChild.IsZero() && b.onRemote[child.hash] {
			if err := b.addedTree(child.hash, join(name)); err != nil {
				return err
			}
			continue
		}
		if err := b.persist(child, oldChild, join(name)); err != nil {
			return err
		}
	}
	for name, oe := range oldEntries {
		if _, ok := n.leaves[name]; ok {
			continue
		}
		if _, ok := n.dirs[name]; ok {
			continue
		}
		if oe.Mode == filemode.Dir {
			if err := b.removedTree(oe.Hash, join(name)); err != nil {
				return err
			}
		} else {
			b.changes.Removed = append(b.changes.Removed, join(name))
		}
	}
	obj := n.obj
	return b.put(n.hash, func() (plumbing.EncodedObject, error) { return obj, nil })
}

func (b *builder) removedTree(h plumbing.Hash, prefix string) error {
	leaves := map[string]entryInfo{}
	if err := walkLeaves(b.st, h, prefix, leaves); err != nil {
		return err
	}
	for p := range leaves {
		b.changes.Removed = append(b.changes.Removed, p)
	}
	return nil
}

// setAt replaces (or with a zero hash removes) the entry at path below tree root and
// returns the new root. Trees left empty by a removal are dropped, except the root.
func (b *builder) setAt(root plumbing.Hash, segs []string, mode filemode.FileMode, h plumbing.Hash, isRoot bool) (plumbing.Hash, error) {
	s := b.st
	var entries []object.TreeEntry
	if !root.IsZero() {
		t, err := object.GetTree(s, root)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	idx := -1
	for i, e := range entries {
		if e.Name == segs[0] {
			idx = i
			break
		}
	}
	var newHash plumbing.Hash
	newMode := mode
	if len(segs) == 1 {
		newHash = h
	} else {
		child := plumbing.ZeroHash
		if idx >= 0 {
			if entries[idx].Mode != filemode.Dir {
				return plumbing.ZeroHash, withClass(ErrInvalidInput, fmt.Errorf("%q is a file in the repository, a directory is needed", segs[0]))
			}
			child = entries[idx].Hash
		}
		var err error
		newHash, err = b.setAt(child, segs[1:], mode, h, false)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		newMode = filemode.Dir
	}
	switch {
	case newHash.IsZero() && idx >= 0:
		entries = append(entries[:idx:idx], entries[idx+1:]...)
	case newHash.IsZero():
	case idx >= 0:
		entries[idx] = object.TreeEntry{Name: segs[0], Mode: newMode, Hash: newHash}
	default:
		entries = append(entries, object.TreeEntry{Name: segs[0], Mode: newMode, Hash: newHash})
	}
	var out plumbing.Hash
	var err error
	if len(entries) == 0 && isRoot {
		out, err = storeEmptyTree(s)
	} else {
		out, err = storeTree(s, entries)
	}
	if err == nil && !out.IsZero() {
		b.newObjs = append(b.newObjs, out)
	}
	return out, err
}

// storeEmptyTree stores the empty tree (a root may be empty).
func storeEmptyTree(s storer.EncodedObjectStorer) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := (&object.Tree{}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := s.HasEncodedObject(obj.Hash()); err == nil {
		return obj.Hash(), nil
	}
	return s.SetEncodedObject(obj)
}
