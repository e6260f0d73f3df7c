// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import "testing"

func TestValidateKeepsNonFiniteNumbersAsStrings(t *testing.T) {
	t.Parallel()
	s, err := CompileSchema(`{"type":"object","properties":{"A":{"type":"string"},"B":{"type":"string"},"C":{"type":"number"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if v := Validate(s, map[string]interface{}{"A": "NaN", "B": "-Inf", "C": "1.5"}); v != nil {
		t.Fatalf("NaN and Inf must validate as strings and 1.5 as a number, got %+v", v)
	}
}
