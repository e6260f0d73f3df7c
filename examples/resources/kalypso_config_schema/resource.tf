# Every assignment in East US must have a REGION in its platform config.
resource "kalypso_config_schema" "region_required" {
  name   = "region-required"
  labels = { region = "east-us" }
  schema = jsonencode({
    type       = "object"
    required   = ["REGION"]
    properties = { REGION = { type = "string" } }
  })
}
