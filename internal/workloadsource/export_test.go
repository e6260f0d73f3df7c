// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package workloadsource

import (
	"context"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// Fetch is FetchDocuments with the linked texts only.
func Fetch(ctx context.Context, client *gitrepo.Client, reg *model.WorkloadRegistration) (commit string, workloads []string, err error) {
	commit, docs, err := FetchDocuments(ctx, client, reg)
	if err != nil {
		return commit, nil, err
	}
	for _, d := range docs {
		workloads = append(workloads, d.Text)
	}
	return commit, workloads, nil
}

// ExtractWorkloads returns the Workload documents of the *.yaml/*.yml files, sorted by file path, linked to
// the registration named registration. Documents of other kinds, and YAML that is not a Kubernetes object,
// are ignored; a document that is not valid YAML is an error naming its file and index.
func ExtractWorkloads(files map[string][]byte, registration string) ([]Document, error) {
	docs, err := extractWorkloads(files, registration)
	return docs, sanitize.Error(err)
}
