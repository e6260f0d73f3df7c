# Import by name; the selectors come from configuration on the next plan.
terraform import kalypso_scheduling_policy.functional_test functional-test-policy
