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
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestSSH_ReadApplyAndHostKeyVerification uses a test-started ssh server (golang.org/x/crypto/ssh
// running git-upload-pack/receive-pack): key auth, known_hosts and fingerprint pinning, and
// rejection of an unknown or mismatched host key.
func TestSSH_ReadApplyAndHostKeyVerification(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"README.md": "outside", "gitops/a.yaml": "a"})
	srv := gitserver.StartSSH(t, root)
	other := gitserver.StartSSH(t, t.TempDir()) // another host key
	ctx := context.Background()

	c := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{SSHPrivateKey: srv.ClientKeyPEM, SSHKnownHosts: srv.KnownHosts}}
	sha, files, err := c.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "gitops")
	if err != nil {
		t.Fatal(err)
	}
	if sha != gitserver.Head(t, repo, "main") || !reflect.DeepEqual(files, map[string][]byte{"a.yaml": []byte("a")}) {
		t.Fatalf("read: %s %v", sha, files)
	}
	res, err := c.Apply(ctx, gitrepo.ApplyRequest{RepoURL: srv.RepoURL("fleet.git"), Branch: "main", Path: "gitops", Files: map[string][]byte{"b.yaml": []byte("b")}})
	if err != nil || !res.Pushed {
		t.Fatalf("apply over ssh: %+v %v", res, err)
	}
	if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, map[string]string{"README.md": "outside", "gitops/b.yaml": "b"}) {
		t.Fatalf("after ssh push: %v", got)
	}

	// scp-style URLs resolve through rewrites (the test server cannot listen on port 22).
	scp := &gitrepo.Client{CacheDir: t.TempDir(), Auth: c.Auth, Rewrites: map[string]string{"git@github.com:org/": srv.RepoURL("")}}
	if _, files, err := scp.ReadTree(ctx, "git@github.com:org/fleet.git", "main", "gitops"); err != nil || string(files["b.yaml"]) != "b" {
		t.Fatalf("scp-style via rewrite: %v %v", err, files)
	}
	if err := gitrepo.ValidateURL("git@github.com:org/fleet.git"); err != nil {
		t.Errorf("scp-style URL rejected: %v", err)
	}

	pinned := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{SSHPrivateKey: srv.ClientKeyPEM, SSHHostKeyFingerprint: srv.HostKeyFingerprint}}
	if _, _, err := pinned.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "gitops"); err != nil {
		t.Fatalf("fingerprint pinning: %v", err)
	}

	for name, auth := range map[string]gitrepo.Auth{
		"known_hosts of another host": {SSHPrivateKey: srv.ClientKeyPEM, SSHKnownHosts: strings.Replace(other.KnownHosts, other.Addr, srv.Addr, 1)},
		"wrong fingerprint":           {SSHPrivateKey: srv.ClientKeyPEM, SSHHostKeyFingerprint: other.HostKeyFingerprint},
		"unknown client key":          {SSHPrivateKey: other.ClientKeyPEM, SSHKnownHosts: srv.KnownHosts},
		"no private key":              {SSHKnownHosts: srv.KnownHosts},
	} {
		bad := &gitrepo.Client{CacheDir: t.TempDir(), Auth: auth}
		_, _, err := bad.ReadTree(ctx, srv.RepoURL("fleet.git"), "main", "gitops")
		if !errors.Is(err, gitrepo.ErrAuth) {
			t.Errorf("%s: err = %v, want ErrAuth", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: error leaks the key", name)
		}
	}
}
