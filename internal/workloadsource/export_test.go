// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package workloadsource

import (
	"context"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
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
