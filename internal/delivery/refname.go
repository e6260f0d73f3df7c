// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import "github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"

// ValidateBranchName applies git check-ref-format's rules to a branch name (gitrepo.ValidateBranchName,
// which kalypso_fleet_status's reads apply too).
func ValidateBranchName(name string) error { return gitrepo.ValidateBranchName(name) }
