// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// gitopsCommitSchemaVersion is kalypso_gitops_commit's schema version. 1: max_changes, max_delete_percent
// and pull_request_number are decimal strings instead of numbers, because a number in the state makes
// Terraform's `plan -refresh-only -detailed-exitcode` exit 2 without drift (hashicorp/terraform#36403).
// 2: so are rollout's history, max_clusters, waves[*].max_failures and expected.min_clusters_per_cluster_type
// (with max_failures = 1 a refresh-only plan exited 2 in 5 of 5 runs, without numbers 0 of 5).
const gitopsCommitSchemaVersion = 2

// numbersAsStrings are the attributes version 0 kept as numbers.
var numbersAsStrings = []string{"max_changes", "max_delete_percent", "pull_request_number"}

// UpgradeState reads a version 0 or 1 state: its numbers become the strings version 2 keeps. It works on
// the state's JSON, so that the attributes other versions add need no prior schema here.
func (r *GitopsCommitResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeNumbers}, 1: {StateUpgrader: upgradeNumbers}}
}

// upgradeNumbers turns every number of an older state into its decimal string.
func upgradeNumbers(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	if req.RawState == nil || len(req.RawState.JSON) == 0 {
		resp.Diagnostics.AddError("Cannot upgrade the stored kalypso_gitops_commit",
			"The state holds no JSON (a state written before Terraform 0.12?). Import the resource again with terraform import.")
		return
	}
	upgraded, err := numbersToStrings(req.RawState.JSON, numbersAsStrings)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade the stored kalypso_gitops_commit",
			fmt.Sprintf("Reading the older state failed: %s. Remove the resource from state (terraform state rm) and import it again.", err))
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
}

// numbersToStrings rewrites the named top-level attributes of a JSON object, and rollout's numbers, from
// numbers to their decimal strings (1000 becomes "1000"); null and absent attributes stay as they are.
func numbersToStrings(state []byte, names []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if err := stringify(obj, names); err != nil {
		return nil, err
	}
	if rollout, ok := obj["rollout"].(map[string]any); ok { // version 1 kept rollout's numbers
		if err := stringify(rollout, []string{"history", "max_clusters"}); err != nil {
			return nil, err
		}
		if expected, ok := rollout["expected"].(map[string]any); ok {
			if err := stringify(expected, []string{"min_clusters_per_cluster_type"}); err != nil {
				return nil, err
			}
		}
		waves, _ := rollout["waves"].([]any)
		for _, w := range waves {
			if wave, ok := w.(map[string]any); ok {
				if err := stringify(wave, []string{"max_failures"}); err != nil {
					return nil, err
				}
			}
		}
	}
	return json.Marshal(obj)
}

// stringify replaces the named numbers of obj by their decimal strings.
func stringify(obj map[string]any, names []string) error {
	for _, name := range names {
		n, ok := obj[name].(json.Number)
		if !ok {
			continue
		}
		f, _, err := big.ParseFloat(n.String(), 10, 256, big.ToNearestEven)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		obj[name] = f.Text('f', -1)
	}
	return nil
}
