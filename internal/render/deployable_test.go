// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// dns1123LabelErrors recognises valid labels without apimachinery's regular expression; it must agree
// with validation.IsDNS1123Label on every string.
func TestDNS1123LabelErrorsAgreesWithApimachinery(t *testing.T) {
	t.Parallel()
	cases := []string{"", "a", "-", "a-", "-a", "a-b", "A", "a.b", "a_b", "0", "dev-eastus-large-0001-web-0001-canary",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "a\n", "é", "a b"}
	rng := rand.New(rand.NewSource(23))
	const alphabet = "az09-.A_ "
	for i := 0; i < 5000; i++ {
		b := make([]byte, rng.Intn(70))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		got, want := dns1123LabelErrors(c), validation.IsDNS1123Label(c)
		if (len(got) == 0) != (len(want) == 0) || !slices.Equal(got, want) {
			t.Fatalf("dns1123LabelErrors(%q) = %q, apimachinery says %q", c, got, want)
		}
	}
}
