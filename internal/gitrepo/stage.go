// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// A delivery of a whole environment writes hundreds of thousands of objects (260k blobs and 87k trees
// for the 86k fleet). go-git's filesystem storage writes each as a loose object: a temporary file,
// zlib, a rename, often a new fan-out directory. That was most of a first apply, and every later read
// of the branch (refresh, plan) then opened and inflated one file per tree it walked. So an apply
// stages its new objects in memory and writes them as one pack with its index, as git's receive-pack
// does for a push of more than unpackLimit objects. A few objects (the usual small change) stay loose,
// so that small applies do not pile up packs.

// packThreshold is the number of new objects from which an apply writes a pack (git's
// transfer.unpackLimit default).
const packThreshold = 100

// stagingStorer is base with writes held in memory until flush.
type stagingStorer struct {
	storer.EncodedObjectStorer
	staged map[plumbing.Hash]int // index in order
	order  []plumbing.EncodedObject
}

func newStaging(base storer.EncodedObjectStorer) *stagingStorer {
	return &stagingStorer{EncodedObjectStorer: base, staged: map[plumbing.Hash]int{}}
}

func (s *stagingStorer) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s *stagingStorer) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	h := o.Hash()
	if _, ok := s.staged[h]; !ok {
		s.staged[h] = len(s.order)
		s.order = append(s.order, o)
	}
	return h, nil
}

func (s *stagingStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if i, ok := s.staged[h]; ok && (t == plumbing.AnyObject || s.order[i].Type() == t) {
		return s.order[i], nil
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// HasEncodedObject reports only the staged objects. Its callers ask it to skip writing an object that
// exists; writing one again is harmless (objects are content-addressed: a duplicate in a pack, or the
// same loose file, which flush does not write), while asking the repository about each of the 347k new
// objects of a first delivery cost a failed loose-file open and a pack index lookup apiece, a fifth of
// the apply.
func (s *stagingStorer) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.staged[h]; ok {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

func (s *stagingStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if i, ok := s.staged[h]; ok {
		return s.order[i].Size(), nil
	}
	return s.EncodedObjectStorer.EncodedObjectSize(h)
}

// packStorage is a storage that can take a pack written next to its objects (go-git's filesystem
// storage). Reindex makes it read the pack list again: it caches the indexes it has loaded.
type packStorage interface {
	Filesystem() billy.Filesystem
	Reindex()
}

// flush writes the staged objects to base: one pack (packwrite.go) from packThreshold objects on, when
// base can take packs, else loose objects. It returns the pack written, if any: it holds exactly the
// objects a push of this change sends. The staging area is empty afterwards.
func (s *stagingStorer) flush() (*writtenPack, error) {
	defer func() { s.staged, s.order = map[plumbing.Hash]int{}, nil }()
	if len(s.order) == 0 {
		return nil, nil
	}
	if ps, ok := s.EncodedObjectStorer.(packStorage); ok && len(s.order) >= packThreshold {
		p, err := writePack(ps.Filesystem(), s.order)
		if err != nil {
			return nil, fmt.Errorf("writing a pack: %w", err)
		}
		ps.Reindex()
		return p, nil
	}
	// A few objects. Stored blobs (storedobject.go) are read first: one that cannot be read fails the
	// apply before anything is written.
	objs := make([]plumbing.EncodedObject, len(s.order))
	for i, o := range s.order {
		objs[i] = o
		if sb, ok := o.(*storedBlob); ok {
			content, err := sb.contents()
			if err != nil {
				return nil, err
			}
			objs[i] = &knownObject{hash: sb.hash, typ: plumbing.BlobObject, content: content}
		}
	}
	var errs []error
	for _, o := range objs {
		// Asking the repository is cheap for a few objects, and go-git would write a loose copy of an
		// object it holds in a pack (the ownership record, a tree the change left as it was).
		if s.EncodedObjectStorer.HasEncodedObject(o.Hash()) == nil {
			continue
		}
		_, err := s.EncodedObjectStorer.SetEncodedObject(o)
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// prune drops the staged objects that commit does not reach, and returns objs (the objects a push sends)
// without them. Building a tree stages intermediate trees that a later edit replaces: the managed
// directory before the ownership record is added to it or removed from it, a root tree before the next
// root file. Written, they would be objects no commit points to, in the repository and in the remote
// (git fsck --unreachable lists them, and only git gc removes them). Only staged trees are read: an
// object already in the repository is reached with everything below it.
func (s *stagingStorer) prune(commit plumbing.Hash, objs []plumbing.Hash) ([]plumbing.Hash, error) {
	reached := make([]bool, len(s.order))
	stack := []plumbing.Hash{commit}
	var buf []byte
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := s.staged[h]
		if !ok || reached[i] {
			continue
		}
		reached[i] = true
		o := s.order[i]
		if o.Type() != plumbing.TreeObject && o.Type() != plumbing.CommitObject {
			continue
		}
		raw, err := objectContent(o, &buf)
		if err != nil {
			return nil, err
		}
		if o.Type() == plumbing.CommitObject {
			t, ok := bytes.CutPrefix(raw, []byte("tree "))
			if !ok || len(t) < hashHexSize {
				return nil, fmt.Errorf("commit %s: no tree line", h)
			}
			stack = append(stack, plumbing.NewHash(string(t[:hashHexSize])))
			continue
		}
		if stack, err = s.reachEntries(stack, reached, raw); err != nil {
			return nil, fmt.Errorf("tree %s: %w", h, err)
		}
	}
	dropped := map[plumbing.Hash]struct{}{}
	kept := s.order[:0]
	for i, o := range s.order {
		if reached[i] {
			s.staged[o.Hash()] = len(kept)
			kept = append(kept, o)
		} else {
			dropped[o.Hash()] = struct{}{}
			delete(s.staged, o.Hash())
		}
	}
	s.order = kept
	if len(dropped) == 0 {
		return objs, nil
	}
	out := objs[:0]
	for _, h := range objs {
		if _, ok := dropped[h]; !ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// reachEntries marks the staged blobs a raw tree ("<mode> <name>\0<id>", repeated) points to as reached
// and pushes its subtrees on stack. A blob's mode starts with 1 (100644, 100755, 120000), a tree's with 4.
func (s *stagingStorer) reachEntries(stack []plumbing.Hash, reached []bool, raw []byte) ([]plumbing.Hash, error) {
	for len(raw) > 0 {
		nul := bytes.IndexByte(raw, 0)
		if nul < 0 || len(raw) < nul+1+len(plumbing.ZeroHash) {
			return stack, errors.New("truncated entry")
		}
		var h plumbing.Hash
		copy(h[:], raw[nul+1:])
		if raw[0] == '1' {
			if i, ok := s.staged[h]; ok {
				reached[i] = true
			}
		} else {
			stack = append(stack, h)
		}
		raw = raw[nul+1+len(h):]
	}
	return stack, nil
}

// objectContent is o's content: in place for an object that holds it (the trees of a desired tree, 300k
// of them at 300k assignments), else read into *buf, which is reused.
func objectContent(o plumbing.EncodedObject, buf *[]byte) ([]byte, error) {
	if ko, ok := o.(*knownObject); ok {
		return ko.content, nil
	}
	var err error
	*buf, err = readObject(o, *buf)
	return *buf, err
}

// readObject reads o's content into buf (reused).
func readObject(o plumbing.EncodedObject, buf []byte) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if int64(cap(buf)) < o.Size() {
		buf = make([]byte, o.Size())
	}
	buf = buf[:o.Size()]
	_, err = io.ReadFull(r, buf)
	return buf, err
}

// hashHexSize is the length of an object id in hexadecimal.
const hashHexSize = 2 * len(plumbing.ZeroHash)
