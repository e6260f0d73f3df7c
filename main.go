// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/kalypso/terraform-provider-kalypso/internal/provider"
)

// Run "go generate" to format example terraform files and generate the docs for the registry/website.

//go:generate terraform fmt -recursive ./examples/
//go:generate go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs generate -provider-name kalypso

// version is set by goreleaser.
var version = "dev"

func main() {
	// Before the server starts: the SDK reads its log levels when it builds its loggers.
	for k, v := range provider.SDKLogDefaults(os.Environ()) {
		if err := os.Setenv(k, v); err != nil {
			log.Printf("[WARN] %v", err)
		}
	}
	var debug bool
	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()

	if err := serve(context.Background(), debug); err != nil {
		log.Fatal(err.Error())
	}
}

// serve runs the plugin server until Terraform stops it, then removes the temporary Git caches of the
// process (full clones that would otherwise pile up in the temp dir, one set per provider run).
func serve(ctx context.Context, debug bool) error {
	// What the process keeps between Terraform's calls (renders, Git clients, render stores, temporary
	// Git caches) is built here, once, and handed to the provider.
	caches := provider.NewCaches()
	defer func() {
		if err := caches.Close(); err != nil {
			log.Printf("[WARN] removing temporary Git caches: %v", err)
		}
	}()
	// Ctrl-C in a terminal reaches the whole process group: stop the function renders, which Terraform's
	// StopProvider does not reach (internal/provider/interrupt.go). go-plugin ignores the signal otherwise.
	interrupted, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	caches.SetProcessStop(interrupted)
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	return tf6server.Serve("registry.terraform.io/kalypso/kalypso", provider.NewProtocol6Server(provider.New(version, caches)), opts...)
}
