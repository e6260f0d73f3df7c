# Import by name; type and manifests come from configuration on the next plan.
terraform import kalypso_template.configmap configmap
