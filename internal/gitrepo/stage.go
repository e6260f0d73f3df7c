// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"fmt"

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
	staged map[plumbing.Hash]plumbing.EncodedObject
	order  []plumbing.EncodedObject
}

func newStaging(base storer.EncodedObjectStorer) *stagingStorer {
	return &stagingStorer{EncodedObjectStorer: base, staged: map[plumbing.Hash]plumbing.EncodedObject{}}
}

func (s *stagingStorer) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s *stagingStorer) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	h := o.Hash()
	if _, ok := s.staged[h]; !ok {
		s.staged[h] = o
		s.order = append(s.order, o)
	}
	return h, nil
}

func (s *stagingStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.staged[h]; ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// HasEncodedObject reports only the staged objects. Its callers ask it to skip writing an object that
// exists; writing one again is harmless (objects are content-addressed: a duplicate in a pack, or the
// same loose file), while asking the repository about each of the 347k new objects of a first
// delivery cost a failed loose-file open and a pack index lookup apiece, a fifth of the apply.
func (s *stagingStorer) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.staged[h]; ok {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

func (s *stagingStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if o, ok := s.staged[h]; ok {
		return o.Size(), nil
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
	defer func() { s.staged, s.order = map[plumbing.Hash]plumbing.EncodedObject{}, nil }()
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
	var errs []error
	for _, o := range s.order {
		_, err := s.EncodedObjectStorer.SetEncodedObject(o)
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
