// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

// The pending change of kalypso_gitops_commit (changes, changes_summary, changes_counts,
// changes_by_directory, changes_markdown) is what the next apply writes. Terraform requires an apply to
// store exactly what it planned, so the state an apply leaves holds the change it just made. Read as
// such, the next plan would print every entry of that change as leaving the map (`- "a.yaml" = {...} ->
// null`), which reads as the deletion of files that stay: a one-key change printed 466 lines (issue 36).
//
// Terraform and OpenTofu call UpgradeResourceState on every stored object before they use it, also when
// its schema version is current ("for any other minor fixups"), and both the refresh and the drift
// comparison of a refresh-only plan start from the upgraded object. So the protocol server reads a
// stored pending change as what it is once applied: none. Every plan then diffs the pending change
// against an empty one and prints only it, the apply still stores what it planned (no "inconsistent
// result after apply"), and a refresh-only plan compares two empty change sets (no drift). The state file
// keeps the last apply's change as a record until the next refresh writes the state.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
)

// NewProtocol6Server is the provider's protocol server: the framework's, with the stored pending change of
// kalypso_gitops_commit read as none (see the top of this file). main.go and the tests serve it.
func NewProtocol6Server(newProvider func() provider.Provider) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		return pendingChangeServer{ProviderServer: providerserver.NewProtocol6(newProvider())()}
	}
}

type pendingChangeServer struct {
	tfprotov6.ProviderServer
}

func (s pendingChangeServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	resp, err := s.ProviderServer.UpgradeResourceState(ctx, req)
	if err != nil || resp == nil || resp.UpgradedState == nil || req.TypeName != gitopsCommitTypeName {
		return resp, err
	}
	upgraded, err := withoutPendingChange(ctx, *resp.UpgradedState)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
			Summary: "Cannot read the stored kalypso_gitops_commit",
			Detail:  fmt.Sprintf("Clearing the applied change set of the stored object failed: %s. This is a bug in the provider; please report it.", err)})
		return resp, nil
	}
	resp.UpgradedState = &upgraded
	return resp, nil
}

// gitopsCommitTypeName is the resource's type name under the provider's name.
const gitopsCommitTypeName = "kalypso_gitops_commit"

// withoutPendingChange is a stored kalypso_gitops_commit object with the change set attributes of an
// applied (empty) change set.
func withoutPendingChange(ctx context.Context, stored tfprotov6.DynamicValue) (tfprotov6.DynamicValue, error) {
	var sr resource.SchemaResponse
	(&GitopsCommitResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx)
	raw, err := stored.Unmarshal(typ)
	if err != nil {
		return stored, err
	}
	if raw.IsNull() {
		return stored, nil
	}
	st := tfsdk.State{Schema: sr.Schema, Raw: raw}
	var m gitopsCommitModel
	if diags := st.Get(ctx, &m); diags.HasError() {
		return stored, fmt.Errorf("%v", diags)
	}
	m.setChanges(&delivery.Plan{})
	if diags := st.Set(ctx, &m); diags.HasError() {
		return stored, fmt.Errorf("%v", diags)
	}
	return tfprotov6.NewDynamicValue(typ, st.Raw)
}
