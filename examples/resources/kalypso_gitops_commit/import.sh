# Import by <repository_url>//<path>?ref=<branch> (path "." is the repository root).
# Refresh then reads the branch; the next plan lists in `changes` every file that differs from the
# configuration.
terraform import kalypso_gitops_commit.dev 'https://github.com/example-org/fleet-gitops.git//.?ref=dev'
