// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// FolderLog is a branch's first-parent history read for the folders two levels under a path (in a GitOps
// tree: <cluster type>/<deployment target>), with which commit last changed each folder the head holds.
type FolderLog struct {
	// Commits are the commits read, newest first, each with the content of the file asked for.
	Commits []LogEntry
	// Folders maps each folder of the head ("<cluster type>/<deployment target>", relative to the path) to
	// its Git tree id: equal ids, equal content.
	Folders map[string]string
	// Changed is, per folder of the head, the position in Commits of the commit that last changed it (the
	// oldest commit from the head on that holds it as the head does). A folder that every commit read holds
	// alike is absent, unless the history reaches the branch's first commit (Complete).
	Changed  map[string]int
	Complete bool
}

// LogFolders reads up to limit commits of branch's first-parent history under dir (a cleaned path, "" for
// the root), each with the content of file ("" reads none), and tells which commit last changed each
// folder two levels under dir. A commit whose cluster type folder has the head's tree id is not opened
// further, so a long history of changes to a few folders costs what those folders cost.
func (c *Client) LogFolders(ctx context.Context, repoURL, branch, dir string, limit int, file string) (*FolderLog, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (*FolderLog, error) {
		return c.logFolders(ctx, repoURL, branch, dir, limit, file)
	})
}

func (c *Client) logFolders(ctx context.Context, repoURL, branch, dir string, limit int, file string) (*FolderLog, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(dir), Err: c.scrub().Error(err)}
	}
	out := &FolderLog{Folders: map[string]string{}, Changed: map[string]int{}}
	// alive holds, per cluster type folder of the head, its tree id and the folders under it whose content
	// every commit read so far holds as the head does. Ids stay binary here: a fleet's history compares
	// millions of them, and only the head's folders need their hex form.
	type folder struct {
		id plumbing.Hash
		// seen is the position of the last commit read that holds the folder with id.
		seen int
	}
	type group struct {
		id      plumbing.Hash
		folders map[string]*folder
	}
	alive := map[string]*group{}
	var buf []byte
	complete, err := c.walkFirstParent(ctx, repoURL, branch, limit, opErr, func(s *session, cm *object.Commit) error {
		pos := len(out.Commits)
		e, err := logEntry(cm, file)
		if err != nil {
			return err
		}
		out.Commits = append(out.Commits, e)
		types, found, err := subdirHashes(s.repo.Storer, cm.TreeHash, dir)
		if err != nil {
			return err
		}
		if pos == 0 {
			if !found {
				return withClass(ErrPathNotFound, fmt.Errorf("no directory at this path at commit %s", cm.Hash))
			}
			for ct, id := range types {
				sub, _, err := subdirHashes(s.repo.Storer, id, "")
				if err != nil {
					return err
				}
				g := &group{id: id, folders: make(map[string]*folder, len(sub))}
				for dt, fid := range sub {
					out.Folders[ct+"/"+dt] = fid.String()
					g.folders[dt] = &folder{id: fid}
				}
				alive[ct] = g
			}
			return nil
		}
		for ct, g := range alive {
			id, ok := types[ct]
			if ok && id == g.id {
				continue
			}
			// Folders still alive are those this commit holds with the head's id; the tree is scanned in place
			// (no map of it is built): a fleet's history holds thousands of cluster type trees.
			if ok {
				buf, err = s.rawTree(id, buf)
				if err != nil {
					return err
				}
				if err := eachDir(buf, func(name []byte, h plumbing.Hash) {
					if f, alive := g.folders[string(name)]; alive && f.id == h {
						f.seen = pos
					}
				}); err != nil {
					return fmt.Errorf("tree %s: %w", id, err)
				}
			}
			for dt, f := range g.folders {
				if f.seen != pos {
					// The previous (newer) commit is the oldest that holds this folder as the head does.
					out.Changed[ct+"/"+dt] = pos - 1
					delete(g.folders, dt)
				}
			}
			if len(g.folders) == 0 {
				delete(alive, ct)
			} else {
				// Compare the next commit against this one's id: folders still alive are equal here.
				g.id = id
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.Complete = complete; complete {
		for ct, g := range alive {
			for dt := range g.folders {
				out.Changed[ct+"/"+dt] = len(out.Commits) - 1
			}
		}
	}
	return out, nil
}

// subdirHashes maps the directories directly under dir of the tree root to their tree ids; found is false
// (and the map empty) when dir is absent.
func subdirHashes(s storer.EncodedObjectStorer, root plumbing.Hash, dir string) (map[string]plumbing.Hash, bool, error) {
	t, err := object.GetTree(s, root)
	if err != nil {
		return nil, false, err
	}
	if dir != "" {
		if t, err = t.Tree(dir); errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return map[string]plumbing.Hash{}, false, nil
		} else if err != nil {
			return nil, false, err
		}
	}
	out := make(map[string]plumbing.Hash, len(t.Entries))
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			out[e.Name] = e.Hash
		}
	}
	return out, true, nil
}

// rawTree reads the encoded tree object h into buf (reused) and returns it.
func (s *session) rawTree(h plumbing.Hash, buf []byte) ([]byte, error) {
	obj, err := s.repo.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return buf, err
	}
	r, err := obj.Reader()
	if err != nil {
		return buf, err
	}
	defer r.Close()
	b := bytes.NewBuffer(buf[:0])
	_, err = b.ReadFrom(r)
	return b.Bytes(), err
}

// hashSize is the size of a binary object id in a tree entry.
const hashSize = len(plumbing.ZeroHash)

// eachDir calls fn with the name and id of each directory entry of an encoded tree object (entries are
// "<octal mode> <name>\x00<20-byte id>"; a directory's mode is 40000).
func eachDir(tree []byte, fn func(name []byte, id plumbing.Hash)) error {
	for len(tree) > 0 {
		sp := bytes.IndexByte(tree, ' ')
		nul := bytes.IndexByte(tree, 0)
		if sp < 0 || nul < sp || nul+1+hashSize > len(tree) {
			return errors.New("malformed tree entry")
		}
		if mode := string(tree[:sp]); mode == "40000" || mode == "040000" {
			var h plumbing.Hash
			copy(h[:], tree[nul+1:nul+1+hashSize])
			fn(tree[sp+1:nul], h)
		}
		tree = tree[nul+1+hashSize:]
	}
	return nil
}

// subdirIDs maps the directories directly under dir of the tree root to their tree ids (empty when dir is absent).
func subdirIDs(s storer.EncodedObjectStorer, root plumbing.Hash, dir string) (map[string]string, error) {
	hashes, _, err := subdirHashes(s, root, dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(hashes))
	for name, h := range hashes {
		out[name] = h.String()
	}
	return out, nil
}

// TreeFile is a regular file below a tree: its slash path relative to the tree and its blob id.
type TreeFile struct{ Path, Blob string }

// ListTrees returns, per tree id, the regular files below that tree, sorted by path, with their blob ids
// and no content: Git names a file by its content, so a caller compares ids and reads (ReadBlobs) only
// the few distinct blobs it needs. An id listed twice is read once. Like ReadBlobs it reads the objects an
// earlier read of the repository fetched (LogFolders) and never contacts the remote.
func (c *Client) ListTrees(repoURL string, ids []string) (map[string][]TreeFile, error) {
	s, err := c.open(repoURL)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := make(map[string][]TreeFile, len(ids))
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		var files []TreeFile
		if err := listFiles(s.repo.Storer, plumbing.NewHash(id), "", &files); err != nil {
			return nil, s.objectReadError("tree", id, err)
		}
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		out[id] = files
	}
	return out, nil
}

// listFiles appends the regular files below tree h, their paths prefixed with prefix.
func listFiles(s storer.EncodedObjectStorer, h plumbing.Hash, prefix string, out *[]TreeFile) error {
	t, err := object.GetTree(s, h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := prefix + e.Name
		switch {
		case e.Mode == filemode.Dir:
			if err := listFiles(s, e.Hash, p+"/", out); err != nil {
				return err
			}
		case isRegular(e.Mode):
			*out = append(*out, TreeFile{Path: p, Blob: e.Hash.String()})
		}
	}
	return nil
}
