// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// testCaches are the caches of the test binary's providers, built once as main.go builds the process's.
var testCaches = NewCaches()

// testAccProtoV6ProviderFactories runs the provider in-process for acceptance tests.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kalypso": NewProtocol6ServerWithError(New("test", testCaches)),
}

// NewProtocol6ServerWithError is NewProtocol6Server for terraform-plugin-testing's ProtoV6ProviderFactories.
func NewProtocol6ServerWithError(newProvider func() provider.Provider) func() (tfprotov6.ProviderServer, error) {
	serve := NewProtocol6Server(newProvider)
	return func() (tfprotov6.ProviderServer, error) { return serve(), nil }
}
