# Copyright (c) The terraform-provider-kalypso authors.
# SPDX-License-Identifier: MPL-2.0

# Kalypso scheduling in plain Terraform: no providers, only expressions.

terraform {
  required_version = ">= 1.8"
}

locals {
  # Deployment targets of this environment, named <workload>-<target>, with
  # the target's labels overridden by the workload's, plus workload and
  # workspace.
  deployment_targets = flatten([
    for w in var.workloads : [
      for t in w.deployment_targets : {
        name      = "${w.name}-${t.name}"
        workload  = w.name
        workspace = w.workspace
        labels    = merge(t.labels, w.labels, { workload = w.name, workspace = w.workspace })
        manifests = t.manifests
      } if t.environment == var.environment
    ]
  ])
  targets_by_name       = { for t in local.deployment_targets : t.name => t }
  cluster_types_by_name = { for c in var.cluster_types : c.name => c }

  # For each policy, the targets and cluster types its selectors match.
  # Terraform has no user-defined functions, so the label-selector test is
  # written out once per side. Operators do not short-circuit, hence the
  # conditionals around label lookups.
  policy_selections = [
    for p in var.scheduling_policies : {
      policy = p.name
      targets = [
        for t in local.deployment_targets : t.name
        if(p.workspace == "" || p.workspace == t.workspace) && alltrue(concat(
          [for k, v in p.deployment_target_selector.match_labels : contains(keys(t.labels), k) ? t.labels[k] == v : false],
          [for e in p.deployment_target_selector.match_expressions :
            e.operator == "In" ? (contains(keys(t.labels), e.key) ? contains(e.values, t.labels[e.key]) : false) :
            e.operator == "NotIn" ? (contains(keys(t.labels), e.key) ? !contains(e.values, t.labels[e.key]) : true) :
            e.operator == "Exists" ? contains(keys(t.labels), e.key) :
            e.operator == "DoesNotExist" ? !contains(keys(t.labels), e.key) :
            false
          ],
        ))
      ]
      cluster_types = [
        for c in var.cluster_types : c.name
        if alltrue(concat(
          [for k, v in p.cluster_type_selector.match_labels : contains(keys(c.labels), k) ? c.labels[k] == v : false],
          [for e in p.cluster_type_selector.match_expressions :
            e.operator == "In" ? (contains(keys(c.labels), e.key) ? contains(e.values, c.labels[e.key]) : false) :
            e.operator == "NotIn" ? (contains(keys(c.labels), e.key) ? !contains(e.values, c.labels[e.key]) : true) :
            e.operator == "Exists" ? contains(keys(c.labels), e.key) :
            e.operator == "DoesNotExist" ? !contains(keys(c.labels), e.key) :
            false
          ],
        ))
      ]
    }
  ]

  # Every (target, cluster type) pair a policy selects; a pair selected by
  # several policies is one assignment listing all of them.
  selected_pairs = flatten([
    for s in local.policy_selections : [
      for pair in setproduct(s.cluster_types, s.targets) : {
        key          = "${pair[0]}/${pair[1]}"
        cluster_type = pair[0]
        target       = pair[1]
        policy       = s.policy
      }
    ]
  ])
  pairs_by_key = { for p in local.selected_pairs : p.key => p... }
  assignments = {
    for key, ps in local.pairs_by_key : key => {
      cluster_type        = ps[0].cluster_type
      deployment_target   = ps[0].target
      workload            = local.targets_by_name[ps[0].target].workload
      workspace           = local.targets_by_name[ps[0].target].workspace
      scheduling_policies = [for p in ps : p.policy]
      namespace           = "${var.environment}-${ps[0].cluster_type}-${ps[0].target}"
    }
  }

  # Platform config maps in name order (map keys iterate sorted).
  configs_by_name = { for c in var.platform_configs : c.name => c }

  # The config maps that apply to each assignment. cluster-type,
  # deployment-target and workload compare with the assignment's names;
  # any other label must equal the cluster type's or the target's label, a
  # missing label reading as "".
  assignment_configs = {
    for key, a in local.assignments : key => [
      for name, c in local.configs_by_name : c.data
      if alltrue([
        for k, v in c.labels :
        k == "platform-config" ? true :
        k == "cluster-type" ? v == a.cluster_type :
        k == "deployment-target" ? v == a.deployment_target :
        k == "workload" ? v == a.workload :
        lookup(local.cluster_types_by_name[a.cluster_type].labels, k, "") == v || lookup(local.targets_by_name[a.deployment_target].labels, k, "") == v
      ])
    ]
  }

  # Later config maps win. A key whose values are all objects merges them,
  # one level deep; all lists are concatenated; otherwise the last value wins.
  # try() picks the first of those that type-checks.
  config_data = {
    for key, sources in local.assignment_configs : key => {
      for k in distinct(flatten([for d in sources : keys(d)])) : k => try(
        merge([for d in sources : d[k] if contains(keys(d), k)]...),
        concat([for d in sources : d[k] if contains(keys(d), k)]...),
        [for d in sources : d[k] if contains(keys(d), k)][length([for d in sources : d[k] if contains(keys(d), k)]) - 1],
      )
    }
  }

  assignment_files = merge([
    for key, a in local.assignments : {
      "${key}/reconciler.yaml" = templatefile("${path.module}/templates/arc-flux.yaml.tftpl", {
        deployment_target = a.deployment_target
        namespace         = a.namespace
        manifests         = local.targets_by_name[a.deployment_target].manifests
      })
      "${key}/namespace.yaml" = templatefile("${path.module}/templates/namespace.yaml.tftpl", {
        deployment_target = a.deployment_target
        namespace         = a.namespace
        environment       = var.environment
        workspace         = a.workspace
        workload          = a.workload
      })
      "${key}/platform-config.yaml" = templatefile("${path.module}/templates/configmap.yaml.tftpl", {
        namespace   = a.namespace
        config_data = local.config_data[key]
      })
    }
  ]...)

  readme_files = {
    for c in var.cluster_types : "${c.name}/README.md" => "This folder contains deployment targets scheduled on the cluster type"
  }

  files = merge(local.readme_files, local.assignment_files)

  unscheduled_deployment_targets = sort(setsubtract(
    [for t in local.deployment_targets : t.name],
    distinct([for a in values(local.assignments) : a.deployment_target]),
  ))
}

check "assignment_count" {
  assert {
    condition     = var.expected_assignments == null || length(local.assignments) == var.expected_assignments
    error_message = "Scheduled ${length(local.assignments)} assignments; the fleet generator expected ${coalesce(var.expected_assignments, -1)}."
  }
}
