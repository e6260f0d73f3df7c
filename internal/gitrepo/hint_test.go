// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestHint_NamesTheCallersAttribute: one map from Git errors to advice serves every caller. Errors the
// client really returns (a missing repository, branch or path, a rejected token, a URL with a password)
// get a hint in the caller's words and point at the caller's attribute; the provider's credentials are
// at fault unless the resource has credentials of its own.
func TestHint_NamesTheCallersAttribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"apps/a.yaml": "a"})
	srv := gitserver.Start(t, root, gitserver.Options{Token: "right"})
	c := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: "wrong"}}
	fileURL := "file://" + filepath.Join(root, "fleet.git")
	read := func(repo, branch, path string) error {
		_, _, err := (&gitrepo.Client{CacheDir: t.TempDir()}).ReadTree(ctx, repo, branch, path)
		return err
	}
	_, _, authErr := c.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "")

	gitops := gitrepo.Fields{Repo: "repository_url", Branch: "branch", Path: "path", Names: "path or the file names in files", Writes: true}
	source := gitrepo.Fields{Repo: "source.repo", Branch: "source.branch", Path: "source.path", Credentials: "token or ssh_private_key"}
	cases := []struct {
		name      string
		err       error
		class     error
		f         gitrepo.Fields
		attribute string
		hint      []string
	}{
		{"missing repository", read("file://"+filepath.Join(root, "gone.git"), "main", ""), gitrepo.ErrRepositoryNotFound, source, "source.repo",
			[]string{"Check source.repo and the provider's git_url_rewrites"}},
		{"missing branch", read(fileURL, "dev", ""), gitrepo.ErrBranchNotFound, gitops, "branch", []string{"Check branch: "}},
		{"missing path", read(fileURL, "main", "nope"), gitrepo.ErrPathNotFound, source, "source.path", []string{"Check source.path: it must be a directory"}},
		{"rejected token, provider credentials", authErr, gitrepo.ErrAuth, gitops, "", []string{"git_token (GIT_TOKEN/GITHUB_TOKEN)", "read and push"}},
		{"rejected token, own credentials", authErr, gitrepo.ErrAuth, source, "source.repo", []string{"git_token", "or this resource's token or ssh_private_key", "may read the repository"}},
		{"password in the URL", read("https://user:pw@example.com/org/fleet.git", "main", ""), gitrepo.ErrCredentialsInURL, gitops, "repository_url",
			[]string{"Remove credentials from repository_url", "git_token"}},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.class) || gitrepo.Class(tc.err) != tc.class {
			t.Errorf("%s: error %v, class %v: want %v", tc.name, tc.err, gitrepo.Class(tc.err), tc.class)
			continue
		}
		hint, attribute := gitrepo.Hint(tc.err, tc.f)
		if attribute != tc.attribute {
			t.Errorf("%s: attribute %q, want %q", tc.name, attribute, tc.attribute)
		}
		for _, want := range tc.hint {
			if !strings.Contains(hint, want) {
				t.Errorf("%s: hint %q does not say %q", tc.name, hint, want)
			}
		}
	}
}

// TestHint_WhatWasWrittenAndWhatElseFailed: a failed write says that nothing was written (a failed read
// has nothing to say about it), and errors outside the classes are told apart: the machine's file
// permissions, TLS verification, and last the network.
func TestHint_WhatWasWrittenAndWhatElseFailed(t *testing.T) {
	t.Parallel()
	write := gitrepo.Fields{Repo: "repository_url", Branch: "branch", Path: "path", Writes: true}
	read := gitrepo.Fields{Repo: "git.repo", Branch: "git.branch", Path: "git.path"}
	timeout := fmt.Errorf("fetch: %w", gitrepo.ErrTimeout)
	if hint, _ := gitrepo.Hint(timeout, write); !strings.Contains(hint, "git_timeout; nothing was written") {
		t.Errorf("write timeout: %q", hint)
	}
	if hint, _ := gitrepo.Hint(timeout, read); strings.Contains(hint, "written") || !strings.Contains(hint, "KALYPSO_GIT_TIMEOUT") {
		t.Errorf("read timeout: %q", hint)
	}
	if hint, _ := gitrepo.Hint(fmt.Errorf("plan: %w", gitrepo.ErrStale), write); !strings.Contains(hint, "under path after the plan") {
		t.Errorf("stale: %q", hint)
	}
	if hint, _ := gitrepo.Hint(fmt.Errorf("stage: %w", gitrepo.ErrInvalidInput), read); hint != "Fix git.path." {
		t.Errorf("invalid input without Names: %q", hint)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("open /srv/fleet.git/objects: %w", os.ErrPermission), "file permissions"},
		{errors.New(`Get "https://git.example.com": tls: failed to verify certificate: x509: certificate signed by unknown authority`), "ca_certificates"},
	} {
		if hint, attribute := gitrepo.Hint(tc.err, read); !strings.Contains(hint, tc.want) || attribute != "" || gitrepo.Class(tc.err) != nil {
			t.Errorf("%v: hint %q, attribute %q: want %q and no attribute", tc.err, hint, attribute, tc.want)
		}
	}
	// A host that does not answer or resolve is reported on the URL attribute.
	for _, err := range []error{
		errors.New("dial tcp 10.0.0.1:443: connect: connection refused"),
		errors.New(`Get "https://git.invalid/x.git/info/refs": dial tcp: lookup git.invalid: no such host`),
	} {
		if hint, attribute := gitrepo.Hint(err, read); !strings.Contains(hint, "check git.repo (its host and port") || attribute != "git.repo" {
			t.Errorf("%v: hint %q, attribute %q: want the network hint on git.repo", err, hint, attribute)
		}
	}
}
