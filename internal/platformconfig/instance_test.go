// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestInstanceValidatesAsValidateDoes: one converted Instance, validated against several schemas, gives
// each schema's verdict that Validate gives on the data (the render converts a composed config once for
// the ConfigSchema and every Workload's own schema).
func TestInstanceValidatesAsValidateDoes(t *testing.T) {
	t.Parallel()
	cache := NewSchemaCache()
	schemas := []string{
		`{"type":"object","required":["ENVIRONMENT"]}`,
		`{"type":"object","properties":{"REPLICAS":{"type":"integer","minimum":3}}}`,
		`{"type":"object","properties":{"resources":{"type":"object","required":["cpu"]}}}`,
		`{"type":"object","properties":{"REPLICAS":{"type":"string"}}}`,
	}
	configs := []map[string]interface{}{
		{"ENVIRONMENT": "dev", "REPLICAS": "5", "resources": map[interface{}]interface{}{"cpu": "100m"}},
		{"REPLICAS": "2", "resources": map[string]interface{}{"memory": "1Gi"}},
		{"ENVIRONMENT": "dev", "bad": math.Inf(1)}, // no JSON form: every schema reports it
	}
	for ci, config := range configs {
		inst := NewInstance(config)
		for si, text := range schemas {
			compiled, err := cache.Compile(context.Background(), text, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := Validate(compiled, config)
			if got := inst.Validate(compiled); !reflect.DeepEqual(got, want) {
				t.Errorf("config %d, schema %d: Instance.Validate = %+v, Validate = %+v", ci, si, got, want)
			}
			if ci == 2 && (want == nil || want.Field != "/") {
				t.Errorf("config %d, schema %d: %+v, want a violation at / for a value with no JSON form", ci, si, want)
			}
		}
	}
	if Validate(mustCompile(t, cache, schemas[1]), configs[1]) == nil {
		t.Error("REPLICAS 2 (numberized) passed minimum 3")
	}
}

func mustCompile(t *testing.T, cache *SchemaCache, text string) *jsonschema.Schema {
	t.Helper()
	s, err := cache.Compile(context.Background(), text, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
