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
const gitopsCommitSchemaVersion = 1

// numbersAsStrings are the attributes version 0 kept as numbers.
var numbersAsStrings = []string{"max_changes", "max_delete_percent", "pull_request_number"}

// UpgradeState reads a version 0 state: its numbers become the strings version 1 keeps. It works on the
// state's JSON, so that the attributes other versions add need no prior schema here.
func (r *GitopsCommitResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			if req.RawState == nil || len(req.RawState.JSON) == 0 {
				resp.Diagnostics.AddError("Cannot upgrade the stored kalypso_gitops_commit",
					"The state holds no JSON (a state written before Terraform 0.12?). Import the resource again with terraform import.")
				return
			}
			upgraded, err := numbersToStrings(req.RawState.JSON, numbersAsStrings)
			if err != nil {
				resp.Diagnostics.AddError("Cannot upgrade the stored kalypso_gitops_commit",
					fmt.Sprintf("Reading the version 0 state failed: %s. Remove the resource from state (terraform state rm) and import it again.", err))
				return
			}
			resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
		}},
	}
}

// numbersToStrings rewrites the named top-level attributes of a JSON object from numbers to their decimal
// strings (1000 becomes "1000"); null and absent attributes stay as they are.
func numbersToStrings(state []byte, names []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	for _, name := range names {
		n, ok := obj[name].(json.Number)
		if !ok {
			continue
		}
		f, _, err := big.ParseFloat(n.String(), 10, 256, big.ToNearestEven)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		obj[name] = f.Text('f', -1)
	}
	return json.Marshal(obj)
}
