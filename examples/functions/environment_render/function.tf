# The function returns the same object as the kalypso_environment_render data source.
# Prefer it when the manifests come from kalypso_* resources that change in the same
# plan: a data source that depends on pending changes is deferred to apply, a function is not.
locals {
  dev = provider::kalypso::environment_render("dev", [
    <<-YAML
    apiVersion: scheduler.kalypso.io/v1alpha1
    kind: ClusterType
    metadata:
      name: large
      labels:
        size: large
    spec:
      reconciler: arc-flux
      namespaceService: default
      configType: configmap
    ---
    apiVersion: scheduler.kalypso.io/v1alpha1
    kind: SchedulingPolicy
    metadata:
      name: everything-on-large
    spec:
      deploymentTargetSelector: {}
      clusterTypeSelector:
        labelSelector:
          matchLabels:
            size: large
    YAML
    ,
    file("${path.module}/workload.yaml"),
  ])
}

output "dev_files" {
  value = keys(local.dev.files)
}

# A function cannot emit warnings, so it returns them. This check turns them into plan warnings:
# an unscheduled deployment target, a policy that selects nothing, a mistyped environment, ...
check "dev_render" {
  assert {
    condition     = length(local.dev.warnings) == 0
    error_message = join("\n", local.dev.warnings)
  }
}
