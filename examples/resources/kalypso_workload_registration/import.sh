# Import by name; everything else comes from configuration on the next plan.
terraform import kalypso_workload_registration.inline billing

# Or import a sourced registration with its source and workspace: the Workload is read from Git
# during the import. Format: <name>@<repo>//<path>?ref=<branch>&workspace=<workspace>
terraform import kalypso_workload_registration.hello_world_app 'hello-world-app@https://github.com/microsoft/kalypso-app-src//workload/?ref=main&workspace=kaizen-app-team'
