// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// A read that fails with an error no rule knows is reported at the block of the source that was
// configured, with that source's advice: azure_resource_graph is never told to check GitHub.
func TestRolloutError_BlamesTheConfiguredSource(t *testing.T) {
	t.Parallel()
	for _, src := range rolloutSources {
		diags := rolloutError(errors.New("connection reset"), "dev", src)
		if len(diags) != 1 {
			t.Fatalf("%s: %v", src.attr, diags)
		}
		d, ok := diags[0].(interface{ Path() path.Path })
		if !ok || !d.Path().Equal(path.Root(src.attr)) {
			t.Errorf("%s: the error is not at its block: %v", src.attr, diags[0])
		}
		if detail := diags[0].Detail(); !strings.Contains(detail, "connection reset") || !strings.Contains(detail, "nothing was written") {
			t.Errorf("%s: %s", src.attr, detail)
		}
		for _, other := range rolloutSources {
			if other != src && strings.Contains(diags[0].Detail(), other.attr) {
				t.Errorf("%s's error names %s: %s", src.attr, other.attr, diags[0].Detail())
			}
		}
	}
	// A source's own error is explained by it: Azure's page limit is about its subscriptions.
	diags := rolloutError(fmt.Errorf("too many: %w", rollout.ErrTooManyClusters), "dev", azureResourceGraphSource)
	if len(diags) != 1 || !strings.Contains(diags[0].Detail(), "azure_resource_graph.subscriptions") {
		t.Errorf("ErrTooManyClusters: %v", diags)
	}
}

// The configured block picks the source; the descriptions name every source.
func TestRolloutSources_Registry(t *testing.T) {
	t.Parallel()
	set := types.ObjectValueMust(map[string]attr.Type{}, map[string]attr.Value{})
	for _, want := range rolloutSources {
		m := RolloutModel{GitHubStatuses: types.ObjectNull(map[string]attr.Type{}), AzureGraph: types.ObjectNull(map[string]attr.Type{})}
		switch want {
		case githubStatusesSource:
			m.GitHubStatuses = set
		case azureResourceGraphSource:
			m.AzureGraph = set
		default:
			t.Fatalf("source %s is not covered by this test", want.attr)
		}
		if got := m.source(); got != want {
			t.Errorf("configuring %s picks %s", want.attr, got.attr)
		}
	}
	if got := rolloutSourceNames(); got != "`github_statuses` and `azure_resource_graph`" {
		t.Errorf("rolloutSourceNames() = %q", got)
	}
}
