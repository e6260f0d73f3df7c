# Every setting is optional. Credentials are best left to environment variables
# (GIT_TOKEN or GITHUB_TOKEN, GIT_SSH_KEY), which never reach state or plan output.
provider "kalypso" {
  author = {
    name  = "Platform Team"
    email = "platform@example.com"
  }

  # Resolve public repositories from a local mirror, like git's url.<base>.insteadOf.
  git_url_rewrites = {
    "https://github.com/" = "file:///srv/git-mirror/"
  }

  cache_dir = "/var/cache/kalypso"
}
