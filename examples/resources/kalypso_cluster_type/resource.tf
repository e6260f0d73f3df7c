# Drones at the edge, in East US. Their deployment targets are reconciled by Flux (the `arc-flux` template).
resource "kalypso_cluster_type" "drone" {
  name = "drone"
  labels = {
    region     = "east-us"
    restricted = "true"
    edge       = "true"
  }
  reconciler        = "arc-flux"  # default
  namespace_service = "default"   # default
  config_type       = "configmap" # default
}
