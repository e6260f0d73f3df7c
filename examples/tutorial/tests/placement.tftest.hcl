# Placement rules of the tutorial fleet, tested with `terraform test` and no Git at all:
#
#   terraform init && terraform test
#
# The scheduling runs in provider::kalypso::environment_render, a pure function, so a plan computes every
# assignment. Only the two resources that talk to Git are replaced for the tests: the workload
# registrations get the Workloads the application teams push (as the registrations' `manifest`), and the
# GitOps commits are not planned. `override_during = plan` needs Terraform 1.11 or later.
#
# placement.tofutest.hcl is the same suite for OpenTofu, which overrides during plan already and has no
# `override_during`; OpenTofu reads it instead of this file. Change both together.

override_resource {
  target          = kalypso_gitops_commit.dev
  override_during = plan
}

override_resource {
  target          = kalypso_gitops_commit.stage
  override_during = plan
}

# What the kaizen team's repository holds (examples/tutorial/app-src/workload/workload.yaml).
override_resource {
  target          = kalypso_workload_registration.hello_world_app
  override_during = plan
  values = {
    manifest = <<-EOT
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: WorkloadRegistration
      metadata:
        name: hello-world-app
      spec:
        workload:
          repo: https://github.com/microsoft/kalypso-app-src
          branch: main
          path: workload/
        workspace: kaizen-app-team
      ---
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: Workload
      metadata:
        name: hello-world-app
        labels:
          type: application
          family: force
      spec:
        deploymentTargets:
          - name: functional-test
            labels:
              purpose: functional-test
              edge: "true"
            environment: dev
            manifests:
              repo: https://github.com/microsoft/kalypso-app-gitops
              branch: dev
              path: ./functional-test
          - name: performance-test
            labels:
              purpose: performance-test
              edge: "false"
            environment: dev
            manifests:
              repo: https://github.com/microsoft/kalypso-app-gitops
              branch: dev
              path: ./performance-test
          - name: uat-test
            labels:
              purpose: uat-test
            environment: stage
            manifests:
              repo: https://github.com/microsoft/kalypso-app-gitops
              branch: stage
              path: ./uat-test
    EOT
  }
}

# What the platform team's services repository holds (examples/tutorial/svc-src/workloads/observability.yaml).
override_resource {
  target          = kalypso_workload_registration.platform_svc
  override_during = plan
  values = {
    manifest = <<-EOT
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: WorkloadRegistration
      metadata:
        name: platform-svc
      spec:
        workload:
          repo: https://github.com/microsoft/kalypso-svc-src
          branch: main
          path: ./workloads
        workspace: platform-team
      ---
      apiVersion: scheduler.kalypso.io/v1alpha1
      kind: Workload
      metadata:
        name: observability
        annotations:
          scheduler.kalypso.io/registration: platform-svc
        labels:
          type: service
          stack: observability
      spec:
        deploymentTargets:
          - name: prometheus
            environment: dev
            manifests:
              repo: https://github.com/microsoft/kalypso-svc-gitops
              branch: dev
              path: ./prometheus
    EOT
  }
}

# Upstream's arc-flux template writes Flux's v1beta2 GitRepository and Kustomization, which current Flux
# no longer serves: every render warns about both manifests of that Template wherever an arc-flux cluster
# type has an assignment. README.md says what to change. The runs assert on the function's `warnings`,
# the same warnings the GitOps commits (not planned here) show in a real plan.

# Stage 1: hello-world-app's Dev targets exist, but no policy places them yet, and the render warns.
run "stage_1_dev_targets_are_unscheduled_and_warned" {
  command = plan
  variables { stage = 1 }

  assert {
    condition     = local.dev.unscheduled_deployment_targets == tolist(["hello-world-app-functional-test", "hello-world-app-performance-test"])
    error_message = "unscheduled at stage 1: ${jsonencode(local.dev.unscheduled_deployment_targets)}"
  }
  assert {
    condition     = length([for w in local.dev.warnings : w if !strcontains(w, "API version not served")]) == 1 && anytrue([for w in local.dev.warnings : strcontains(w, "Unscheduled deployment targets")])
    error_message = "dev warnings at stage 1: ${jsonencode(local.dev.warnings)}"
  }
}

run "upstream_flux_templates_are_flagged_for_current_flux" {
  command = plan
  variables { stage = 5 }

  assert {
    condition = toset([for w in local.dev.warnings : regex("of apiVersion ([^ ,]+)", w)[0] if strcontains(w, "API version not served")]) == toset([
      "source.toolkit.fluxcd.io/v1beta2", "kustomize.toolkit.fluxcd.io/v1beta2",
    ])
    error_message = "dev warnings: ${jsonencode(local.dev.warnings)}"
  }
}

run "functional_test_lands_only_on_restricted_edge_cluster_types" {
  command = plan
  variables { stage = 2 }

  assert {
    condition = length([
      for key, _ in output.dev_assignments : key if endswith(key, "/hello-world-app-functional-test")
    ]) > 0
    error_message = "functional-test is not placed anywhere: ${jsonencode(output.dev_assignments)}"
  }
  assert {
    condition = alltrue([
      for key, _ in output.dev_assignments : (
        lookup(kalypso_cluster_type.dev[split("/", key)[0]].labels, "restricted", "") == "true" &&
        lookup(kalypso_cluster_type.dev[split("/", key)[0]].labels, "edge", "") == "true"
      ) if endswith(key, "/hello-world-app-functional-test")
    ])
    error_message = "functional-test lands on a cluster type that is not restricted and edge: ${jsonencode(keys(output.dev_assignments))}"
  }
}

run "performance_test_lands_only_on_large_cluster_types" {
  command = plan
  variables { stage = 2 }

  assert {
    condition = toset([
      for key, _ in output.dev_assignments : split("/", key)[0] if endswith(key, "/hello-world-app-performance-test")
    ]) == toset([for name, ct in kalypso_cluster_type.dev : name if lookup(ct.labels, "size", "") == "large"])
    error_message = "performance-test placement: ${jsonencode(keys(output.dev_assignments))}"
  }
}

run "no_deployment_target_is_unscheduled" {
  command = plan
  variables { stage = 5 }

  assert {
    condition     = length(local.dev.unscheduled_deployment_targets) == 0 && length(local.stage.unscheduled_deployment_targets) == 0
    error_message = "unscheduled: dev ${jsonencode(local.dev.unscheduled_deployment_targets)}, stage ${jsonencode(local.stage.unscheduled_deployment_targets)}"
  }
  assert {
    condition     = alltrue([for w in concat(local.dev.warnings, local.stage.warnings) : strcontains(w, "API version not served")])
    error_message = "warnings: ${jsonencode(concat(local.dev.warnings, local.stage.warnings))}"
  }
}

run "stage_gets_the_uat_targets_on_every_cluster_type" {
  command = plan
  variables { stage = 5 }

  assert {
    condition = toset(keys(output.stage_assignments)) == toset([
      for name, _ in kalypso_cluster_type.stage : "${name}/hello-world-app-uat-test"
    ])
    error_message = "stage assignments: ${jsonencode(keys(output.stage_assignments))}"
  }
}
