// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// The first apply of a whole environment writes a tree that the plan kept in the local TreeStore (900k
// blobs at 300k assignments). Its blobs stay in the store's pack until the pack writer compresses them:
// read there, on the writer's goroutines, instead of one by one on the goroutine that builds the commit,
// and never all in memory at once.

// storedEntry is where a TreeStore's pack holds a blob: loadTree found it there.
type storedEntry struct {
	pack *storePack
	off  int64
}

// inflaters are the reader states of reads from stored entries, which run on any goroutine.
var inflaters = sync.Pool{New: func() any { return &inflater{} }}

// content reads the blob h, checking its id. It reads only the pack's file, not the store's state.
func (e *storedEntry) content(h plumbing.Hash) ([]byte, error) {
	inf := inflaters.Get().(*inflater) //nolint:forcetypeassert // the pool holds nothing else
	defer inflaters.Put(inf)
	typ, b, err := readEntry(inf, e.pack, e.off, h)
	if err == nil && typ != plumbing.BlobObject {
		err = fmt.Errorf("object %s is a %s, not a blob: %w", h, typ, ErrTreeNotStored)
	}
	return b, err
}

// object is the blob of a leaf that holds its content or is stored.
func (l leaf) object() (plumbing.EncodedObject, error) {
	if l.stored != nil {
		return &storedBlob{hash: l.Hash, at: l.stored}, nil
	}
	return &knownObject{hash: l.Hash, typ: plumbing.BlobObject, content: l.content}, nil
}

// contentObject is an object whose content the pack writer takes at once, without a reader.
type contentObject interface {
	plumbing.EncodedObject
	contents() ([]byte, error)
}

// knownObject is an object whose id is known: the tree's build hashed its content, or the store's read
// checked it. A MemoryObject would copy the content and hash it a second time when the pack is written
// (both for every file of a first delivery).
type knownObject struct {
	hash    plumbing.Hash
	typ     plumbing.ObjectType
	content []byte
}

func (o *knownObject) Hash() plumbing.Hash       { return o.hash }
func (o *knownObject) Type() plumbing.ObjectType { return o.typ }
func (o *knownObject) Size() int64               { return int64(len(o.content)) }
func (o *knownObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.content)), nil
}

// contents is contentObject's; a known object holds its content.
//
//nolint:unparam // a stored blob's read can fail
func (o *knownObject) contents() ([]byte, error) { return o.content, nil }

// SetType, SetSize and Writer complete plumbing.EncodedObject; a knownObject is never written to.
func (o *knownObject) SetType(plumbing.ObjectType) {}
func (o *knownObject) SetSize(int64)               {}
func (o *knownObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a known object is read-only")
}

// storedBlob is a blob that a TreeStore holds, read when the pack writer (or a reader) asks for it.
type storedBlob struct {
	hash plumbing.Hash
	at   *storedEntry
}

func (o *storedBlob) Hash() plumbing.Hash       { return o.hash }
func (o *storedBlob) Type() plumbing.ObjectType { return plumbing.BlobObject }
func (o *storedBlob) contents() ([]byte, error) { return o.at.content(o.hash) }

// Size reads the blob: the pack writer, which writes almost all stored blobs, takes contents instead.
func (o *storedBlob) Size() int64 {
	b, err := o.contents()
	if err != nil {
		return -1 // the read of the content fails again, with the reason
	}
	return int64(len(b))
}

func (o *storedBlob) Reader() (io.ReadCloser, error) {
	b, err := o.contents()
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// SetType, SetSize and Writer complete plumbing.EncodedObject; a storedBlob is never written to.
func (o *storedBlob) SetType(plumbing.ObjectType) {}
func (o *storedBlob) SetSize(int64)               {}
func (o *storedBlob) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a stored blob is read-only")
}
