// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"testing"
)

// The memo must give the same verdict as parsing each text: masking names may only merge texts that
// are equally valid.
func TestYAMLCheckerAgreesWithParsing(t *testing.T) {
	t.Parallel()
	names := []string{"dev-small-0001-web-0001-canary", "web-0001-canary", "small-0001", "web-0001", "dev"}
	other := []string{"dev-large-0002-api-0002-blue", "api-0002-blue", "large-0002", "api-0002", "dev"}
	texts := []string{
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev-small-0001-web-0001-canary\n  labels:\n    workload: web-0001\n",
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev-large-0002-api-0002-blue\n  labels:\n    workload: api-0002\n",
		"key: [small-0001, web-0001\n",               // unterminated flow sequence
		"a: b: small-0001\n",                         // mapping value in a plain scalar
		"list:\n- small-0001\n-web-0001\n",           // not a sequence entry: a scalar continuing nothing
		"small-0001: x\nsmall-0001: y\n",             // duplicate keys parse as a node
		"---\nweb-0001: 1\n...\n---\nx: \"a\\qb\"\n", // bad escape in the second document
		"name: web-0001 #comment\n",
		"text: |\n  web-0001\n small-0001\n", // dedent ends the block scalar: invalid
		"a: &web-0001 1\nb: *api-0002\n",     // valid only where the alias names the anchor
		"a: &web-0001 1\nb: *web-0001\n",
	}
	checker := &yamlChecker{}
	for round := 0; round < 2; round++ { // the second round is served from the memo
		for i, text := range texts {
			for _, ns := range [][]string{names, other} {
				got := checker.invalid(text, ns...) == nil
				want := invalidYAML(text) == nil
				if got != want {
					t.Errorf("round %d, text %d with names %v: valid=%v, parsing says %v", round, i, ns[0], got, want)
				}
			}
		}
	}
}

func TestNameSpansMaskEveryOccurrence(t *testing.T) {
	t.Parallel()
	text := "ns: dev-ct-1-web-1\nct: ct-1\nweb: web-1\nupper: Web-1\nglued: web-1ct-1"
	spans := nameSpans(text, []string{"dev-ct-1-web-1", "web-1", "ct-1", "Not_DNS", ""}, nil)
	want := "ns: xxxxxxxxxxxxxx\nct: xxxx\nweb: xxxxx\nupper: Web-1\nglued: xxxxxxxxx"
	if got := applySpans(text, spans); got != want {
		t.Errorf("masked = %q, want %q", got, want)
	}
	if hashMasked(text, spans) != hashMasked(want, nil) {
		t.Errorf("the hash of the masked text differs from the hash of the text with the names replaced")
	}
	if hashMasked(text, spans) == hashMasked(text, nil) {
		t.Errorf("masking did not change the hash")
	}
	// Only the names differ: the two texts share one memo key.
	other := "ns: dev-ab-9-api-9\nct: ab-9\nweb: api-9\nupper: Web-1\nglued: api-9ab-9"
	if hashMasked(text, spans) != hashMasked(other, nameSpans(other, []string{"dev-ab-9-api-9", "api-9", "ab-9"}, nil)) {
		t.Errorf("texts that differ only in names have different keys")
	}
}

// applySpans replaces every span of text by as many 'x's.
func applySpans(text string, spans []span) string {
	b := []byte(text)
	for _, s := range spans {
		for i := s.from; i < s.to; i++ {
			b[i] = 'x'
		}
	}
	return string(b)
}
