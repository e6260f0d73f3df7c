// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
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
	// A source's own errors: rollout_source_<block>_test.go.
}

// The configured block picks the source; the descriptions name every source; every source has its
// field in rolloutSourceBlocks (the one struct the three consumers embed) under its block's name, and
// every field there is a source's.
func TestRolloutSources_Registry(t *testing.T) {
	t.Parallel()
	set := types.ObjectValueMust(map[string]attr.Type{}, map[string]attr.Value{})
	null := types.ObjectNull(map[string]attr.Type{})
	fields := reflect.TypeFor[rolloutSourceBlocks]()
	if fields.NumField() != len(rolloutSources) {
		t.Errorf("rolloutSourceBlocks has %d fields for %d sources", fields.NumField(), len(rolloutSources))
	}
	for _, want := range rolloutSources {
		var m RolloutModel
		v := reflect.ValueOf(&m.rolloutSourceBlocks).Elem()
		found := false
		for i := range fields.NumField() {
			v.Field(i).Set(reflect.ValueOf(null))
			if fields.Field(i).Tag.Get("tfsdk") == want.attr {
				v.Field(i).Set(reflect.ValueOf(set))
				found = true
			}
		}
		if !found {
			t.Fatalf("rolloutSourceBlocks has no field tagged %q", want.attr)
		}
		if got, block := m.source(); got != want || !block.Equal(set) {
			t.Errorf("configuring %s picks %s (%v)", want.attr, got.attr, block)
		}
		if !isRolloutSource(want.attr) {
			t.Errorf("isRolloutSource(%q) = false", want.attr)
		}
	}
	names := rolloutSourceNames()
	for _, s := range rolloutSources {
		if !strings.Contains(names, "`"+s.attr+"`") {
			t.Errorf("rolloutSourceNames() = %q lacks %s", names, s.attr)
		}
	}
	if ands := strings.Count(names, " and "); len(rolloutSources) > 1 && ands != 1 {
		t.Errorf("rolloutSourceNames() = %q", names)
	}
}

// The guides that present the rollout sources name every one: kalypso_rollout's (promotion) and
// kalypso_gitops_commit's rollout's (progressive rollout).
func TestRolloutSources_Documented(t *testing.T) {
	t.Parallel()
	for _, guide := range []string{"promotion", "progressive-rollout"} {
		b, err := os.ReadFile("../../templates/guides/" + guide + ".md.tmpl")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rolloutSources {
			if !strings.Contains(string(b), "`"+s.attr+"`") {
				t.Errorf("templates/guides/%s.md.tmpl does not name the rollout source %s", guide, s.attr)
			}
		}
	}
}

// Each consumer shows every source's block, and the first one carries the "exactly one" validator
// where a configuration validator cannot reach (inside the commit's rollout and the environments).
func TestRolloutSources_InEverySchema(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var ro, fleet datasource.SchemaResponse
	(&RolloutDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &ro)
	(&FleetStatusDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &fleet)
	envs, _ := fleet.Schema.Attributes["environments"].(dsschema.ListNestedAttribute)
	commit := gitopsRolloutAttribute()
	for i, src := range rolloutSources {
		inRollout, ok1 := ro.Schema.Attributes[src.attr].(dsschema.SingleNestedAttribute)
		inFleet, ok2 := envs.NestedObject.Attributes[src.attr].(dsschema.SingleNestedAttribute)
		inCommit, ok3 := commit.Attributes[src.attr].(rschema.SingleNestedAttribute)
		if !ok1 || !ok2 || !ok3 {
			t.Fatalf("%s: rollout %v, fleet environments %v, commit's rollout %v", src.attr, ok1, ok2, ok3)
		}
		if len(inCommit.Attributes) != len(inRollout.Attributes) || len(inFleet.Attributes) != len(inRollout.Attributes) {
			t.Errorf("%s: the three blocks differ in attributes", src.attr)
		}
		if len(inRollout.Validators) != 0 {
			t.Errorf("%s: kalypso_rollout's block has validators; its configuration validator says exactly one", src.attr)
		}
		wantValidators := 0
		if i == 0 {
			wantValidators = 1
		}
		if len(inFleet.Validators) != wantValidators || len(inCommit.Validators) != wantValidators {
			t.Errorf("%s: %d and %d validators, want %d", src.attr, len(inFleet.Validators), len(inCommit.Validators), wantValidators)
		}
	}
}
