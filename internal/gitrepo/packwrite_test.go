// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git binary is not on PATH: these tests check packs with git itself (fsck, verify-pack, index-pack, cat-file); install git to run them")
	}
}

// packFiles lists objects/pack of a repository.
func packFiles(t *testing.T, gitDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// stageVariety stages objects of every kind and of sizes around the boundaries of the pack entry
// header's size encoding (4 bits, then 7 bits a byte), past zlib's 64 KiB window, incompressible
// and binary, in trees two levels deep under a commit; it returns the commit.
func stageVariety(t *testing.T, st *stagingStorer, parent plumbing.Hash) plumbing.Hash {
	t.Helper()
	rnd := rand.New(rand.NewSource(1)) //nolint:gosec // test data
	random := make([]byte, 200*1024)
	rnd.Read(random)
	binaryBlob := []byte("\x00\x01\x02PNG\r\n\x1a\n\x00\xff\xfe")
	contents := map[string][]byte{
		"empty":      {},
		"binary.bin": binaryBlob,
		"random.bin": random,                                                    // incompressible, > 64 KiB
		"large.yaml": bytes.Repeat([]byte("key: value # a long line\n"), 40000), // 1 MB, compressible
	}
	for _, n := range []int{1, 15, 16, 17, 127, 128, 2047, 2048, 2049, 1 << 14, 1<<14 + 1, 65535, 65536, 65537} {
		contents[fmt.Sprintf("size-%d.txt", n)] = bytes.Repeat([]byte{'a' + byte(n%26)}, n)
	}
	sub := map[string][]byte{}
	for i := 0; i < 300; i++ { // enough objects for several compression batches
		sub[fmt.Sprintf("manifest-%03d.yaml", i)] = []byte(fmt.Sprintf("kind: ConfigMap\nmetadata:\n  name: cm-%d\n", i))
	}
	// Around the largest blob written with fixed Huffman codes (fixedflate.go), as a desired tree's blobs.
	for _, n := range []int{fixedFlateMax - 1, fixedFlateMax, fixedFlateMax + 1} {
		sub[fmt.Sprintf("fixed-%d.yaml", n)] = []byte(strings.Repeat("key: value\n", n/11+1)[:n])
	}
	sub["fixed-random.bin"] = random[:4000]
	// The desired tree's blobs are knownObjects (written with fixed codes up to fixedFlateMax), the others
	// MemoryObjects (compress/flate).
	known := func(c []byte) (plumbing.Hash, error) {
		return st.SetEncodedObject(&knownObject{hash: plumbing.ComputeHash(plumbing.BlobObject, c), typ: plumbing.BlobObject, content: c})
	}
	tree := func(files map[string][]byte, dirs map[string]plumbing.Hash) plumbing.Hash {
		var entries []object.TreeEntry
		for name, c := range files {
			store := func(c []byte) (plumbing.Hash, error) { return storeBlob(st, c) }
			if dirs == nil {
				store = known
			}
			h, err := store(c)
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		}
		for name, h := range dirs {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		h, err := storeTree(st, entries)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	inner := tree(sub, nil)
	root := tree(contents, map[string]plumbing.Hash{"manifests": inner, "again": inner})
	commit, err := storeCommit(st, root, parent, ApplyRequest{Path: ".", Message: "variety"})
	if err != nil {
		t.Fatal(err)
	}
	return commit
}

// The pack an apply writes is a pack git itself reads and checks: git fsck --full --strict, git
// verify-pack, the index equal byte for byte to the one git index-pack builds from the same pack, and
// every object read back by git cat-file and by go-git (through the storage that was open before the
// pack landed, and through a fresh one) equal to what was staged.
func TestWritePack_GitAndGoGitReadEveryObject(t *testing.T) {
	t.Parallel()
	needGit(t)
	// Enough files that git fast-import keeps its pack (it unpacks fewer than 100 objects).
	seed := map[string]string{"README.md": "seed"}
	for i := 0; i < 150; i++ {
		seed[fmt.Sprintf("seed/%d.txt", i)] = fmt.Sprint(i)
	}
	repo := gitserver.NewSeededRepo(t, "", "r.git", "main", seed)
	_, open, err := openStorage(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	parent := plumbing.NewHash(gitserver.Head(t, repo, "main"))
	// Read the seed commit first, so that the storage has loaded its index of packs before the new one.
	if _, err := object.GetCommit(open, parent); err != nil {
		t.Fatal(err)
	}
	if err := open.HasEncodedObject(parent); err != nil {
		t.Fatal(err)
	}
	packsBefore := packFiles(t, repo)
	st := newStaging(open)
	commit := stageVariety(t, st, parent)
	staged := map[plumbing.Hash]plumbing.EncodedObject{}
	for h, i := range st.staged {
		staged[h] = st.order[i]
	}
	if len(staged) < packThreshold {
		t.Fatalf("only %d objects staged", len(staged))
	}
	pack, err := st.flush()
	if err != nil {
		t.Fatal(err)
	}
	if pack == nil {
		t.Fatal("no pack written")
	}
	want := append(packsBefore, "pack-"+pack.checksum.String()+".idx", "pack-"+pack.checksum.String()+".pack")
	sort.Strings(want)
	if got := packFiles(t, repo); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("objects/pack holds %v, want %v", got, want)
	}

	// go-git, through the storage that was open all along and through a fresh one.
	_, fresh, err := openStorage(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for name, s := range map[string]interface {
		EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error)
	}{"the storage open before": open, "a fresh storage": fresh} {
		for h, want := range staged {
			got, err := s.EncodedObject(plumbing.AnyObject, h)
			if err != nil {
				t.Fatalf("%s: object %s: %v", name, h, err)
			}
			if got.Type() != want.Type() || !bytes.Equal(objectBytes(t, got), objectBytes(t, want)) {
				t.Fatalf("%s: object %s differs from what was staged", name, h)
			}
		}
	}

	// git.
	gitserver.Git(t, "", nil, "--git-dir", repo, "update-ref", "refs/heads/main", commit.String(), parent.String())
	gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict", "--no-dangling")
	base := filepath.Join(repo, "objects", "pack", "pack-"+pack.checksum.String())
	verify := gitserver.Git(t, "", nil, "verify-pack", "-v", base+".idx")
	if !strings.Contains(verify, fmt.Sprintf("non delta: %d objects", len(staged))) {
		t.Errorf("git verify-pack -v does not report %d undeltified objects:\n%s", len(staged), lastLines(verify, 3))
	}
	gitIdx := filepath.Join(t.TempDir(), "git.idx")
	gitserver.Git(t, "", nil, "index-pack", "-o", gitIdx, base+".pack")
	ours, err := os.ReadFile(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile(gitIdx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Errorf("the index differs from the one git index-pack builds (%d bytes, git's %d)", len(ours), len(theirs))
	}
	var batch bytes.Buffer
	hashes := make([]string, 0, len(staged))
	for h := range staged {
		hashes = append(hashes, h.String())
	}
	sort.Strings(hashes)
	for _, h := range hashes {
		batch.WriteString(h + "\n")
	}
	out := gitCatFileBatch(t, repo, batch.Bytes())
	for _, h := range hashes {
		want := staged[plumbing.NewHash(h)]
		hdr := fmt.Sprintf("%s %s %d\n", h, want.Type(), want.Size())
		if !bytes.HasPrefix(out, []byte(hdr)) {
			t.Fatalf("git cat-file --batch: want header %q, got %q", hdr, firstLine(out))
		}
		out = out[len(hdr):]
		content := objectBytes(t, want)
		if !bytes.HasPrefix(out, content) {
			t.Fatalf("git cat-file: the content of %s %s differs", want.Type(), h)
		}
		out = out[len(content)+1:]
	}
}

func objectBytes(t *testing.T, o plumbing.EncodedObject) []byte {
	t.Helper()
	r, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gitCatFileBatch runs git cat-file --batch; gitserver.Git trims its output, which would cut content.
func gitCatFileBatch(t *testing.T, repo string, stdin []byte) []byte {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", repo, "cat-file", "--batch")
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	return out
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Offsets past 2 GiB go to the index's table of 64-bit offsets. A pack that large is too slow to write
// in a test, so the index alone is written for such offsets and read back with go-git's decoder.
func TestWritePackIndex_LargeOffsets(t *testing.T) {
	t.Parallel()
	entries := []packedObject{
		{hash: plumbing.NewHash("0100000000000000000000000000000000000000"), offset: 12, crc: 1},
		{hash: plumbing.NewHash("01ff000000000000000000000000000000000000"), offset: 1<<31 - 1, crc: 2},
		{hash: plumbing.NewHash("8000000000000000000000000000000000000000"), offset: 1 << 31, crc: 3},
		{hash: plumbing.NewHash("ff00000000000000000000000000000000000000"), offset: 5 << 32, crc: 4},
	}
	var buf bytes.Buffer
	checksum := plumbing.NewHash("abcdef0000000000000000000000000000000000")
	if err := writePackIndex(&buf, entries, checksum); err != nil {
		t.Fatal(err)
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(&buf).Decode(idx); err != nil {
		t.Fatal(err)
	}
	if idx.PackfileChecksum != checksum {
		t.Errorf("pack checksum %s", idx.PackfileChecksum)
	}
	for _, e := range entries {
		off, err := idx.FindOffset(e.hash)
		if err != nil || uint64(off) != e.offset { //nolint:gosec // offsets are positive
			t.Errorf("%s: offset %d, %v; want %d", e.hash, off, err, e.offset)
		}
		crc, err := idx.FindCRC32(e.hash)
		if err != nil || crc != e.crc {
			t.Errorf("%s: crc %d, %v; want %d", e.hash, crc, err, e.crc)
		}
	}
	if n, _ := idx.Count(); n != int64(len(entries)) {
		t.Errorf("%d objects, want %d", n, len(entries))
	}
}

// failingObject fails to read, as a broken object source would, mid-way through a pack.
type failingObject struct{ plumbing.MemoryObject }

func (*failingObject) Reader() (io.ReadCloser, error) { return nil, errors.New("read fault") }

// A write that fails mid-way (an object that cannot be read, in a later compression batch) leaves
// objects/pack as it was: no pack, no index, no temporary file; the error names the object; the
// repository still passes git fsck and its branch is untouched.
func TestWritePack_FailureMidwayLeavesNothing(t *testing.T) {
	t.Parallel()
	needGit(t)
	repo := gitserver.NewSeededRepo(t, "", "r.git", "main", map[string]string{"README.md": "seed"})
	head := gitserver.Head(t, repo, "main")
	before := packFiles(t, repo)
	var objs []plumbing.EncodedObject
	for i := 0; i < 5*packBatch; i++ {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.BlobObject)
		_, _ = fmt.Fprintf(o, "blob %d\n", i)
		objs = append(objs, o)
	}
	bad := &failingObject{}
	bad.SetType(plumbing.BlobObject)
	_, _ = bad.Write([]byte("unreadable"))
	objs[3*packBatch+7] = bad
	_, err := writePack(osfs.New(repo), objs)
	if err == nil || !strings.Contains(err.Error(), "read fault") || !strings.Contains(err.Error(), bad.Hash().String()) {
		t.Fatalf("error %v, want the read fault of object %s", err, bad.Hash())
	}
	if after := packFiles(t, repo); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("objects/pack holds %v, before %v", after, before)
	}
	gitserver.Git(t, "", nil, "--git-dir", repo, "fsck", "--full", "--strict")
	if got := gitserver.Head(t, repo, "main"); got != head {
		t.Errorf("main moved to %s", got)
	}
}

// A pack with the same objects in the same order as one already there (an identical retried write)
// finds it and leaves one copy.
func TestWritePack_SamePackTwice(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	fs := osfs.New(repo)
	var objs []plumbing.EncodedObject
	for i := 0; i < 3; i++ {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.BlobObject)
		_, _ = fmt.Fprintf(o, "blob %d\n", i)
		objs = append(objs, o)
	}
	p1, err := writePack(fs, objs)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := writePack(fs, objs)
	if err != nil {
		t.Fatal(err)
	}
	if p1.checksum != p2.checksum {
		t.Errorf("checksums %s and %s", p1.checksum, p2.checksum)
	}
	if got := packFiles(t, repo); len(got) != 2 {
		t.Errorf("objects/pack holds %v, want one pack and its index", got)
	}
	if !p1.holds([]plumbing.Hash{objs[2].Hash(), objs[0].Hash()}) || p1.holds([]plumbing.Hash{plumbing.ComputeHash(plumbing.BlobObject, []byte("other"))}) {
		t.Error("holds answers wrongly")
	}
	st := filesystem.NewStorage(fs, cache.NewObjectLRUDefault())
	for _, o := range objs {
		if _, err := st.EncodedObject(plumbing.BlobObject, o.Hash()); err != nil {
			t.Errorf("go-git cannot read %s: %v", o.Hash(), err)
		}
	}
}
