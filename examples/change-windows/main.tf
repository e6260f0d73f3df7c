# Change windows for an environment's GitOps branch: changes reach production on weekdays from 08:00
# to 17:00 Berlin time, never in the two weeks around the turn of the year, and outside those hours
# only through a break-glass that names its reason and ticket. The plan of a change outside the window
# fails with the window that blocks it and when the next one opens; the apply checks again.
terraform {
  required_providers {
    kalypso = {
      source = "kalypso/kalypso"
    }
  }
}

variable "gitops_repo" {
  description = "The GitOps repository (a file:// URL or path works for a local bare repository)."
  type        = string
  default     = "https://github.com/example-org/fleet-gitops.git"
}

variable "break_glass" {
  description = "Set for one change that must pass a closed window, for example { reason = \"CVE-2026-0001 hotfix\", ticket = \"INC-4711\" }."
  type        = object({ reason = string, ticket = string })
  default     = null
}

provider "kalypso" {}

resource "kalypso_gitops_commit" "prod" {
  repository_url = var.gitops_repo
  branch         = "prod"
  path           = "clusters"
  files = {
    "drone/hello-world/namespace.yaml" = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod-drone-hello-world\n"
  }

  change_windows = {
    time_zone = "Europe/Berlin"
    allow     = [{ schedule = "0 8 * * 1-5", duration = "9h", description = "office hours" }]
    deny      = [{ schedule = "0 0 20 12 *", duration = "336h", description = "year-end freeze" }]
  }
  break_glass = var.break_glass
}
