// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func nested(n int) string {
	return strings.Repeat(`{"properties":{"a":`, n) + "{}" + strings.Repeat("}}", n)
}

// TestSchemaLimits: a schema over the depth or size limit is a *LimitError and is never compiled; a raised
// limit compiles it; brackets inside strings do not count; a canceled context stops before compiling; and
// each distinct text is compiled once.
func TestSchemaLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := NewSchemaCache()
	var le *LimitError
	if _, err := c.Compile(ctx, nested(2500), Limits{}); !errors.As(err, &le) || !le.Depth || le.Limit != DefaultMaxDepth ||
		err.Error() != "the schema nests objects and arrays more than 128 levels deep (the limit)" {
		t.Fatalf("deep schema: %v", err)
	}
	if _, err := c.Compile(ctx, nested(63), Limits{}); err != nil { // 127 levels
		t.Fatalf("within the default depth: %v", err)
	}
	if _, err := c.Compile(ctx, nested(64), Limits{}); !errors.As(err, &le) {
		t.Fatalf("129 levels: %v", err)
	}
	if _, err := c.Compile(ctx, nested(64), Limits{MaxDepth: 200}); err != nil {
		t.Fatalf("a raised limit: %v", err)
	}
	brackets := `{"type":"object","description":"` + strings.Repeat(`[{\"`, 500) + `"}`
	if _, err := c.Compile(ctx, brackets, Limits{MaxDepth: 2}); err != nil {
		t.Fatalf("brackets in a string: %v", err)
	}
	big := `{"type":"object","description":"` + strings.Repeat("x", DefaultMaxBytes) + `"}`
	if _, err := c.Compile(ctx, big, Limits{}); !errors.As(err, &le) || le.Depth || le.Got != len(big) ||
		!strings.HasPrefix(err.Error(), "the schema is 1048610 bytes, more than the limit of 1048576") {
		t.Fatalf("large schema: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Compile(canceled, `{"type":"string"}`, Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
	a, err := c.Compile(ctx, `{"type":"string"}`, Limits{})
	b, err2 := c.Compile(ctx, `{"type":"string"}`, Limits{})
	if err != nil || err2 != nil || a == nil || a != b {
		t.Fatalf("one compile per distinct text: %p %p %v %v", a, b, err, err2)
	}
	// The resource validator compiles within the default limits only; a larger schema is left to the render.
	if err := CheckSchemaText(nested(2500)); err != nil {
		t.Fatalf("CheckSchemaText over the limit: %v", err)
	}
	if err := CheckSchemaText(`{"type": 5}`); err == nil {
		t.Fatal("CheckSchemaText accepted a schema that does not compile")
	}
}
