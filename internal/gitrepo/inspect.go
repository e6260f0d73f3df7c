// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// EmptyTreeID is the Git id of the empty tree: the managed tree of a path that holds no files.
const EmptyTreeID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// InspectRequest asks what a branch holds under a path, without reading file contents.
type InspectRequest struct {
	RepoURL string
	Branch  string
	Path    string
	// RootFiles are repository-root-relative files whose content is returned when present.
	RootFiles []string
	// Marker is the file name of the ownership record (see Inspection.Markers); empty: not looked for.
	// Only ancestors of the path are looked up here; records below the path are files under it, which
	// Inspection.Diff reports.
	Marker string
	// ListFiles fills Inspection.Managed with every file under the path. Without it the path's trees are
	// not walked: a whole environment is 87k trees, and a plan only needs the ones that differ
	// (Inspection.Diff).
	ListFiles bool
}

// Entry is a file of a tree: its blob id and mode.
type Entry struct {
	Hash string
	Mode filemode.FileMode
}

// Gitlink reports whether the entry is a submodule: Hash is then a commit of another repository, which
// this one does not hold, so there is no content to read.
func (e Entry) Gitlink() bool { return e.Mode == filemode.Submodule }

// GitlinkText is what Git shows as the content of a submodule entry at commit (`git diff` prints
// "Subproject commit <id>"): the plan's stand-in for the content of a gitlink it deletes.
func GitlinkText(commit string) string { return "Subproject commit " + commit + "\n" }

// Inspection is what a branch holds under a path, read from one commit.
type Inspection struct {
	// BranchExists is false when the branch does not exist; the other fields are then empty.
	BranchExists bool
	// Branches lists the repository's branches, sorted; filled only when the branch does not exist.
	Branches []string
	// BaseBranch is the branch read: Branch, or "" when it does not exist.
	BaseBranch string
	// HeadSHA is the commit read ("" for an empty repository).
	HeadSHA string
	// Managed holds the files under the path, dot-entries at its root excluded, relative to the path.
	// Filled only with InspectRequest.ListFiles.
	Managed map[string]Entry
	// ManagedTree is the Git tree id of the managed files alone (EmptyTreeID when there are none).
	ManagedTree string
	// RootFiles holds the requested root-relative files that exist.
	RootFiles map[string][]byte
	// Markers lists the ancestors of the path (root-relative, "." for the root) that hold a file named Marker.
	Markers []string
	// PathFile is the root-relative file that stands where the path (or one of its parent directories)
	// would be, "" when there is none: an apply would replace that file with a directory.
	PathFile string
	// CaseTwin is the root-relative directory or file on the branch whose name differs from the path (or one
	// of its parent directories) only in letter case, "" when there is none: a case-insensitive checkout
	// (Windows, macOS) holds one directory for both, so the two trees mix there.
	CaseTwin string

	// Diff reads the path's trees from here.
	client  *Client
	repoURL string
	sub     plumbing.Hash // the tree at the path, dot-entries included; zero when the path does not exist
	listed  bool          // Managed is complete (ListFiles)
}

// Inspect reads the tree of a branch under a path: the managed tree id, selected root files, ownership
// records above the path and, with ListFiles, every file's blob id (no content). A missing branch is not an error: Inspection says so
// and lists the branches that exist.
func (c *Client) Inspect(ctx context.Context, req InspectRequest) (*Inspection, error) {
	return withCacheRecovery(ctx, c, req.RepoURL, func() (*Inspection, error) { return c.inspect(ctx, req) })
}

// inspect is Inspect without the cache recovery.

func (c *Client) inspect(ctx context.Context, req InspectRequest) (*Inspection, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: req.RepoURL, Branch: req.Branch, Path: displayPath(req.Path), Err: c.scrub().Error(err)}
	}
	dir, err := CleanPath(req.Path)
	if err != nil {
		return nil, opErr(err)
	}
	s, err := c.open(req.RepoURL)
	if err != nil {
		return nil, opErr(err)
	}
	defer s.close()
	out := &Inspection{BranchExists: true, BaseBranch: req.Branch, Managed: map[string]Entry{}, RootFiles: map[string][]byte{}, ManagedTree: EmptyTreeID,
		client: c, repoURL: req.RepoURL}
	h, err := s.head(ctx, req.Branch)
	if errors.Is(err, ErrBranchNotFound) {
		// A missing branch holds nothing; a created one starts empty (ApplyRequest.Orphan).
		out.BranchExists, out.BaseBranch = false, ""
		if out.Branches, err = s.branches(ctx); err != nil {
			return nil, opErr(err)
		}
		return out, nil
	}
	if err != nil {
		return nil, opErr(err)
	}
	out.HeadSHA = h.String()
	memo := c.inspectMemoPath(req, dir)
	if recallInspection(memo, h, out) {
		return out, nil
	}
	commit, err := object.GetCommit(s.repo.Storer, h)
	if err != nil {
		return nil, opErr(err)
	}
	if err := s.inspectTree(out, commit.TreeHash, dir, req); err != nil {
		return nil, opErr(err)
	}
	keepInspection(memo, h, out)
	return out, nil
}

func (s *session) inspectTree(out *Inspection, root plumbing.Hash, dir string, req InspectRequest) error {
	st := s.repo.Storer
	sub, found, err := subtree(st, root, dir)
	if err != nil {
		return err
	}
	if found {
		out.sub = sub
	}
	out.listed = req.ListFiles
	if found && req.ListFiles {
		leaves := map[string]entryInfo{}
		if err := walkLeaves(st, sub, "", leaves); err != nil {
			return err
		}
		for p, e := range leaves {
			if top, _, _ := strings.Cut(p, "/"); !isDotEntry(top) {
				out.Managed[p] = Entry{Hash: e.Hash.String(), Mode: e.Mode}
			}
		}
	}
	if found {
		if out.ManagedTree, err = managedTreeID(s, sub); err != nil {
			return err
		}
	} else if out.PathFile, err = fileInTheWay(s, root, dir); err != nil {
		return err
	}
	if out.CaseTwin, err = caseTwin(s, root, dir); err != nil {
		return err
	}
	if req.Marker != "" && dir != "" {
		segs := strings.Split(dir, "/")
		for i := len(segs) - 1; i >= 0; i-- {
			anc := strings.Join(segs[:i], "/")
			if ok, err := hasFile(s, root, anc, req.Marker); err != nil {
				return err
			} else if ok {
				out.Markers = append(out.Markers, displayPath(anc))
			}
		}
	}
	sort.Strings(out.Markers)
	for _, name := range req.RootFiles {
		segs := strings.Split(name, "/")
		parent, found, err := subtree(st, root, strings.Join(segs[:len(segs)-1], "/"))
		if err != nil || !found {
			continue
		}
		t, err := object.GetTree(st, parent)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			if e.Name == segs[len(segs)-1] && isRegular(e.Mode) {
				b, err := readBlob(st, e.Hash)
				if err != nil {
					return err
				}
				out.RootFiles[name] = b
			}
		}
	}
	return nil
}

// fileInTheWay returns the first prefix of dir (root-relative) that is a file of tree root, or "".
func fileInTheWay(s *session, root plumbing.Hash, dir string) (string, error) {
	if dir == "" || root.IsZero() {
		return "", nil
	}
	segs := strings.Split(dir, "/")
	for i := range segs {
		parent := strings.Join(segs[:i], "/")
		ok, err := hasFile(s, root, parent, segs[i])
		if err != nil || ok {
			return strings.Join(segs[:i+1], "/"), err
		}
		if _, found, err := subtree(s.repo.Storer, root, strings.Join(segs[:i+1], "/")); err != nil || !found {
			return "", err
		}
	}
	return "", nil
}

// caseTwin returns the first entry of tree root (root-relative) whose name differs from a component of dir
// only in letter case, below the parts of dir that exist; "" when there is none.
func caseTwin(s *session, root plumbing.Hash, dir string) (string, error) {
	if dir == "" || root.IsZero() {
		return "", nil
	}
	segs := strings.Split(dir, "/")
	cur := root
	for i, seg := range segs {
		t, err := object.GetTree(s.repo.Storer, cur)
		if err != nil {
			return "", err
		}
		next := plumbing.ZeroHash
		for _, e := range t.Entries {
			switch {
			case e.Name == seg && e.Mode == filemode.Dir:
				next = e.Hash
			case e.Name != seg && strings.EqualFold(e.Name, seg):
				return strings.Join(append(append([]string(nil), segs[:i]...), e.Name), "/"), nil
			}
		}
		if next.IsZero() {
			return "", nil
		}
		cur = next
	}
	return "", nil
}

// hasFile reports whether directory dir of tree root holds a regular file name.
func hasFile(s *session, root plumbing.Hash, dir, name string) (bool, error) {
	h, found, err := subtree(s.repo.Storer, root, dir)
	if err != nil || !found {
		return false, err
	}
	t, err := object.GetTree(s.repo.Storer, h)
	if err != nil {
		return false, err
	}
	for _, e := range t.Entries {
		if e.Name == name && e.Mode != filemode.Dir {
			return true, nil
		}
	}
	return false, nil
}

// managedTreeID is the id of tree h without its root dot-entries, computed without storing anything.
func managedTreeID(s *session, h plumbing.Hash) (string, error) {
	t, err := object.GetTree(s.repo.Storer, h)
	if err != nil {
		return "", err
	}
	entries := make([]object.TreeEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		if !isDotEntry(e.Name) {
			entries = append(entries, e)
		}
	}
	if len(entries) == len(t.Entries) {
		return h.String(), nil
	}
	return treeID(s, entries)
}

func treeID(s *session, entries []object.TreeEntry) (string, error) {
	obj := s.repo.Storer.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return "", err
	}
	return obj.Hash().String(), nil
}

// branches lists the repository's branch names, sorted.
func (s *session) branches(ctx context.Context) ([]string, error) {
	var names []string
	if s.e.local {
		iter, err := s.repo.Branches()
		if err != nil {
			return nil, err
		}
		_ = iter.ForEach(func(r *plumbing.Reference) error {
			names = append(names, r.Name().Short())
			return nil
		})
	} else {
		ctx, cancel := s.c.withTimeout(ctx)
		defer cancel()
		rem, err := s.repo.Remote("origin")
		if err != nil {
			return nil, err
		}
		start := time.Now()
		refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: s.auth, CABundle: s.c.caBundle()})
		s.debug(ctx, "git ls-remote (branches)", start, err, nil)
		if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil, classify(err)
		}
		for _, r := range refs {
			if r.Name().IsBranch() {
				names = append(names, r.Name().Short())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// ReadBlobs returns the content of blobs by id from the repository (or its cache entry, filled by an
// earlier Inspect of the same branch); it never contacts the remote.
func (c *Client) ReadBlobs(repoURL string, ids []string) (map[string][]byte, error) {
	s, err := c.open(repoURL)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		b, err := readBlob(s.repo.Storer, plumbing.NewHash(id))
		if err != nil {
			return nil, s.objectReadError("blob", id, err)
		}
		out[id] = b
	}
	return out, nil
}

// objectReadError: ReadBlobs and ListTrees cannot refetch on their own (they know no branch), so a damaged
// cache entry of a remote is discarded here, and the error says that the next plan fetches it again rather
// than blaming the remote. kind is "blob" or "tree".
func (s *session) objectReadError(kind, id string, err error) error {
	err = fmt.Errorf("reading %s %s: %w", kind, id, err)
	if !isCacheCorruption(err) || s.e.local {
		return err
	}
	if rerr := s.resetCache(); rerr != nil {
		return withClass(ErrCorruptCache, fmt.Errorf("%w (discarding the cache entry failed too: %v)", err, rerr))
	}
	return withClass(ErrCorruptCache, fmt.Errorf("%w (the cache entry was discarded; the next plan fetches it again)", err))
}

// BlobID is the Git blob id of content.
func BlobID(content []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, content).String()
}
