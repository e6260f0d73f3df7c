// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package gitrepo reads and writes Git repositories with go-git only (no git
// binary). Local repositories (file:// URLs and plain paths) are opened in
// place; remote ones (https, ssh, scp-style) are fetched shallowly, one branch
// at a time, into a cache directory keyed by the rewritten URL and reused
// between calls.
package gitrepo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Auth holds credentials. None of them is ever included in an error message.
type Auth struct {
	// Token is sent as HTTP basic-auth password (user TokenUser, default "x-access-token").
	Token string
	// TokenUser overrides the basic-auth user name sent with Token.
	TokenUser string
	// SSHPrivateKey is a PEM private key for ssh remotes.
	SSHPrivateKey string
	// SSHKeyPassphrase decrypts SSHPrivateKey when it is encrypted.
	SSHKeyPassphrase string
	// SSHKnownHosts is known_hosts content. Host keys are always verified:
	// against this, or SSHHostKeyFingerprint, or ~/.ssh/known_hosts.
	SSHKnownHosts string
	// SSHHostKeyFingerprint is an OpenSSH SHA256 fingerprint ("SHA256:...") the host key must have.
	SSHHostKeyFingerprint string
	// CACertificates is extra PEM CA bundle content trusted for https remotes.
	CACertificates string
	// LoopbackHTTP allows Token over plain http to a loopback host (127.0.0.0/8, ::1, localhost); Token
	// never goes over plain http to any other host.
	LoopbackHTTP bool
}

// Client is safe for concurrent use. The zero value works (a temporary cache directory is created lazily).
type Client struct {
	// CacheDir holds fetched repositories. Empty: a temporary directory per Client, recorded in Temporary.
	CacheDir string
	// Temporary records the temporary cache directory, so that its owner removes it; nil: the directory
	// is left in the temp dir.
	Temporary *TemporaryCaches
	// Rewrites maps URL prefixes to replacements (git's insteadOf); the longest prefix wins.
	Rewrites map[string]string
	Auth     Auth
	// Timeout bounds each network operation (fetch, list, push). Zero: no limit besides ctx.
	Timeout time.Duration
	// MaxRetries bounds the re-apply attempts after a rejected (non-fast-forward) push. Zero: 5.
	MaxRetries int
	// Debug, when set, receives the targets, timings and retries of network operations (see DebugFunc).
	Debug DebugFunc
	// InspectionDir, when set, keeps what Inspect found at a commit (without ListFiles) for the next
	// process that reads the same commit (inspectmemo.go). Empty: every Inspect reads the objects.
	InspectionDir string
	// CredentialHosts are hosts ("host" or "host:port") that receive Auth.Token for a URL that came from
	// repository content (ForContent). A URL the configuration names, or one git_url_rewrites maps, needs
	// no listing.
	CredentialHosts []string
	// AllowLocalContent lets a URL that came from repository content name a local repository (file:// or
	// a path) that no rewrite maps.
	AllowLocalContent bool

	// content marks a client whose URLs come from repository content (ForContent).
	content bool

	tmpOnce sync.Once
	tmpDir  string
	tmpErr  error

	// hookBeforeUpdate runs before each ref update (tests only).
	hookBeforeUpdate func(attempt int)
}

// ForContent returns a client, sharing this one's cache, for URLs that come from repository content (a
// control plane's BaseRepo spec.repo, a WorkloadRegistration's spec.workload.repo) rather than from the
// configuration: anyone who can write a line there chooses them. Such a URL gets Auth.Token only when
// git_url_rewrites maps it (the target is the configuration's) or its host is in CredentialHosts, and it
// may name a local repository only with AllowLocalContent.
func (c *Client) ForContent() *Client {
	cacheDir := c.CacheDir
	if cacheDir == "" {
		cacheDir, _ = c.cacheRoot()
	}
	return &Client{CacheDir: cacheDir, Rewrites: c.Rewrites, Auth: c.Auth, Timeout: c.Timeout, MaxRetries: c.MaxRetries, Debug: c.Debug,
		InspectionDir: c.InspectionDir, CredentialHosts: c.CredentialHosts, AllowLocalContent: c.AllowLocalContent, content: true}
}

// RewriteURL applies the insteadOf rewrites; the longest matching prefix wins.
func (c *Client) RewriteURL(u string) string {
	best := ""
	found := false
	for prefix := range c.Rewrites {
		if strings.HasPrefix(u, prefix) && (!found || len(prefix) > len(best)) {
			best, found = prefix, true
		}
	}
	if !found {
		return u
	}
	return c.Rewrites[best] + strings.TrimPrefix(u, best)
}

// endpoint is a resolved repository location.
type endpoint struct {
	display string // the URL as the user wrote it (no credentials: rejected)
	url     string // after rewrites
	ep      *transport.Endpoint
	local   bool   // file:// or a path: opened in place
	dir     string // for local: the filesystem path
}

// resolve rewrites and classifies a URL, rejecting embedded credentials.
func (c *Client) resolve(repoURL string) (*endpoint, error) {
	if strings.TrimSpace(repoURL) == "" {
		return nil, withClass(ErrInvalidInput, errors.New("repository URL is empty"))
	}
	if err := checkNoCredentials(repoURL); err != nil {
		return nil, err
	}
	rewritten := c.RewriteURL(repoURL)
	if err := checkNoCredentials(rewritten); err != nil {
		return nil, fmt.Errorf("after URL rewrite: %w", err)
	}
	ep, err := transport.NewEndpoint(rewritten)
	if err != nil {
		return nil, withClass(ErrInvalidInput, fmt.Errorf("cannot parse repository URL: %v", err))
	}
	e := &endpoint{display: repoURL, url: rewritten, ep: ep}
	switch ep.Protocol {
	case "file":
		if c.content && !c.AllowLocalContent && rewritten == repoURL {
			return nil, withClass(ErrLocalContent, fmt.Errorf("%s names a local repository, and it comes from repository content, not from the configuration", RedactURL(repoURL)))
		}
		e.local = true
		e.dir = ep.Path
		if !filepath.IsAbs(e.dir) {
			abs, err := filepath.Abs(e.dir)
			if err != nil {
				return nil, withClass(ErrInvalidInput, err)
			}
			e.dir = abs
		}
	case "https", "http", "ssh":
	default:
		return nil, withClass(ErrInvalidInput, fmt.Errorf("unsupported URL scheme %q (use file://, a local path, https://, ssh:// or user@host:path)", ep.Protocol))
	}
	return e, nil
}

// checkNoCredentials rejects passwords/tokens in URLs. An ssh user name (git@) is fine,
// and so is a user name without password in https only when it carries no secret (still rejected, to be safe).
func checkNoCredentials(u string) error {
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return nil //nolint:nilerr // an unparsable URL is reported by the caller with a better message
	}
	switch ep.Protocol {
	case "http", "https":
		if ep.User != "" || ep.Password != "" {
			return withClass(ErrCredentialsInURL, errors.New("remove the user and token from the URL and configure the token in the provider instead (git_token, or the GIT_TOKEN environment variable)"))
		}
	case "ssh":
		if ep.Password != "" {
			return withClass(ErrCredentialsInURL, errors.New("remove the password from the URL and configure an ssh key instead"))
		}
	}
	return nil
}

// authMethod builds the go-git auth for an endpoint.
func (c *Client) authMethod(e *endpoint) (transport.AuthMethod, error) {
	switch e.ep.Protocol {
	case "http", "https":
		if c.Auth.Token == "" {
			return nil, nil
		}
		if reason := c.withholdToken(e); reason != "" {
			if c.Debug != nil {
				c.Debug(context.Background(), "git token withheld", map[string]any{"url": RedactURL(e.display), "reason": reason})
			}
			return nil, nil
		}
		user := c.Auth.TokenUser
		if user == "" {
			user = "x-access-token"
		}
		return &githttp.BasicAuth{Username: user, Password: c.Auth.Token}, nil
	case "ssh":
		user := e.ep.User
		if user == "" {
			user = "git"
		}
		if c.Auth.SSHPrivateKey == "" {
			return nil, withClass(ErrAuth, errors.New("an ssh URL needs an ssh private key (ssh_private_key or GIT_SSH_KEY)"))
		}
		keys, err := gitssh.NewPublicKeys(user, []byte(c.Auth.SSHPrivateKey), c.Auth.SSHKeyPassphrase)
		if err != nil {
			// The parse error never includes key material.
			return nil, withClass(ErrAuth, fmt.Errorf("cannot parse the ssh private key: %v", err))
		}
		cb, err := c.hostKeyCallback()
		if err != nil {
			return nil, err
		}
		keys.HostKeyCallback = cb
		return keys, nil
	}
	return nil, nil
}

// withholdToken says why Auth.Token must not go to e ("" when it may): plain http to a host that is not
// loopback, or loopback without Auth.LoopbackHTTP; a URL from repository content that no rewrite maps, to
// a host not in CredentialHosts. (go-git drops the credentials itself when a redirect leaves the origin.)
func (c *Client) withholdToken(e *endpoint) string {
	host := e.ep.Host
	if e.ep.Protocol == "http" {
		if !IsLoopback(host) {
			return "plain http to a host that is not loopback"
		}
		if !c.Auth.LoopbackHTTP {
			return "plain http to loopback without allow_loopback_http"
		}
	}
	if c.content && e.url == e.display && !c.credentialHost(host, e.ep.Port) {
		return "the URL comes from repository content and its host is not in git_credential_hosts"
	}
	return ""
}

func (c *Client) credentialHost(host string, port int) bool {
	for _, h := range c.CredentialHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == strings.ToLower(host) || (port != 0 && h == strings.ToLower(net.JoinHostPort(host, strconv.Itoa(port)))) {
			return true
		}
	}
	return false
}

// IsLoopback reports whether host (a name or an address, without port) is localhost or a loopback address.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostKeyCallback verifies the server key by fingerprint or known_hosts. It never accepts an unknown key.
func (c *Client) hostKeyCallback() (ssh.HostKeyCallback, error) {
	if fp := strings.TrimSpace(c.Auth.SSHHostKeyFingerprint); fp != "" {
		return func(hostname string, _ net.Addr, key ssh.PublicKey) error {
			got := ssh.FingerprintSHA256(key)
			if got != fp {
				return withClass(ErrAuth, fmt.Errorf("ssh host key of %s has fingerprint %s, expected %s", hostname, got, fp))
			}
			return nil
		}, nil
	}
	var content string
	if c.Auth.SSHKnownHosts != "" {
		content = c.Auth.SSHKnownHosts
	} else if home, err := os.UserHomeDir(); err == nil {
		if b, err := os.ReadFile(filepath.Join(home, ".ssh", "known_hosts")); err == nil {
			content = string(b)
		}
	}
	if strings.TrimSpace(content) == "" {
		return nil, withClass(ErrAuth, errors.New("ssh host key verification needs known_hosts content (ssh_known_hosts, GIT_SSH_KNOWN_HOSTS or ~/.ssh/known_hosts) or a host key fingerprint"))
	}
	f, err := os.CreateTemp("", "kalypso-known-hosts-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	cb, err := knownhosts.New(f.Name())
	if err != nil {
		return nil, withClass(ErrInvalidInput, fmt.Errorf("cannot parse ssh known_hosts: %v", err))
	}
	return cb, nil
}

func (c *Client) caBundle() []byte {
	if c.Auth.CACertificates == "" {
		return nil
	}
	return []byte(c.Auth.CACertificates)
}

func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.Timeout > 0 {
		return context.WithTimeout(ctx, c.Timeout)
	}
	return context.WithCancel(ctx)
}

func (c *Client) maxRetries() int {
	if c.MaxRetries > 0 {
		return c.MaxRetries
	}
	return 5
}

// cacheRoot returns the cache directory, creating a temporary one when unset.
func (c *Client) cacheRoot() (string, error) {
	if c.CacheDir != "" {
		if err := os.MkdirAll(c.CacheDir, 0o700); err != nil {
			return "", fmt.Errorf("cannot create cache directory %q: %w", c.CacheDir, err)
		}
		return c.CacheDir, nil
	}
	c.tmpOnce.Do(func() {
		c.tmpDir, c.tmpErr = c.Temporary.NewDir()
	})
	return c.tmpDir, c.tmpErr
}

// cacheDirFor is the cache entry of a rewritten URL.
func (c *Client) cacheDirFor(rewritten string) (string, error) {
	root, err := c.cacheRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(rewritten))
	return filepath.Join(root, hex.EncodeToString(sum[:12])), nil
}

// locks serialises work on one cache entry or local repository within the process.
var locks sync.Map // string -> *sync.Mutex

func lockFor(key string) func() {
	m, _ := locks.LoadOrStore(key, &sync.Mutex{})
	mu := m.(*sync.Mutex) //nolint:forcetypeassert // locks only ever holds *sync.Mutex
	mu.Lock()
	return mu.Unlock
}
