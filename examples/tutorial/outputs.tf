output "dev_assignments" {
  description = "Dev: which deployment target lands on which cluster type, and the policies that put it there."
  value       = { for a in local.dev.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies }
}

output "stage_assignments" {
  description = "Stage: which deployment target lands on which cluster type, and the policies that put it there."
  value       = { for a in local.stage.assignments : "${a.cluster_type}/${a.deployment_target}" => a.scheduling_policies }
}

output "dev_commit" {
  value = kalypso_gitops_commit.dev.commit_sha
}

output "stage_commit" {
  value = one(kalypso_gitops_commit.stage[*].commit_sha)
}
