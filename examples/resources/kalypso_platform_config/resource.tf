# Applies to every assignment on a cluster type labelled region=west-us.
# The manifest gets the label platform-config: "true" automatically.
resource "kalypso_platform_config" "west_us" {
  name   = "west-us-config"
  labels = { region = "west-us" }
  data = {
    REGION       = "West US"
    DATABASE_URL = "mysql://west:8806/mysql2"
  }
}

# Applies to the drone cluster type only.
resource "kalypso_platform_config" "drone" {
  name   = "drone-config"
  labels = { "cluster-type" = "drone" }
  data   = { CLUSTER_NAME = "Drone" }
}
