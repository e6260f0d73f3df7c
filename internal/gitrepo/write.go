// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Signature is a commit author.
type Signature struct {
	Name  string
	Email string
}

// DefaultAuthor is used when ApplyRequest.Author is empty.
var DefaultAuthor = Signature{Name: "Kalypso Terraform Provider", Email: "kalypso@noreply.invalid"}

// ApplyRequest describes the desired content of a path on a branch.
type ApplyRequest struct {
	RepoURL string
	Branch  string
	// Path is the managed directory ("" or "." for the root). Every file below it that is
	// not in Files is deleted, except dot-entries at its root, which are never touched.
	Path string
	// Files maps names relative to Path to content. Names may not start with a dot-entry.
	Files map[string][]byte
	// Tree, when set, is NewTreeFromFiles(Files), built earlier in this process (by the plan): the apply
	// then does not build it again.
	Tree *Tree
	// RootFiles are written at repository-root-relative paths (e.g. .github/tracking/Promoted_Commit_Id).
	RootFiles map[string][]byte
	// DeleteRootFiles are repository-root-relative paths removed when present.
	DeleteRootFiles []string
	Message         string
	// Describe, when set, makes the commit message from the change the commit makes (Message is ignored).
	Describe func(Changes) string
	Author   Signature
	// HeadBranch enables pull-request mode: the commit is built on Branch's head and written to
	// HeadBranch, never to Branch. An existing HeadBranch is moved only when its head commit carries
	// HeadMarker, and only by a compare-and-swap against that commit: a commit someone else pushed
	// there fails the apply with ErrForeignBranch, and one pushed meanwhile makes the push retry.
	HeadBranch string
	// HeadMarker is a trailer line written into the message of every head-branch commit: the proof that a
	// later apply may move the branch.
	HeadMarker string
	// Trailers are lines ("Token: value") written as the message's last paragraph, with HeadMarker.
	Trailers []string
	// CreateFrom names the branch a missing Branch is created from (direct mode only);
	// empty means the repository's default branch, or an orphan commit in an empty repository.
	CreateFrom string
	// NoCreate makes a missing Branch an ErrBranchNotFound error instead of creating it.
	NoCreate bool
	// Orphan creates a missing Branch as a commit without parent holding only what this request writes
	// (CreateFrom is ignored): what it holds then does not depend on other branches moving meanwhile.
	Orphan bool
	// ExpectedManagedTree, when set, is the managed tree id of Path (Inspection.ManagedTree) the change
	// was planned against: if the base holds anything else under Path, Apply writes nothing and fails with
	// ErrStale. Commits that changed only files outside Path are built upon as usual.
	ExpectedManagedTree string
	// Vacate, when set, is a second managed directory emptied in the same commit: the old side of a move
	// on this branch, so that the new location and the removal of the old one land together. Every file
	// below it is deleted, except the dot-entries at its root (DeleteRootFiles removes those it names).
	// It may neither be Path nor contain it or lie inside it. Its removed files are Changes.Vacated.
	Vacate string
	// VacateExpectedTree is ExpectedManagedTree for Vacate: the managed tree the removal was planned against.
	VacateExpectedTree string
	// ReuseBranch and ReusePath name a directory on another branch of the same repository (the old side of a
	// move to this branch): the new tree refers to the trees and blobs the remote has there without sending
	// them. A branch that cannot be read only costs the push its size.
	ReuseBranch, ReusePath string
}

// Changes lists the files that differ between the base commit and the desired set, relative to Path.
type Changes struct {
	Added, Modified, Removed []string
	// Root lists the RootFiles/DeleteRootFiles paths whose content changed.
	Root []string
	// Vacated lists the files removed below ApplyRequest.Vacate, relative to it.
	Vacated []string
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool {
	return len(c.Added)+len(c.Modified)+len(c.Removed)+len(c.Root)+len(c.Vacated) == 0
}

// ApplyResult is the outcome of Apply.
type ApplyResult struct {
	// CommitSHA is the commit now holding the desired content: the new commit, the
	// unchanged branch head, or in pull-request mode the head-branch commit
	// (the base head when there is nothing to propose).
	CommitSHA string
	// BaseSHA is the Branch head the change was computed on ("" for an orphan).
	BaseSHA string
	// Changed is true when the desired tree differs from Branch's head.
	Changed bool
	// Pushed is true when a ref was updated.
	Pushed        bool
	BranchCreated bool
	Attempts      int
	Changes       Changes
}

// errRejected marks a ref update lost to a concurrent writer; Apply retries it.
var errRejected = errors.New("the branch moved while pushing")

// Apply makes the content of req.Path on req.Branch equal req.Files in one commit,
// retrying on non-fast-forward rejections by rebuilding on the new head. No commit
// is created when nothing changes.
func (c *Client) Apply(ctx context.Context, req ApplyRequest) (ApplyResult, error) {
	return withCacheRecovery(ctx, c, req.RepoURL, func() (ApplyResult, error) { return c.apply(ctx, req) })
}

// apply is Apply without the cache recovery: a damaged cache fails before anything is pushed.

func (c *Client) apply(ctx context.Context, req ApplyRequest) (ApplyResult, error) {
	opErr := func(err error) error {
		return &Error{Op: "write", Repo: req.RepoURL, Branch: req.Branch, Path: displayPath(req.Path), Err: c.scrub().Error(err)}
	}
	dir, err := CleanPath(req.Path)
	if err != nil {
		return ApplyResult{}, opErr(err)
	}
	if req.Branch == "" {
		return ApplyResult{}, opErr(withClass(ErrInvalidInput, errors.New("branch is empty")))
	}
	if req.HeadBranch != "" && req.HeadBranch == req.Branch {
		return ApplyResult{}, opErr(withClass(ErrInvalidInput, fmt.Errorf("the head branch %q is the base branch", req.HeadBranch)))
	}
	if err := validateRequest(req); err != nil {
		return ApplyResult{}, opErr(err)
	}
	if req.Vacate != "" {
		if req.Vacate, err = CleanPath(req.Vacate); err != nil {
			return ApplyResult{}, opErr(err)
		}
		if req.Vacate == dir || req.Vacate == "" || dir == "" || strings.HasPrefix(req.Vacate, dir+"/") || strings.HasPrefix(dir, req.Vacate+"/") {
			return ApplyResult{}, opErr(withClass(ErrInvalidInput, fmt.Errorf("the path to vacate %q and the path %q contain one another", displayPath(req.Vacate), displayPath(dir))))
		}
	}
	s, err := c.open(req.RepoURL)
	if err != nil {
		return ApplyResult{}, opErr(err)
	}
	defer s.close()

	var res ApplyResult
	for attempt := 1; attempt <= c.maxRetries()+1; attempt++ {
		res, err = s.applyOnce(ctx, req, dir, attempt)
		res.Attempts = attempt
		if errors.Is(err, errRejected) {
			s.debug(ctx, "git push rejected: the branch moved; re-applying on its new head", time.Time{}, err,
				map[string]any{"branch": req.Branch, "attempt": attempt, "max_attempts": c.maxRetries() + 1})
			continue
		}
		if err != nil {
			return res, opErr(err)
		}
		return res, nil
	}
	return res, opErr(withClass(ErrConflict, fmt.Errorf("the branch kept moving; gave up after %d attempts", c.maxRetries()+1)))
}

func validateRequest(req ApplyRequest) error {
	if err := checkCommitText(req.Author, req.Message); err != nil {
		return err
	}
	for name := range req.Files {
		if err := ValidateFileName(name); err != nil {
			return err
		}
		if isDotEntry(strings.SplitN(name, "/", 2)[0]) {
			return withClass(ErrInvalidInput, fmt.Errorf("file %q: dot-entries at the root of the path are never managed", name))
		}
	}
	for name := range req.RootFiles {
		if err := ValidateFileName(name); err != nil {
			return err
		}
	}
	for _, name := range req.DeleteRootFiles {
		if err := ValidateFileName(name); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) applyOnce(ctx context.Context, req ApplyRequest, dir string, attempt int) (ApplyResult, error) {
	// New objects are staged and written together before the ref moves (stage.go).
	st := newStaging(s.repo.Storer)
	var res ApplyResult
	base, created, err := s.base(ctx, req)
	if err != nil {
		return res, err
	}
	res.BranchCreated = created
	baseTree, err := commitTree(st, base)
	if err != nil {
		return res, err
	}
	if !base.IsZero() {
		res.BaseSHA = base.String()
	}
	if err := s.checkExpectedTree(st, baseTree, dir, req.ExpectedManagedTree); err != nil {
		return res, err
	}
	if req.Vacate != "" {
		if err := s.checkExpectedTree(st, baseTree, req.Vacate, req.VacateExpectedTree); err != nil {
			return res, withClass(ErrStale, fmt.Errorf("at the old location %q: %w", displayPath(req.Vacate), err))
		}
	}
	b := &builder{st: st}
	if b.onRemote, err = s.objectsOnRemote(ctx, st, baseTree, req); err != nil {
		return res, err
	}
	newTree, err := buildTree(b, baseTree, dir, req)
	if err != nil {
		return res, err
	}
	res.Changes = b.changes
	res.Changed = newTree != baseTree
	if req.Describe != nil {
		req.Message = req.Describe(res.Changes)
	}
	pr := req.HeadBranch != ""

	if !res.Changed && !base.IsZero() {
		return s.unchanged(ctx, req, res, base, created && !pr)
	}

	target, old := req.Branch, base
	if created {
		old = plumbing.ZeroHash
	}
	if pr {
		target = req.HeadBranch
		cur, reuse, err := s.headBranchState(ctx, st, req, newTree, base)
		if err != nil {
			return res, err
		}
		if reuse {
			res.CommitSHA = cur.String()
			return res, nil
		}
		old = cur
	}
	return s.commitAndUpdate(ctx, st, b, res, req, attempt, updateSpec{target: target, old: old, tree: newTree, parent: base})
}

// objectsOnRemote returns the trees and blobs the remote has below the old side of a move, which the new
// tree may refer to without sending them: below req.Vacate of the base commit (a move on this branch), or
// below req.ReusePath of req.ReuseBranch's head (a move from another branch of the repository).
func (s *session) objectsOnRemote(ctx context.Context, st storer.EncodedObjectStorer, baseTree plumbing.Hash, req ApplyRequest) (map[plumbing.Hash]bool, error) {
	switch {
	case req.Vacate != "":
		return objectsBelow(st, baseTree, req.Vacate)
	case req.ReuseBranch != "" && req.ReuseBranch != req.Branch:
		return s.objectsOnBranch(ctx, st, req.ReuseBranch, req.ReusePath), nil
	}
	return nil, nil
}

// objectsOnBranch is objectsBelow path of branch's head, or nil when that cannot be read (a branch gone
// meanwhile, the root): the push then sends everything, as it would without it.
func (s *session) objectsOnBranch(ctx context.Context, st storer.EncodedObjectStorer, branch, path string) map[plumbing.Hash]bool {
	dir, err := CleanPath(path)
	if err != nil || dir == "" {
		return nil
	}
	h, err := s.head(ctx, branch)
	tree := plumbing.ZeroHash
	if err == nil {
		tree, err = commitTree(st, h)
	}
	var known map[plumbing.Hash]bool
	if err == nil {
		known, err = objectsBelow(st, tree, dir)
	}
	if err != nil {
		return nil
	}
	return known
}

// commitTree returns the tree of commit h, or the zero hash for a zero h (an orphan).
func commitTree(st storer.EncodedObjectStorer, h plumbing.Hash) (plumbing.Hash, error) {
	if h.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := object.GetCommit(st, h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// checkExpectedTree fails with ErrStale when the managed tree under dir of baseTree is not expected
// (the tree the change was planned against); an empty expected checks nothing.
func (s *session) checkExpectedTree(st storer.EncodedObjectStorer, baseTree plumbing.Hash, dir, expected string) error {
	if expected == "" {
		return nil
	}
	got := EmptyTreeID
	sub, found, err := subtree(st, baseTree, dir)
	if err != nil {
		return err
	}
	if found && !sub.IsZero() {
		if got, err = managedTreeID(s, sub); err != nil {
			return err
		}
	}
	if got != expected {
		return withClass(ErrStale, fmt.Errorf("the files under the path changed on the branch after the plan (planned against tree %s, the branch now holds %s)", expected[:12], got[:12]))
	}
	return nil
}

// unchanged is the outcome of an apply whose tree equals the base commit's: only a branch to create
// (createRef) moves, to the base commit.
func (s *session) unchanged(ctx context.Context, req ApplyRequest, res ApplyResult, base plumbing.Hash, createRef bool) (ApplyResult, error) {
	res.CommitSHA = base.String()
	if createRef {
		if err := s.updateRef(ctx, req.Branch, plumbing.ZeroHash, base, nil, nil); err != nil {
			return res, err
		}
		res.Pushed = true
	}
	return res, nil
}

// headBranchState returns the head branch's commit (zero when it does not exist), and reuse=true when
// the open proposal already holds exactly tree on base. A head branch whose commit this resource did not
// write is ErrForeignBranch.
func (s *session) headBranchState(ctx context.Context, st storer.EncodedObjectStorer, req ApplyRequest, tree, base plumbing.Hash) (plumbing.Hash, bool, error) {
	cur, err := s.head(ctx, req.HeadBranch)
	if errors.Is(err, ErrBranchNotFound) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	if ours, err := ownedHead(st, req, cur); err != nil {
		return plumbing.ZeroHash, false, err
	} else if !ours {
		return plumbing.ZeroHash, false, withClass(ErrForeignBranch, fmt.Errorf(
			"the head branch %q is at commit %s, which this resource did not write (its message has no %q line)", req.HeadBranch, short(cur), req.HeadMarker))
	}
	if hc, err := object.GetCommit(st, cur); err == nil && hc.TreeHash == tree &&
		len(hc.ParentHashes) == 1 && hc.ParentHashes[0] == base {
		return cur, true, nil
	}
	return cur, false, nil
}

// updateSpec is the ref move of an apply: target from old to a new commit of tree on parent.
type updateSpec struct {
	target       string
	old          plumbing.Hash
	tree, parent plumbing.Hash
}

// commitAndUpdate stores the commit, writes the staged objects and moves the ref.
func (s *session) commitAndUpdate(ctx context.Context, st *stagingStorer, b *builder, res ApplyResult, req ApplyRequest, attempt int, u updateSpec) (ApplyResult, error) {
	commit, err := storeCommit(st, u.tree, u.parent, req)
	if err != nil {
		return res, err
	}
	b.newObjs = append(b.newObjs, commit)
	if s.c.hookBeforeUpdate != nil {
		s.c.hookBeforeUpdate(attempt)
	}
	if b.newObjs, err = st.prune(commit, b.newObjs); err != nil {
		return res, err
	}
	pack, err := st.flush()
	if err != nil {
		return res, err
	}
	if err := s.updateRef(ctx, u.target, u.old, commit, b.newObjs, pack); err != nil {
		return res, err
	}
	res.CommitSHA = commit.String()
	res.Pushed = true
	return res, nil
}

// base returns the commit the change is built on, and whether Branch is created by this apply.
func (s *session) base(ctx context.Context, req ApplyRequest) (plumbing.Hash, bool, error) {
	h, err := s.head(ctx, req.Branch)
	if err == nil {
		return h, false, nil
	}
	if !errors.Is(err, ErrBranchNotFound) || req.HeadBranch != "" || req.NoCreate {
		return plumbing.ZeroHash, false, err
	}
	if req.Orphan {
		return plumbing.ZeroHash, true, nil
	}
	from := req.CreateFrom
	if from == "" {
		if from, err = s.defaultBranch(ctx); err != nil {
			return plumbing.ZeroHash, false, err
		}
	}
	if from == "" || from == req.Branch {
		return plumbing.ZeroHash, true, nil // orphan
	}
	h, err = s.head(ctx, from)
	if err != nil {
		if errors.Is(err, ErrBranchNotFound) && req.CreateFrom == "" {
			return plumbing.ZeroHash, true, nil
		}
		return plumbing.ZeroHash, false, fmt.Errorf("creating the branch from %q: %w", from, err)
	}
	return h, true, nil
}

// buildTree returns the root tree of base with dir replaced by the desired files
// (keeping dot-entries at dir's root) and the root files applied. Only the parts
// whose hashes differ from base are read or stored.
func buildTree(b *builder, baseTree plumbing.Hash, dir string, req ApplyRequest) (plumbing.Hash, error) {
	newSub, err := buildManagedTree(b, baseTree, dir, req)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	root, err := placeManagedTree(b, baseTree, dir, newSub)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if req.Vacate != "" {
		if root, err = vacate(b, root, req.Vacate); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return applyRootFiles(b, root, req)
}

// vacate returns root with the managed files below dir removed (its root's dot-entries kept), recording
// them in b.changes.Vacated.
func vacate(b *builder, root plumbing.Hash, dir string) (plumbing.Hash, error) {
	kept := b.changes
	b.changes = Changes{}
	sub, err := buildManagedTree(b, root, dir, ApplyRequest{Files: map[string][]byte{}})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	kept.Vacated = b.changes.Removed
	b.changes = kept
	return placeManagedTree(b, root, dir, sub)
}

// buildManagedTree stores the desired tree of dir (the desired files plus the dot-entries the base
// keeps at dir's root), records the file changes, and returns its hash (zero when it is empty).
func buildManagedTree(b *builder, baseTree plumbing.Hash, dir string, req ApplyRequest) (plumbing.Hash, error) {
	st := b.st
	oldSub, found, err := subtree(st, baseTree, dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if !found {
		oldSub = plumbing.ZeroHash
	}
	node, err := keptDotEntries(st, oldSub)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree := req.Tree
	if tree == nil {
		if tree, err = NewTreeFromFiles(req.Files); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	// The desired tree is encoded already; only the top level, which keeps the dot-entries, is new.
	maps.Copy(node.leaves, tree.root.leaves)
	maps.Copy(node.dirs, tree.root.dirs)
	newSub := plumbing.ZeroHash
	if node.empty() {
		if err := b.removedTree(oldSub, ""); err != nil {
			return plumbing.ZeroHash, err
		}
	} else {
		if err := node.encodeShallow(st.NewEncodedObject); err != nil {
			return plumbing.ZeroHash, err
		}
		if err := b.persist(node, oldSub, ""); err != nil {
			return plumbing.ZeroHash, err
		}
		newSub = node.hash
	}
	sort.Strings(b.changes.Added)
	sort.Strings(b.changes.Modified)
	sort.Strings(b.changes.Removed)
	return newSub, nil
}

// keptDotEntries returns a directory holding the dot-entries at the root of tree old (never managed).
func keptDotEntries(st storer.EncodedObjectStorer, old plumbing.Hash) (*dirNode, error) {
	node := newDirNode()
	if old.IsZero() {
		return node, nil
	}
	t, err := object.GetTree(st, old)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		if isDotEntry(e.Name) {
			node.leaves[e.Name] = leaf{entryInfo: entryInfo{Mode: e.Mode, Hash: e.Hash}}
		}
	}
	return node, nil
}

// placeManagedTree returns the root tree of baseTree with dir replaced by newSub (removed when zero).
func placeManagedTree(b *builder, baseTree plumbing.Hash, dir string, newSub plumbing.Hash) (plumbing.Hash, error) {
	switch {
	case dir != "":
		return b.setAt(baseTree, strings.Split(dir, "/"), filemode.Dir, newSub, true)
	case newSub.IsZero():
		root, err := storeEmptyTree(b.st)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		b.newObjs = append(b.newObjs, root)
		return root, nil
	default:
		return newSub, nil
	}
}

// applyRootFiles writes req.RootFiles and removes req.DeleteRootFiles below root, recording each path
// whose content changed in b.changes.Root.
func applyRootFiles(b *builder, root plumbing.Hash, req ApplyRequest) (plumbing.Hash, error) {
	set := func(name string, h plumbing.Hash) error {
		before := root
		var err error
		if root, err = b.setAt(root, strings.Split(name, "/"), filemode.Regular, h, true); err != nil {
			return err
		}
		if root != before {
			b.changes.Root = append(b.changes.Root, name)
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(req.RootFiles)) {
		h, err := storeBlob(b.st, req.RootFiles[name])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		b.newObjs = append(b.newObjs, h)
		if err := set(name, h); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	for _, name := range req.DeleteRootFiles {
		if err := set(name, plumbing.ZeroHash); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return root, nil
}

func storeCommit(st storer.EncodedObjectStorer, tree, parent plumbing.Hash, req ApplyRequest) (plumbing.Hash, error) {
	author := req.Author
	if author.Name == "" {
		author.Name = DefaultAuthor.Name
	}
	if author.Email == "" {
		author.Email = DefaultAuthor.Email
	}
	sig := object.Signature{Name: author.Name, Email: author.Email, When: time.Now()}
	msg := req.Message
	if msg == "" {
		msg = "Update " + displayPath(req.Path)
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	trailers := append([]string(nil), req.Trailers...)
	if req.HeadBranch != "" && req.HeadMarker != "" && !HasTrailer(msg, req.HeadMarker) {
		trailers = append(trailers, req.HeadMarker)
	}
	if len(trailers) > 0 {
		// One paragraph, the message's last: `git interpret-trailers` reads only that one.
		msg += "\n" + strings.Join(trailers, "\n") + "\n"
	}
	if err := checkCommitText(author, msg); err != nil {
		return plumbing.ZeroHash, err
	}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// updateRef moves refs/heads/<branch> from old (zero: must not exist) to target, or
// pushes it with exactly objs (the objects new relative to old's tree; pack, when not nil, is the
// pack the apply wrote them to). There is no force: every ref update is a compare-and-swap, so a commit
// someone else wrote is never overwritten.
func (s *session) updateRef(ctx context.Context, branch string, old, target plumbing.Hash, objs []plumbing.Hash, pack *writtenPack) error {
	name := plumbing.NewBranchReferenceName(branch)
	if s.e.local {
		if s.gitDir != s.e.dir {
			if head, err := s.repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target() == name {
				return withClass(ErrInvalidInput, fmt.Errorf("refusing to update branch %q: it is checked out in the working tree at %s (like git's receive.denyCurrentBranch); use a bare repository or another branch", branch, s.e.dir))
			}
		}
		return s.casLocalRef(name, old, target)
	}
	if err := s.push(ctx, name, old, target, objs, pack); err != nil {
		return err
	}
	return s.repo.Storer.SetReference(plumbing.NewHashReference(trackingRef(branch), target))
}

func isRejection(err error) bool {
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "stale info", "failed to lock", "cannot lock ref", "already exists", "reference has changed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// casLocalRef updates a ref of a local repository with git's own lock-file protocol
// (refs/heads/<b>.lock, O_EXCL, then rename), so that it serialises with git CLI writers.
func (s *session) casLocalRef(name plumbing.ReferenceName, old, target plumbing.Hash) error {
	refPath := filepath.Join(s.gitDir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return err
	}
	lock := refPath + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s is locked by another writer", errRejected, name)
		}
		return err
	}
	committed := false
	defer func() {
		if !committed {
			_ = os.Remove(lock)
		}
	}()
	cur := plumbing.ZeroHash
	if ref, err := s.repo.Storer.Reference(name); err == nil {
		cur = ref.Hash()
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		f.Close()
		return err
	}
	if cur != old {
		f.Close()
		return fmt.Errorf("%w: %s is at %s, expected %s", errRejected, name, short(cur), short(old))
	}
	if _, err := f.WriteString(target.String() + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock, refPath); err != nil {
		return err
	}
	committed = true
	return nil
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}
