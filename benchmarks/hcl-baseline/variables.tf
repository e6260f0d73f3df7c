# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0

# The fleet, as a platform team would keep it in HCL. `go run ./tools/fleetgen
# -format tfvars` writes these variables into fleet.auto.tfvars.json.

variable "environment" {
  type = string
}

variable "cluster_types" {
  type = list(object({
    name   = string
    labels = map(string)
  }))
}

variable "workloads" {
  type = list(object({
    name      = string
    workspace = string
    labels    = map(string)
    deployment_targets = list(object({
      name        = string
      environment = string
      labels      = map(string)
      manifests = object({
        repo   = string
        branch = string
        path   = string
      })
    }))
  }))
}

variable "scheduling_policies" {
  type = list(object({
    name      = string
    workspace = string
    deployment_target_selector = object({
      match_labels = map(string)
      match_expressions = list(object({
        key      = string
        operator = string
        values   = list(string)
      }))
    })
    cluster_type_selector = object({
      match_labels = map(string)
      match_expressions = list(object({
        key      = string
        operator = string
        values   = list(string)
      }))
    })
  }))
}

# Config values are strings, objects or lists, so the collection cannot have
# one element type.
variable "platform_configs" {
  type = any
}

# What the generator's reference implementation counted; checked below.
variable "expected_assignments" {
  type    = number
  default = null
}
