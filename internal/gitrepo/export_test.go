// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

// SetHookBeforeUpdate lets tests run a concurrent writer between building a commit and updating the ref.
func SetHookBeforeUpdate(c *Client, f func(attempt int)) { c.hookBeforeUpdate = f }
