// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// session is an opened repository: the local repository itself, or the cache
// entry of a remote one. The caller holds the entry's lock until done.
type session struct {
	c        *Client
	e        *endpoint
	repo     *git.Repository
	st       *filesystem.Storage
	auth     transport.AuthMethod
	gitDir   string // local only: the directory holding refs/ (for compare-and-swap ref updates)
	cacheDir string // remote only: the cache entry
	unlock   func()
}

func (s *session) close() {
	_ = s.st.Close()
	s.unlock()
}

// open resolves repoURL and opens the local repository or the remote's cache entry, locked.
func (c *Client) open(repoURL string) (*session, error) {
	e, err := c.resolve(repoURL)
	if err != nil {
		return nil, err
	}
	if e.local {
		unlock := lockFor("local:" + e.dir)
		gitDir, ok := findGitDir(e.dir)
		if !ok {
			unlock()
			return nil, withClass(ErrRepositoryNotFound, fmt.Errorf("no Git repository at %s", e.dir))
		}
		repo, st, err := openStorage(gitDir)
		if err != nil {
			unlock()
			return nil, err
		}
		return &session{c: c, e: e, repo: repo, st: st, gitDir: gitDir, unlock: unlock}, nil
	}
	auth, err := c.authMethod(e)
	if err != nil {
		return nil, err
	}
	dir, err := c.cacheDirFor(e.url)
	if err != nil {
		return nil, err
	}
	unlockProcess := lockFor("cache:" + dir)
	// A lock file also serialises other provider processes sharing the cache directory.
	lockFile, err := osfs.New(filepath.Dir(dir)).OpenFile(filepath.Base(dir)+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		unlockProcess()
		return nil, fmt.Errorf("cannot lock cache entry %s: %w", dir, err)
	}
	if err := lockFile.Lock(); err != nil {
		_ = lockFile.Close()
		unlockProcess()
		return nil, fmt.Errorf("cannot lock cache entry %s: %w", dir, err)
	}
	unlock := func() {
		_ = lockFile.Unlock()
		_ = lockFile.Close()
		unlockProcess()
	}
	repo, st, err := openCache(dir, e.url)
	if err != nil {
		unlock()
		return nil, err
	}
	return &session{c: c, e: e, repo: repo, st: st, auth: auth, cacheDir: dir, unlock: unlock}, nil
}

// resetCache discards the cache entry (for example after a failed or corrupt fetch) and re-creates it.
func (s *session) resetCache() error {
	_ = s.st.Close()
	if err := os.RemoveAll(s.cacheDir); err != nil {
		return err
	}
	repo, st, err := openCache(s.cacheDir, s.e.url)
	if err != nil {
		return err
	}
	s.repo, s.st = repo, st
	return nil
}

// findGitDir returns the directory holding objects/ and refs/: dir itself (bare) or dir/.git.
func findGitDir(dir string) (string, bool) {
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(dir, ".git"), true
	}
	for _, want := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			return "", false
		}
	}
	return dir, true
}

// openStorage opens a git directory with pack file descriptors kept open and a
// generous object cache: tree walks of large repositories touch thousands of objects.
func openStorage(gitDir string) (*git.Repository, *filesystem.Storage, error) {
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRU(64*cache.MiByte), filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(st, nil)
	if err != nil {
		_ = st.Close()
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, nil, withClass(ErrRepositoryNotFound, fmt.Errorf("no Git repository at %s", gitDir))
		}
		return nil, nil, err
	}
	return repo, st, nil
}

// openCache opens (or creates, or re-creates when unusable) the bare cache repository of a URL.
func openCache(dir, url string) (*git.Repository, *filesystem.Storage, error) {
	if _, ok := findGitDir(dir); ok {
		repo, st, err := openStorage(dir)
		if err == nil {
			if rem, err := repo.Remote("origin"); err == nil && len(rem.Config().URLs) == 1 && rem.Config().URLs[0] == url {
				return repo, st, nil
			}
			_ = st.Close()
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, fmt.Errorf("cannot reset cache entry %s: %w", dir, err)
	}
	repo, err := git.PlainInit(dir, true)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create cache entry %s: %w", dir, err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		return nil, nil, err
	}
	return openStorage(dir)
}

func trackingRef(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/origin/" + branch)
}

// head returns the current commit of branch, fetching it for remotes.
func (s *session) head(ctx context.Context, branch string) (plumbing.Hash, error) {
	if s.e.local {
		ref, err := s.repo.Reference(plumbing.NewBranchReferenceName(branch), true)
		if err != nil {
			if errors.Is(err, plumbing.ErrReferenceNotFound) {
				return plumbing.ZeroHash, withClass(ErrBranchNotFound, errors.New("the branch does not exist"))
			}
			return plumbing.ZeroHash, err
		}
		return ref.Hash(), nil
	}
	if err := s.fetch(ctx, branch); err != nil {
		if !retryableFetch(ctx, err) {
			return plumbing.ZeroHash, err
		}
		// An unexpected failure may come from a damaged cache entry: start from a fresh
		// cache entry once before giving up.
		s.debug(ctx, "git fetch failed; retrying once from a fresh cache entry", time.Time{}, err, map[string]any{"branch": branch})
		if rerr := s.resetCache(); rerr != nil {
			return plumbing.ZeroHash, err
		}
		if err := s.fetch(ctx, branch); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	ref, err := s.repo.Reference(trackingRef(branch), true)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// fetch updates refs/remotes/origin/<branch> with a shallow, single-branch fetch.
func (s *session) fetch(ctx context.Context, branch string) error {
	return s.fetchDepth(ctx, branch, 1)
}

// fetchDepth is fetch with depth commits of history (see deepen).
func (s *session) fetchDepth(ctx context.Context, branch string, depth int) (err error) {
	start := time.Now()
	defer func() { s.debug(ctx, "git fetch", start, err, map[string]any{"branch": branch, "depth": depth}) }()
	ctx, cancel := s.c.withTimeout(ctx)
	defer cancel()
	rs := config.RefSpec(fmt.Sprintf("+refs/heads/%s:%s", branch, trackingRef(branch)))
	err = s.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   []config.RefSpec{rs},
		Depth:      depth,
		Auth:       s.auth,
		Tags:       git.NoTags,
		Force:      true,
		CABundle:   s.c.caBundle(),
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	if errors.As(err, &git.NoMatchingRefSpecError{}) {
		// The branch does not exist remotely: forget any stale tracking ref.
		_ = s.repo.Storer.RemoveReference(trackingRef(branch))
		return withClass(ErrBranchNotFound, errors.New("the branch does not exist on the remote"))
	}
	return classify(err)
}

func retryableFetch(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	for _, class := range []error{ErrAuth, ErrRepositoryNotFound, ErrBranchNotFound, ErrInvalidInput, context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, class) {
			return false
		}
	}
	return true
}

// defaultBranch returns the branch HEAD points to, or "" for an empty repository.
func (s *session) defaultBranch(ctx context.Context) (string, error) {
	if s.e.local {
		ref, err := s.repo.Storer.Reference(plumbing.HEAD)
		if err != nil {
			return "", nil
		}
		if ref.Type() == plumbing.SymbolicReference {
			if _, err := s.repo.Reference(ref.Target(), true); err == nil {
				return ref.Target().Short(), nil
			}
		}
		return "", nil
	}
	ctx, cancel := s.c.withTimeout(ctx)
	defer cancel()
	rem, err := s.repo.Remote("origin")
	if err != nil {
		return "", err
	}
	start := time.Now()
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: s.auth, CABundle: s.c.caBundle()})
	s.debug(ctx, "git ls-remote (default branch)", start, err, nil)
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return "", nil
		}
		return "", classify(err)
	}
	var heads []string
	for _, r := range refs {
		if r.Name() == plumbing.HEAD && r.Type() == plumbing.SymbolicReference {
			return r.Target().Short(), nil
		}
		if r.Name().IsBranch() {
			heads = append(heads, r.Name().Short())
		}
	}
	for _, want := range []string{"main", "master"} {
		for _, h := range heads {
			if h == want {
				return h, nil
			}
		}
	}
	if len(heads) > 0 {
		return heads[0], nil
	}
	return "", nil
}

// classify maps go-git transport errors to this package's sentinels.
//
// A remote's answer enters the provider here (an error body, a server message), so its text is
// sanitized first: a server that echoes the request's credentials or writes terminal escapes cannot
// reach a diagnostic or a log through any later path.
func classify(err error) error {
	if err == nil {
		return nil
	}
	err = sanitize.Error(err)
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return withClass(ErrRepositoryNotFound, err)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return withClass(ErrBranchNotFound, errors.New("the repository is empty"))
	case errors.Is(err, transport.ErrAuthenticationRequired),
		errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod):
		return withClass(ErrAuth, fmt.Errorf("%v (check the token or ssh key and its permissions)", err))
	case errors.Is(err, ErrAuth), errors.Is(err, ErrRepositoryNotFound), errors.Is(err, ErrBranchNotFound), errors.Is(err, ErrTimeout):
		return err
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), context.DeadlineExceeded.Error()):
		return withClass(ErrTimeout, fmt.Errorf("%v (the operation exceeded the configured Git timeout)", err))
	}
	msg := err.Error()
	if strings.Contains(msg, "unable to authenticate") || strings.Contains(msg, "knownhosts:") || strings.Contains(msg, "host key") {
		return withClass(ErrAuth, err)
	}
	return err
}
