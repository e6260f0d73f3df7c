// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// RedactURL removes any user information from an http(s)/ssh URL for display.
func RedactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.User == nil || parsed.Scheme == "" {
		return u
	}
	if _, hasPassword := parsed.User.Password(); !hasPassword && parsed.Scheme == "ssh" {
		return u
	}
	parsed.User = url.User("REDACTED")
	return parsed.String()
}

// Sentinel errors. Every error returned by this package that falls in one of
// these classes wraps the sentinel, so callers test with errors.Is.
var (
	// ErrRepositoryNotFound: the repository provably does not exist.
	ErrRepositoryNotFound = errors.New("repository not found")
	// ErrBranchNotFound: the repository exists but the branch does not (this
	// includes an empty repository).
	ErrBranchNotFound = errors.New("branch not found")
	// ErrPathNotFound: the branch exists but has no directory at the path.
	ErrPathNotFound = errors.New("path not found")
	// ErrAuth: the remote refused the credentials, or none were given.
	ErrAuth = errors.New("authentication failed")
	// ErrCredentialsInURL: the URL carries a password or token; credentials must be configured separately.
	ErrCredentialsInURL = errors.New("credentials embedded in the repository URL")
	// ErrInvalidInput: a path, file name or option is invalid.
	ErrInvalidInput = errors.New("invalid input")
	// ErrConflict: the branch kept moving while we pushed, and the retries were exhausted.
	ErrConflict = errors.New("concurrent update conflict")
	// ErrTimeout: a network operation took longer than Client.Timeout (nothing was written).
	ErrTimeout = errors.New("timed out")
	// ErrStale: the branch changed under the path since the change was planned (nothing was written).
	ErrStale = errors.New("the branch changed since the plan")
	// ErrCommitNotOnBranch: a pinned commit is not the branch head nor one of its ancestors.
	ErrCommitNotOnBranch = errors.New("commit not on the branch")
	// ErrLocalContent: a URL from repository content names a local repository, which the provider does not
	// read unless it is allowed to (Client.AllowLocalContent).
	ErrLocalContent = errors.New("local repository named by repository content")
)

// Error describes a failed Git operation with the repository, branch and path it concerned.
// The repository URL never carries credentials (they are rejected up front).
type Error struct {
	Op     string // "read", "write", "push", "fetch", ...
	Repo   string
	Branch string
	Path   string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(" ")
	fmt.Fprintf(&b, "repository %q", RedactURL(e.Repo))
	if e.Branch != "" {
		fmt.Fprintf(&b, ", branch %q", e.Branch)
	}
	if e.Path != "" {
		fmt.Fprintf(&b, ", path %q", e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// classErr wraps cause so that errors.Is(err, class) holds while keeping the cause's text.
type classErr struct {
	class error
	cause error
}

func (c *classErr) Error() string {
	if c.cause == nil {
		return c.class.Error()
	}
	return c.class.Error() + ": " + c.cause.Error()
}

func (c *classErr) Unwrap() []error {
	if c.cause == nil {
		return []error{c.class}
	}
	return []error{c.class, c.cause}
}

func withClass(class, cause error) error { return &classErr{class: class, cause: cause} }

// scrub is the sanitizer for text from the remote: it also redacts the client's own credentials, which
// a hostile or misconfigured server may echo in an error body.
func (c *Client) scrub() sanitize.Sanitizer {
	return sanitize.New(c.Auth.Token, c.Auth.SSHPrivateKey, c.Auth.SSHKeyPassphrase)
}
