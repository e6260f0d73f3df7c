// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// PlanAgainstBranch is what the inspect and guards steps of PlanSteps compute for a request: the change
// set against the branch (ReadBranch), or the guard that refuses it (CheckBranchGuards).
func PlanAgainstBranch(ctx context.Context, c *gitrepo.Client, req PlanRequest) (*Plan, error) {
	p, err := ReadBranch(ctx, c, req)
	if err != nil {
		return nil, err
	}
	if err := CheckBranchGuards(req.Desired.Path, p, req.MaxDeletePercent); err != nil {
		return nil, err
	}
	return p, nil
}
