// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/debugrec"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

// TestTokenIsScoped: the Git token goes over https, or over plain http to a loopback host only with
// Auth.LoopbackHTTP; a URL that comes from repository content (ForContent) gets it only when a rewrite
// maps it or its host is in CredentialHosts. Each case reads through a recording proxy in front of a real
// smart-HTTP server and asserts what the server side received.
func TestTokenIsScoped(t *testing.T) {
	t.Parallel()
	const token = "scope-test-token-0123456789"
	root := t.TempDir()
	gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	srv := gitserver.Start(t, root, gitserver.Options{})
	target, _ := url.Parse(srv.URL)
	proxy := hostile.Start(t, httputil.NewSingleHostReverseProxy(target))
	repo := proxy.URL + "/fleet.git"
	host := strings.TrimPrefix(proxy.URL, "http://")

	cases := []struct {
		name     string
		client   func() *gitrepo.Client
		wantAuth bool
	}{
		{"configuration URL, loopback http without LoopbackHTTP", func() *gitrepo.Client {
			return &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{Token: token}}
		}, false},
		{"configuration URL, loopback http with LoopbackHTTP", func() *gitrepo.Client {
			return &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}
		}, true},
		{"content URL", func() *gitrepo.Client {
			return (&gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}).ForContent()
		}, false},
		{"content URL, host:port in CredentialHosts", func() *gitrepo.Client {
			return (&gitrepo.Client{CacheDir: t.TempDir(), CredentialHosts: []string{host}, Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}).ForContent()
		}, true},
		{"content URL, another host in CredentialHosts", func() *gitrepo.Client {
			return (&gitrepo.Client{CacheDir: t.TempDir(), CredentialHosts: []string{"github.com"}, Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}).ForContent()
		}, false},
	}
	for _, tc := range cases {
		before := len(proxy.Requests())
		rec := &debugrec.Recorder{}
		c := tc.client()
		c.Debug = rec.Record
		if _, _, err := c.ReadTree(context.Background(), repo, "main", "clusters"); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, r := range proxy.Requests()[before:] {
			if r.Authorization != "" {
				got = append(got, r.Authorization)
			}
		}
		if (len(got) > 0) != tc.wantAuth {
			t.Errorf("%s: the server received credentials %q, want them: %v", tc.name, got, tc.wantAuth)
		}
		withheld := false
		for _, e := range rec.Events() {
			withheld = withheld || e.Msg == "git token withheld"
		}
		if withheld == tc.wantAuth {
			t.Errorf("%s: a 'git token withheld' debug event = %v, want %v", tc.name, withheld, !tc.wantAuth)
		}
	}

	// A rewrite that maps a content URL is the configuration's choice: its target gets the token.
	c := (&gitrepo.Client{CacheDir: t.TempDir(), Rewrites: map[string]string{"https://github.com/org/": proxy.URL + "/"},
		Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}).ForContent()
	before := len(proxy.Requests())
	if _, _, err := c.ReadTree(context.Background(), "https://github.com/org/fleet.git", "main", "clusters"); err != nil {
		t.Fatal(err)
	}
	if r := proxy.Requests()[before:]; len(r) == 0 || r[len(r)-1].Authorization == "" {
		t.Errorf("a rewritten content URL did not get the token: %+v", r)
	}
}

// TestGitRedirectToAnotherHostDropsTheToken: a Git server that redirects the discovery request to another
// host: that host never receives the token (go-git clears the session's credentials once a redirect leaves
// the origin; this test keeps that promise checked).
func TestGitRedirectToAnotherHostDropsTheToken(t *testing.T) {
	t.Parallel()
	const token = "redirect-test-token-0123456789"
	root := t.TempDir()
	gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	srv := gitserver.Start(t, root, gitserver.Options{})
	target, _ := url.Parse(srv.URL)
	other := hostile.Start(t, httputil.NewSingleHostReverseProxy(target))
	origin := hostile.Start(t, hostile.Redirect(other.URL, http.StatusFound))
	c := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{Token: token, LoopbackHTTP: true}}
	_, _, _ = c.ReadTree(context.Background(), origin.URL+"/fleet.git", "main", "clusters")
	if a := origin.Authorizations(); len(a) == 0 {
		t.Error("the origin received no token; the case proves nothing")
	}
	if a := other.Authorizations(); len(a) > 0 {
		t.Errorf("the redirect's target received %q", a)
	}
}

// TestContentMayNotNameLocalRepositories: a URL from repository content that names a local repository
// (file:// or a path) is ErrLocalContent, and nothing is read, unless AllowLocalContent is set or a
// rewrite maps it.
func TestContentMayNotNameLocalRepositories(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, "", "runner-only.git", "main", map[string]string{"secret/cm.yaml": "password: hunter2-RUNNER-ONLY"})
	content := (&gitrepo.Client{CacheDir: t.TempDir()}).ForContent()
	for _, u := range []string{"file://" + repo, repo, filepath.Join(repo, "..", filepath.Base(repo))} {
		_, files, err := content.ReadTree(context.Background(), u, "main", "")
		if !errors.Is(err, gitrepo.ErrLocalContent) || files != nil {
			t.Errorf("%s: %v, %d files; want ErrLocalContent and nothing read", u, err, len(files))
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the content: %v", u, err)
		}
		hint, attr := gitrepo.Hint(err, gitrepo.Fields{Repo: "spec.repo of BaseRepo main"})
		if !strings.Contains(hint, "allow_local_repositories_from_content") || attr != "spec.repo of BaseRepo main" {
			t.Errorf("%s: hint %q at %q", u, hint, attr)
		}
	}
	allowed := (&gitrepo.Client{CacheDir: t.TempDir(), AllowLocalContent: true}).ForContent()
	if _, files, err := allowed.ReadTree(context.Background(), repo, "main", ""); err != nil || len(files) != 1 {
		t.Errorf("with AllowLocalContent: %v, %d files", err, len(files))
	}
	mapped := (&gitrepo.Client{CacheDir: t.TempDir(), Rewrites: map[string]string{"https://github.com/org/": "file://" + filepath.Dir(repo) + "/"}}).ForContent()
	if _, _, err := mapped.ReadTree(context.Background(), "https://github.com/org/runner-only.git", "main", ""); err != nil {
		t.Errorf("a content URL that a rewrite maps to a local mirror: %v", err)
	}
	// The configuration's own URLs may be local, as before.
	if _, _, err := (&gitrepo.Client{CacheDir: t.TempDir()}).ReadTree(context.Background(), repo, "main", ""); err != nil {
		t.Errorf("a configuration URL: %v", err)
	}
}
