// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package delivery holds the rules of kalypso_gitops_commit that do not depend on Terraform: the change
// set between a branch and the desired tree (what the plan shows and the apply performs), the guards
// checked at plan time (ref names, a missing branch, overlapping paths, mass deletion), and the
// commit and pull-request conventions (promoted-commit file, head branch, labels).
//
// Ownership of a path is recorded in the branch itself: a resource writes the file OwnerMarker at the
// root of its path. The marker is a dot-entry, so the resource never manages or deletes it as part of its
// files; it has no YAML extension, so neither Flux nor Argo CD applies it to a cluster. A resource whose
// path has a marker in an ancestor or a descendant directory overlaps another resource's path and is
// refused at plan time. A resource that finds at its own path a record it did not write (another
// state's, see owner.go) is refused too, unless it takes the path over with adopt.
package delivery
