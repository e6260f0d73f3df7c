// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestTLS_PrivateCAIsRequiredAndTrusted serves git http-backend over https with a certificate that
// no system root signs (httptest's test CA). Without Auth.CACertificates every operation (list,
// fetch, push) fails with an x509 error and writes nothing; with the CA bundle, read and Apply work.
// There is no way to turn verification off.
func TestTLS_PrivateCAIsRequiredAndTrusted(t *testing.T) {
	t.Parallel()
	const token = "ghp_TLStoken0123456789"
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"README.md": "outside\n"})
	srv := gitserver.Start(t, root, gitserver.Options{Token: token, TLS: true})
	url := srv.RepoURL("fleet.git")
	if !strings.HasPrefix(url, "https://127.0.0.1:") || !strings.Contains(srv.CAPEM, "BEGIN CERTIFICATE") {
		t.Fatalf("not a TLS server: %s", url)
	}
	ctx := context.Background()
	req := gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "clusters", Files: fixtures.Bytes(map[string]string{"a/b.yaml": "x"}), Message: "tls"}

	untrusted := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}}
	if _, _, err := untrusted.ReadTree(ctx, url, "main", "."); err == nil || !strings.Contains(err.Error(), "x509") || strings.Contains(err.Error(), token) {
		t.Errorf("read without the CA: %v", err)
	}
	if _, err := untrusted.Apply(ctx, req); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Errorf("apply without the CA: %v", err)
	}
	if n := gitserver.CommitCount(t, repo, "main"); n != 1 {
		t.Fatalf("an untrusted server was written to: %d commits", n)
	}
	trusted := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token, CACertificates: srv.CAPEM}}
	if _, files, err := trusted.ReadTree(ctx, url, "main", "."); err != nil || string(files["README.md"]) != "outside\n" {
		t.Fatalf("read with the CA: %v %v", files, err)
	}
	if _, err := trusted.Apply(ctx, req); err != nil {
		t.Fatalf("apply with the CA: %v", err)
	}
	if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, map[string]string{"README.md": "outside\n", "clusters/a/b.yaml": "x"}) {
		t.Errorf("tree: %v", got)
	}
}

// TestCredentialsInURLAreRejectedAndRedacted: credentials in a repository URL, or introduced by a URL
// rewrite, are refused before any network access, and no error or display form carries them.
func TestCredentialsInURLAreRejectedAndRedacted(t *testing.T) {
	t.Parallel()
	const secret = "ghp_URLsecret0123456789"
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		url      string
		rewrites map[string]string
	}{
		{"user and token", "https://bot:" + secret + "@example.com/org/fleet.git", nil},
		{"token as user", "https://" + secret + "@example.com/org/fleet.git", nil},
		{"http", "http://bot:" + secret + "@127.0.0.1:1/fleet.git", nil},
		{"ssh password", "ssh://git:" + secret + "@example.com/org/fleet.git", nil},
		{"introduced by a rewrite", "https://github.com/org/fleet.git", map[string]string{"https://github.com/": "https://bot:" + secret + "@mirror.example.com/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &gitrepo.Client{CacheDir: t.TempDir(), Rewrites: tc.rewrites}
			_, _, rerr := c.ReadTree(ctx, tc.url, "main", ".")
			_, aerr := c.Apply(ctx, gitrepo.ApplyRequest{RepoURL: tc.url, Branch: "main", Files: fixtures.Bytes(map[string]string{"a": "b"})})
			for _, err := range []error{rerr, aerr} {
				if !errors.Is(err, gitrepo.ErrCredentialsInURL) {
					t.Errorf("want ErrCredentialsInURL, got %v", err)
				}
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("the error carries the secret: %v", err)
				}
			}
			if tc.rewrites == nil {
				if strings.Contains(gitrepo.RedactURL(tc.url), secret) {
					t.Errorf("RedactURL keeps the secret: %s", gitrepo.RedactURL(tc.url))
				}
			}
		})
	}
}
