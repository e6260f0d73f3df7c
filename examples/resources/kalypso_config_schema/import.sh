# Import by name; labels and schema come from configuration on the next plan.
terraform import kalypso_config_schema.region_required region-required
