# Import by name. Model resources live only in state: the next plan takes every other attribute
# from configuration, and nothing changes outside Terraform.
terraform import kalypso_cluster_type.drone drone
