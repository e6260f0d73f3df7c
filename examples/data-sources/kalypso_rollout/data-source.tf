# How far dev's clusters got with dev's GitOps branch, from the commit statuses Flux posts
# (a notification-controller Provider of type github and an Alert for the Kustomizations), and the
# control-plane commit stage may move to.
data "kalypso_rollout" "dev" {
  environment    = "dev"
  repository_url = "https://github.com/org/gitops"
  branch         = "dev"

  # Zero reporting clusters never count: say which clusters must report.
  expected = {
    min_clusters = 3
  }
  soak_time = "15m"

  github_statuses = {
    # Flux's contexts are kustomization/<name>/<Provider UID prefix>; the default pattern reads them.
    context_patterns = ["^kustomization/(?P<reconciler>[^/]+)/(?P<cluster>[0-9a-f]{8})$"]
    # Only statuses the clusters' account posts count (the token in their Flux Provider secret).
    creators = ["flux-bot"]
  }

  promotion = {
    to            = "stage"
    control_plane = { repo = "https://github.com/org/control-plane" }
  }
}

output "dev_rollout" {
  value = data.kalypso_rollout.dev.summary
}

# Pin main for stage to what dev rolled out; stage keeps its commit while dev is progressing or failed.
data "kalypso_control_plane" "main_for_stage" {
  git = {
    repo   = "https://github.com/org/control-plane"
    branch = "main"
    commit = data.kalypso_rollout.dev.promotion_commit
  }
  resolve_workloads = true
}
