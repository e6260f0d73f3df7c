# Import by name; labels and data come from configuration on the next plan.
terraform import kalypso_platform_config.west_us west-us-config
