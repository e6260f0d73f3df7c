# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0

output "assignment_count" {
  value = length(local.assignments)
}

output "file_count" {
  value = length(local.files)
}

output "unscheduled_deployment_targets" {
  value = local.unscheduled_deployment_targets
}

output "assignments" {
  value = local.assignments
}

# The GitOps tree: path relative to the GitOps root => content.
output "files" {
  value = local.files
}
