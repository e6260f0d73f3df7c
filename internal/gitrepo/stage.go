// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
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
	mem   *memory.Storage
	order []plumbing.Hash
}

func newStaging(base storer.EncodedObjectStorer) *stagingStorer {
	return &stagingStorer{EncodedObjectStorer: base, mem: memory.NewStorage()}
}

func (s *stagingStorer) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s *stagingStorer) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	if s.mem.HasEncodedObject(o.Hash()) == nil {
		return o.Hash(), nil
	}
	h, err := s.mem.SetEncodedObject(o)
	if err == nil {
		s.order = append(s.order, h)
	}
	return h, err
}

func (s *stagingStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, err := s.mem.EncodedObject(t, h); err == nil {
		return o, nil
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// HasEncodedObject reports only the staged objects. Its callers ask it to skip writing an object that
// exists; writing one again is harmless (objects are content-addressed: a duplicate in a pack, or the
// same loose file), while asking the repository about each of the 347k new objects of a first
// delivery cost a failed loose-file open and a pack index lookup apiece, a fifth of the apply.
func (s *stagingStorer) HasEncodedObject(h plumbing.Hash) error {
	return s.mem.HasEncodedObject(h)
}

func (s *stagingStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if size, err := s.mem.EncodedObjectSize(h); err == nil {
		return size, nil
	}
	return s.EncodedObjectStorer.EncodedObjectSize(h)
}

// flush writes the staged objects to base: one pack from packThreshold objects on, when base can take
// packs, else loose objects. The staging area is empty afterwards.
func (s *stagingStorer) flush() error {
	defer func() { s.mem, s.order = memory.NewStorage(), nil }()
	if len(s.order) == 0 {
		return nil
	}
	if pw, ok := s.EncodedObjectStorer.(storer.PackfileWriter); ok && len(s.order) >= packThreshold {
		w, err := pw.PackfileWriter()
		if err != nil {
			return fmt.Errorf("writing a pack: %w", err)
		}
		// No deltas: finding them costs more than it saves for trees of distinct small files.
		_, err = packfile.NewEncoder(w, s.mem, false).Encode(s.order, 0)
		// Close finishes the pack and its index; on an error it leaves only a temporary file, which no ref
		// points to, as an interrupted git push does.
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing a pack: %w", err)
		}
		return nil
	}
	var errs []error
	for _, h := range s.order {
		o, err := s.mem.EncodedObject(plumbing.AnyObject, h)
		if err == nil {
			_, err = s.EncodedObjectStorer.SetEncodedObject(o)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
