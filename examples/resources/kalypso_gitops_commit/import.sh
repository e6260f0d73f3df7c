# Import by <repository_url>//<path>?ref=<branch> (path "." is the repository root).
# Refresh then reads the files under path from the branch head; the next plan shows any
# difference from configuration as a per-file diff.
terraform import kalypso_gitops_commit.dev 'https://github.com/example-org/fleet-gitops.git//.?ref=dev'
