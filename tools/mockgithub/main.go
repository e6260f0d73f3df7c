// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Command mockgithub serves the mock of GitHub's REST API that the acceptance tests use
// (internal/testutil/mockgithub) as a standalone process, so that `make demo` can show promotion
// offline: a fake cluster posts commit statuses to it as Flux's notification-controller posts them
// (POST /api/v3/repos/{owner}/{repo}/statuses/{sha}), and kalypso_rollout reads them back with
// github_base_url pointing here. It is a mock: it keeps everything in memory and implements only
// the endpoints the provider uses.
//
//	go run ./tools/mockgithub -addr 127.0.0.1:0 -url-file /tmp/mockgithub.url
//
// It prints the github_base_url (also written to -url-file when set) and serves until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port)")
	urlFile := flag.String("url-file", "", "write the github_base_url to this file once listening")
	token := flag.String("token", "", "token every request must carry (Authorization: Bearer or token); empty accepts any")
	flag.Parse()
	if err := run(*addr, *urlFile, *token); err != nil {
		fmt.Fprintln(os.Stderr, "mockgithub:", err)
		os.Exit(1)
	}
}

func run(addr, urlFile, token string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w; choose another -addr", addr, err)
	}
	s := mockgithub.New(token)
	_ = s.Listener.Close()
	s.Listener = l
	s.Start()
	defer s.Close()
	fmt.Println(s.BaseURL())
	if urlFile != "" {
		// Written after Start, so a reader that sees the file can connect.
		if err := os.WriteFile(urlFile, []byte(s.BaseURL()+"\n"), 0o600); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}
