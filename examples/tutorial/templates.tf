# The tutorial's templates, byte for byte as in the upstream control-plane sample.
locals {
  templates = {
    "arc-flux"  = { type = "reconciler", manifests = ["arc-flux-0", "arc-flux-1"] }
    "argocd"    = { type = "reconciler", manifests = ["argocd-0"] }
    "default"   = { type = "namespace", manifests = ["default-0"] }
    "configmap" = { type = "config", manifests = ["configmap-0"] }
  }
}

resource "kalypso_template" "all" {
  for_each  = local.templates
  name      = each.key
  type      = each.value.type
  manifests = [for m in each.value.manifests : file("${path.module}/templates/${m}.yaml.tmpl")]
}
