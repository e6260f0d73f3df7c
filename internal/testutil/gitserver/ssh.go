// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHServer is a minimal Git-over-ssh server started by the test (no sshd on the
// test machines): golang.org/x/crypto/ssh accepting one client key, running
// git-upload-pack / git-receive-pack on repositories below Root.
type SSHServer struct {
	Root string
	Addr string // 127.0.0.1:port
	// ClientKeyPEM is the OpenSSH private key the server accepts.
	ClientKeyPEM string
	// KnownHosts is a known_hosts line for the server's host key.
	KnownHosts string
	// HostKeyFingerprint is the SHA256 fingerprint of the host key.
	HostKeyFingerprint string

	ln net.Listener
	wg sync.WaitGroup
}

// StartSSH serves the bare repositories below root over ssh until the test ends.
func StartSSH(t testing.TB, root string) *SSHServer {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	authorized, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if string(key.Marshal()) == string(authorized.Marshal()) {
				return &ssh.Permissions{}, nil
			}
			return nil, errors.New("unknown public key")
		},
	}
	cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SSHServer{
		Root:               root,
		Addr:               ln.Addr().String(),
		ClientKeyPEM:       string(pem.EncodeToMemory(block)),
		KnownHosts:         knownhosts.Line([]string{knownhosts.Normalize(ln.Addr().String())}, hostSigner.PublicKey()) + "\n",
		HostKeyFingerprint: ssh.FingerprintSHA256(hostSigner.PublicKey()),
		ln:                 ln,
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serveConn(c, cfg)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

// RepoURL is the ssh:// URL of a repository directory below Root.
func (s *SSHServer) RepoURL(name string) string { return "ssh://git@" + s.Addr + "/" + name }

// SCPURL is the scp-style URL (only usable on port 22, so for parsing tests).
func (s *SSHServer) SCPURL(name string) string {
	return "git@" + strings.Split(s.Addr, ":")[0] + ":" + name
}

func (s *SSHServer) serveConn(c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go s.serveSession(ch, chReqs)
	}
}

func (s *SSHServer) serveSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		switch req.Type {
		case "env":
			_ = req.Reply(true, nil)
		case "exec":
			var payload struct{ Command string }
			if err := ssh.Unmarshal(req.Payload, &payload); err != nil {
				_ = req.Reply(false, nil)
				return
			}
			_ = req.Reply(true, nil)
			status := s.runGit(ch, payload.Command)
			_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
			return
		default:
			_ = req.Reply(false, nil)
		}
	}
}

// runGit executes "git-upload-pack '<path>'" or "git-receive-pack '<path>'" confined to Root.
func (s *SSHServer) runGit(ch ssh.Channel, command string) uint32 {
	fields := strings.SplitN(command, " ", 2)
	if len(fields) != 2 || (fields[0] != "git-upload-pack" && fields[0] != "git-receive-pack") {
		fmt.Fprintf(ch.Stderr(), "unsupported command %q\n", command)
		return 1
	}
	rel := strings.Trim(fields[1], "'\"")
	dir := filepath.Join(s.Root, filepath.Clean("/"+rel))
	cmd := exec.Command("git", strings.TrimPrefix(fields[0], "git-"), dir)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + s.Root, "PATH=/usr/bin:/bin:/usr/local/bin"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(ch.Stderr(), "%v\n", err)
		return 1
	}
	go func() {
		_, _ = io.Copy(stdin, ch)
		_ = stdin.Close()
	}()
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return uint32(ee.ExitCode())
		}
		return 1
	}
	return 0
}
