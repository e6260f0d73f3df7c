# Functional tests of the kaizen app team run on restricted edge clusters.
resource "kalypso_scheduling_policy" "functional_test" {
  name = "functional-test-policy"
  deployment_target_selector = {
    workspace    = "kaizen-app-team"
    match_labels = { purpose = "functional-test", edge = "true" }
  }
  cluster_type_selector = {
    match_labels = { restricted = "true", edge = "true" }
  }
}

# Match expressions use Kubernetes semantics: NotIn and DoesNotExist also match objects without the key.
resource "kalypso_scheduling_policy" "observability" {
  name = "observability-policy"
  deployment_target_selector = {
    workspace    = "platform-team"
    match_labels = { stack = "observability" }
  }
  cluster_type_selector = {
    match_expressions = [
      { key = "size", operator = "In", values = ["large", "medium"] },
      { key = "restricted", operator = "DoesNotExist" },
    ]
  }
}
