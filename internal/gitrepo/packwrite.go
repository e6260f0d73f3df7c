// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1" //nolint:gosec // Git's pack and index checksums are SHA-1 by definition
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"runtime"
	"slices"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// A first delivery writes about 350k small objects. go-git's packfile.Encoder compresses them at zlib's
// default level with a writer whose Reset clears a 512 KiB hash table per object, on one core, and its
// filesystem PackfileWriter then builds the index by parsing the pack it has just written: together
// about 20 s of a first apply for the 86k preset. Here every object is known in memory, so the pack is
// written directly: undeltified entries (finding deltas costs more than it saves for distinct small
// files), zlib at BestSpeed with one writer per goroutine (small blobs with fixed Huffman codes,
// fixedflate.go), compressed in parallel and written in order, and the version 2 index built from the
// offsets and CRC-32s recorded on the way.

// packBatch is the number of objects one goroutine compresses at a time: large enough that handing
// batches around costs nothing, small enough that every core has work till the end.
const packBatch = 256

// packedObject is where one object went in a pack.
type packedObject struct {
	hash   plumbing.Hash
	offset uint64
	crc    uint32
}

// writtenPack is a pack written by writePack.
type writtenPack struct {
	fs       billy.Filesystem
	path     string          // objects/pack/pack-<checksum>.pack, relative to fs
	checksum plumbing.Hash   // the pack's trailer, its name
	hashes   []plumbing.Hash // the objects it holds, sorted
}

// holds reports whether the pack holds every one of objs.
func (p *writtenPack) holds(objs []plumbing.Hash) bool {
	for _, h := range objs {
		if _, ok := slices.BinarySearchFunc(p.hashes, h, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) }); !ok {
			return false
		}
	}
	return true
}

// open opens the pack file for reading.
func (p *writtenPack) open() (billy.File, error) { return p.fs.Open(p.path) }

// packTypeCode is the object type of a pack entry header.
func packTypeCode(t plumbing.ObjectType) (byte, error) {
	switch t {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return byte(t), nil // go-git's constants are Git's pack type codes (1 to 4)
	}
	return 0, fmt.Errorf("cannot pack an object of type %s", t)
}

// appendEntryHeader appends the type-and-size header of an undeltified pack entry.
func appendEntryHeader(dst []byte, code byte, size int64) []byte {
	c := code<<4 | byte(size&0x0f)
	size >>= 4
	for size != 0 {
		dst = append(dst, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(dst, c)
}

// compressedBatch is one batch of encoded pack entries: their bytes back to back, where each ends, and
// the CRC-32 of each (Git's index records it to check an entry without inflating it).
type compressedBatch struct {
	buf  []byte
	ends []int
	crcs []uint32
	err  error
}

// entryCompressor encodes pack entries; one per goroutine, its zlib writer reused through Reset.
type entryCompressor struct {
	out    bytes.Buffer
	zw     *zlib.Writer
	stored *zlib.Writer // trees' writer, without compression
	level  int
	fixed  fixedFlater // small blobs' writer at BestSpeed (fixedflate.go)
	buf    []byte
}

func (c *entryCompressor) batch(objs []plumbing.EncodedObject) *compressedBatch {
	b := &compressedBatch{ends: make([]int, 0, len(objs)), crcs: make([]uint32, 0, len(objs))}
	c.out.Reset()
	var hdr [16]byte
	for _, o := range objs {
		start := c.out.Len()
		if err := c.entry(o, hdr[:0]); err != nil {
			b.err = fmt.Errorf("object %s: %w", o.Hash(), err)
			return b
		}
		b.ends = append(b.ends, c.out.Len())
		b.crcs = append(b.crcs, crc32.ChecksumIEEE(c.out.Bytes()[start:]))
	}
	b.buf = bytes.Clone(c.out.Bytes())
	return b
}

func (c *entryCompressor) entry(o plumbing.EncodedObject, hdr []byte) error {
	code, err := packTypeCode(o.Type())
	if err != nil {
		return err
	}
	// A tree's own objects hand over their content (a stored blob is read here, on this goroutine).
	var content []byte
	var size int64
	if co, ok := o.(contentObject); ok {
		if content, err = co.contents(); err != nil {
			return err
		}
		size = int64(len(content))
	} else {
		size = o.Size()
	}
	c.out.Write(appendEntryHeader(hdr, code, size))
	// Trees go uncompressed: they are mostly binary object ids, so deflate gains them little, and building
	// its Huffman tables for each of 87k small trees was over a third of the CPU time of writing an
	// environment, for 2 % of the pack.
	zw, level := &c.zw, c.level
	if o.Type() == plumbing.TreeObject {
		zw, level = &c.stored, zlib.NoCompression
	}
	if *zw == nil {
		*zw, _ = zlib.NewWriterLevel(&c.out, level) // the level is one of zlib's: no error
	} else {
		(*zw).Reset(&c.out)
	}
	if level == zlib.BestSpeed && o.Type() == plumbing.BlobObject && content != nil && len(content) <= fixedFlateMax {
		c.buf = c.fixed.appendZlib(c.buf[:0], content)
		c.out.Write(c.buf)
		return nil
	}
	if content != nil || size == 0 {
		if _, err := (*zw).Write(content); err != nil {
			return err
		}
		return (*zw).Close()
	}
	r, err := o.Reader()
	if err != nil {
		return err
	}
	n, err := io.Copy(*zw, r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("read %d bytes, the object declares %d", n, size)
	}
	if err != nil {
		return err
	}
	return (*zw).Close()
}

// writePack writes objs (distinct objects) as one pack with its version 2 index into objects/pack of
// fs, as git's index-pack does: both go to temporary files first, are synced, then renamed into place
// (the order is explained below). On an error nothing but the removed temporary files was touched, and
// no ref can point into a pack that is not complete.
func writePack(fs billy.Filesystem, objs []plumbing.EncodedObject) (p *writtenPack, err error) {
	return writePackLevel(fs, objs, zlib.BestSpeed, true)
}

// writePackLevel is writePack with the zlib level of its entries: a pack kept on local disk only (a
// TreeStore's) is not worth compressing. Without durable the files are not synced before they are renamed
// into place: a TreeStore is a cache whose reader checks every object it reads, and at 300k assignments
// syncing its 600 MB pack was seconds of a plan.
func writePackLevel(fs billy.Filesystem, objs []plumbing.EncodedObject, level int, durable bool) (p *writtenPack, err error) {
	if len(objs) == 0 {
		return nil, errors.New("writing a pack: no objects")
	}
	if uint64(len(objs)) > 1<<32-1 {
		return nil, fmt.Errorf("writing a pack: %d objects is more than a pack holds", len(objs))
	}
	dir := fs.Join("objects", "pack")
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var tmps []string
	defer func() {
		if err != nil {
			for _, t := range tmps {
				_ = fs.Remove(t)
			}
		}
	}()
	var entries []packedObject
	var checksum plumbing.Hash
	err = writeTemp(fs, dir, "tmp_pack_", &tmps, durable, func(w io.Writer) (err error) {
		entries, checksum, err = writePackData(w, objs, level)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b packedObject) int { return bytes.Compare(a.hash[:], b.hash[:]) })
	for i := 1; i < len(entries); i++ {
		if entries[i].hash == entries[i-1].hash {
			return nil, fmt.Errorf("writing a pack: object %s twice", entries[i].hash)
		}
	}
	err = writeTemp(fs, dir, "tmp_idx_", &tmps, durable, func(w io.Writer) error { return writePackIndex(w, entries, checksum) })
	if err != nil {
		return nil, err
	}

	base := path.Join(dir, "pack-"+checksum.String())
	p = &writtenPack{fs: fs, path: base + ".pack", checksum: checksum, hashes: make([]plumbing.Hash, len(entries))}
	for i, e := range entries {
		p.hashes[i] = e.hash
	}
	_, perr := fs.Lstat(base + ".pack")
	if _, ierr := fs.Lstat(base + ".idx"); perr == nil && ierr == nil {
		// The same objects in the same order were packed before (a retried apply): the pack is there.
		for _, t := range tmps {
			_ = fs.Remove(t)
		}
		return p, nil
	}
	// The index lands before its pack. go-git lists a repository's packs by their .pack files and fails
	// every read while one has no index; git lists .idx files and skips one whose pack is missing (git
	// itself renames the pack first, for its own readers). Index first is the order both read safely.
	for _, mv := range [][2]string{{tmps[1], base + ".idx"}, {tmps[0], base + ".pack"}} {
		if ch, ok := fs.(billy.Chmod); ok {
			_ = ch.Chmod(mv[0], 0o444) // read-only, as git leaves its packs; a failure changes nothing else
		}
		if err := fs.Rename(mv[0], mv[1]); err != nil {
			if mv[1] == base+".pack" {
				_ = fs.Remove(base + ".idx") // no index is left without its pack
			}
			return nil, err
		}
	}
	return p, nil
}

// writeTemp writes a new temporary file in dir with write, syncs it (when durable) and closes it, and
// appends its name to tmps (for the caller to rename or remove).
func writeTemp(fs billy.Filesystem, dir, prefix string, tmps *[]string, durable bool, write func(io.Writer) error) error {
	f, err := fs.TempFile(dir, prefix)
	if err != nil {
		return err
	}
	*tmps = append(*tmps, f.Name())
	err = write(f)
	if s, ok := f.(interface{ Sync() error }); ok && durable && err == nil {
		err = s.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writePackData writes the pack (header, entries in the order of objs, SHA-1 trailer) to w and returns
// where each object went and the trailer. Entries are compressed by up to GOMAXPROCS goroutines, a
// bounded number of batches ahead of the writer.
func writePackData(w io.Writer, objs []plumbing.EncodedObject, level int) ([]packedObject, plumbing.Hash, error) {
	sum := sha1.New() //nolint:gosec // see the import
	out := io.MultiWriter(w, sum)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs))) //nolint:gosec // bounded by writePack
	if _, err := out.Write(hdr[:]); err != nil {
		return nil, plumbing.ZeroHash, err
	}

	nb := (len(objs) + packBatch - 1) / packBatch
	workers := min(runtime.GOMAXPROCS(0), nb)
	results := make([]chan *compressedBatch, nb)
	for i := range results {
		results[i] = make(chan *compressedBatch, 1)
	}
	// A worker takes a token before it takes the next batch, and the writer returns it once that batch is
	// written: batches are taken in order, so the one the writer waits for is always under way.
	tokens := make(chan struct{}, 2*workers)
	quit := make(chan struct{})
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := entryCompressor{level: level}
			for {
				select {
				case tokens <- struct{}{}:
				case <-quit:
					return
				}
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= nb {
					return
				}
				results[i] <- c.batch(objs[i*packBatch : min((i+1)*packBatch, len(objs))])
			}
		}()
	}
	defer func() {
		close(quit)
		wg.Wait()
	}()

	entries := make([]packedObject, len(objs))
	offset := uint64(len(hdr))
	for i := range nb {
		b := <-results[i]
		<-tokens
		if b.err != nil {
			return nil, plumbing.ZeroHash, b.err
		}
		if _, err := out.Write(b.buf); err != nil {
			return nil, plumbing.ZeroHash, err
		}
		start := 0
		for j, end := range b.ends {
			k := i*packBatch + j
			entries[k] = packedObject{hash: objs[k].Hash(), offset: offset + uint64(start), crc: b.crcs[j]} //nolint:gosec // start >= 0
			start = end
		}
		offset += uint64(len(b.buf))
	}
	var checksum plumbing.Hash
	copy(checksum[:], sum.Sum(nil))
	if _, err := w.Write(checksum[:]); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return entries, checksum, nil
}

// writePackIndex writes the version 2 index of a pack: the fan-out table, the sorted object names,
// their CRC-32s and offsets (offsets past 2 GiB in a table of 64-bit offsets), the pack's checksum and
// the index's own. entries must be sorted by hash.
func writePackIndex(w io.Writer, entries []packedObject, packChecksum plumbing.Hash) error {
	sum := sha1.New() //nolint:gosec // see the import
	bw := &errWriter{w: io.MultiWriter(w, sum)}
	bw.write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.hash[0]]++
	}
	var n uint32
	buf := make([]byte, 0, 64*1024)
	flush := func(force bool) {
		if force || len(buf) > cap(buf)-64 {
			bw.write(buf)
			buf = buf[:0]
		}
	}
	for i := range fanout {
		n += fanout[i]
		buf = binary.BigEndian.AppendUint32(buf, n)
	}
	flush(true)
	for _, e := range entries {
		buf = append(buf, e.hash[:]...)
		flush(false)
	}
	for _, e := range entries {
		buf = binary.BigEndian.AppendUint32(buf, e.crc)
		flush(false)
	}
	var large []uint64
	for _, e := range entries {
		if e.offset < 1<<31 {
			buf = binary.BigEndian.AppendUint32(buf, uint32(e.offset))
		} else {
			buf = binary.BigEndian.AppendUint32(buf, 1<<31|uint32(len(large))) //nolint:gosec // fewer than 2^31 objects
			large = append(large, e.offset)
		}
		flush(false)
	}
	for _, o := range large {
		buf = binary.BigEndian.AppendUint64(buf, o)
		flush(false)
	}
	buf = append(buf, packChecksum[:]...)
	flush(true)
	if bw.err != nil {
		return bw.err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// errWriter keeps the first write error, so that a long sequence of writes checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}
