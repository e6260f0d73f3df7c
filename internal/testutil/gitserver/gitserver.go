// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package gitserver is a test helper: local bare repositories seeded from a map
// of files, a real smart-HTTP Git server (git http-backend behind net/http/cgi on
// 127.0.0.1) with optional basic auth and a fault-injection hook, and helpers to
// inspect a branch. It uses the git CLI and go-git; it is for tests only.
package gitserver

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Git runs the git CLI in dir (may be "") and returns trimmed stdout; it fails the test on error.
func Git(t testing.TB, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir(), "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// NewBareRepo creates an empty bare repository named name (e.g. "fleet.git") under root
// (t.TempDir() when root is ""), with HEAD pointing at defaultBranch, and returns its path.
func NewBareRepo(t testing.TB, root, name, defaultBranch string) string {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	dir := filepath.Join(root, name)
	Git(t, "", nil, "init", "--quiet", "--bare", "-b", defaultBranch, dir)
	return dir
}

// NewSeededRepo creates a bare repository with one commit of files on branch.
func NewSeededRepo(t testing.TB, root, name, branch string, files map[string]string) string {
	t.Helper()
	dir := NewBareRepo(t, root, name, branch)
	Commit(t, dir, branch, "seed", files, nil)
	return dir
}

// Commit writes files (path -> content) and removes paths on branch of the bare
// repository in one commit made with git fast-import (fast for large trees), as
// another Git user would. The branch is created when missing. Returns the commit SHA.
func Commit(t testing.TB, bareDir, branch, message string, files map[string]string, remove []string) string {
	t.Helper()
	return CommitAt(t, bareDir, branch, message, files, remove, time.Now())
}

// CommitAt is Commit with the committer time at, for a scripted history whose times tests assert.
func CommitAt(t testing.TB, bareDir, branch, message string, files map[string]string, remove []string, at time.Time) string {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "commit refs/heads/%s\n", branch)
	fmt.Fprintf(&b, "committer Other Writer <other@example.com> %d +0000\n", at.Unix())
	fmt.Fprintf(&b, "data %d\n%s\n", len(message), message)
	if head := Head(t, bareDir, branch); head != "" {
		fmt.Fprintf(&b, "from %s\n", head)
	}
	for _, p := range remove {
		fmt.Fprintf(&b, "D %s\n", p)
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
	Git(t, "", b.Bytes(), "--git-dir", bareDir, "fast-import", "--quiet")
	return Head(t, bareDir, branch)
}

// Head returns the commit SHA of branch, or "" when the branch does not exist.
func Head(t testing.TB, bareDir, branch string) string {
	t.Helper()
	repo, err := git.PlainOpen(bareDir)
	if err != nil {
		t.Fatalf("open %s: %v", bareDir, err)
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		return ""
	}
	return ref.Hash().String()
}

// Files returns every file of branch (path -> content), including symlinks' targets.
func Files(t testing.TB, bareDir, branch string) map[string]string {
	t.Helper()
	repo, err := git.PlainOpen(bareDir)
	if err != nil {
		t.Fatalf("open %s: %v", bareDir, err)
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		t.Fatalf("branch %s of %s: %v", branch, bareDir, err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode == filemode.Submodule {
			return nil
		}
		s, err := f.Contents()
		out[f.Name] = s
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// CommitCount returns the number of commits reachable from branch (0 when missing).
func CommitCount(t testing.TB, bareDir, branch string) int {
	t.Helper()
	if Head(t, bareDir, branch) == "" {
		return 0
	}
	n, err := strconv.Atoi(Git(t, "", nil, "--git-dir", bareDir, "rev-list", "--count", "refs/heads/"+branch))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// StrayObjects returns what git reports about objects of gitDir that no ref reaches (git fsck --strict
// --full --unreachable: every unreachable or dangling object) and about loose objects that are second
// copies of packed ones (git prune-packed --dry-run); "" when there are none. Reflogs are ignored, so an
// object only a former branch head reached counts as stray too.
func StrayObjects(t testing.TB, gitDir string) string {
	t.Helper()
	out := Git(t, "", nil, "--git-dir", gitDir, "fsck", "--strict", "--full", "--unreachable", "--no-reflogs")
	if dup := Git(t, "", nil, "--git-dir", gitDir, "prune-packed", "--dry-run"); dup != "" {
		out = strings.TrimSpace(out + "\nloose copies of packed objects:\n" + dup)
	}
	return out
}

// ParentCount returns the number of parents of branch's head commit.
func ParentCount(t testing.TB, bareDir, branch string) int {
	t.Helper()
	out := Git(t, "", nil, "--git-dir", bareDir, "rev-list", "--parents", "-n", "1", "refs/heads/"+branch)
	return len(strings.Fields(out)) - 1
}

// Options configure a Server.
type Options struct {
	// Token, when set, is required as the basic-auth password (any user name).
	Token string
	// Wrap, when set, wraps the Git handler (after auth) to inject faults.
	Wrap func(next http.Handler) http.Handler
	// TLS serves https (httptest's self-signed certificate for 127.0.0.1); Server.CAPEM trusts it.
	TLS bool
}

// Server is a real smart-HTTP Git server (git http-backend) serving every repository below Root.
type Server struct {
	URL  string
	Root string
	// CAPEM is the PEM certificate that a client must trust to reach a TLS server (Options.TLS).
	CAPEM string

	mu    sync.RWMutex
	token string
	wrap  func(http.Handler) http.Handler
	git   http.Handler
	reqs  []string
	srv   *http.Server
}

// Start serves the bare repositories below root on 127.0.0.1 until the test ends.
func Start(t testing.TB, root string, opts Options) *Server {
	t.Helper()
	execPath := Git(t, "", nil, "--exec-path")
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git-http-backend not available: %v", err)
	}
	s := &Server{Root: root, token: opts.Token, wrap: opts.Wrap}
	s.git = &cgi.Handler{
		Path: backend,
		Root: "/",
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=http.receivepack",
			"GIT_CONFIG_VALUE_0=true",
		},
	}
	if opts.TLS {
		ts := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
		ts.StartTLS()
		t.Cleanup(ts.Close)
		s.URL = ts.URL
		s.CAPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}))
		return s
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.RequestURI())
	token, wrap := s.token, s.wrap
	s.mu.Unlock()
	if token != "" {
		_, pass, ok := r.BasicAuth()
		if !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	h := s.git
	if wrap != nil {
		h = wrap(h)
	}
	h.ServeHTTP(w, r)
}

// RepoURL is the http URL of the repository directory name below Root.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name }

// SetToken changes the required token at run time ("" disables auth).
func (s *Server) SetToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

// SetWrap changes the fault-injection wrapper at run time (nil removes it).
func (s *Server) SetWrap(wrap func(http.Handler) http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wrap = wrap
}

// Requests returns "METHOD /uri" of every request served so far.
func (s *Server) Requests() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.reqs...)
}
