// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
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
	spans := nameSpans(text, []string{"dev-ct-1-web-1", "web-1", "ct-1", "Not_DNS", ""})
	want := "ns: x\nct: x\nweb: x\nupper: Web-1\nglued: x" // every name here ends its line: masked by one 'x'
	if got := applySpans("k: web-1: v", nameSpans("k: web-1: v", []string{"web-1"})); got != "k: xxxxx: v" {
		t.Errorf("a name before a ':' on its line was masked as %q, want it masked by as many 'x's", got)
	}
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
	if hashMasked(text, spans) != hashMasked(other, nameSpans(other, []string{"dev-ab-9-api-9", "api-9", "ab-9"})) {
		t.Errorf("texts that differ only in names have different keys")
	}
}

// nameSpans is maskNames.spans for names prepared on the spot.
func nameSpans(text string, names []string) []span {
	m := newMaskNames(names)
	return m.spans(text, nil)
}

// applySpans writes text with every span masked as hashMasked reads it: one 'x' for a shortenable
// span, as many 'x's as it is long for any other.
func applySpans(text string, spans []span) string {
	var b strings.Builder
	at := 0
	for i, s := range spans {
		b.WriteString(text[at:s.from])
		n := s.to - s.from
		if i < 64 && shortenable(text, s.to) {
			n = 1
		}
		b.WriteString(strings.Repeat("x", n))
		at = s.to
	}
	b.WriteString(text[at:])
	return b.String()
}

// A name is masked by one 'x' only where the rest of its line is more of the same scalar.
func TestShortenable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		want bool
	}{
		{"name: NAME", true},
		{"name: NAME\r\nnext: 1", true},
		{"name: \"NAME\"  ", true},
		{"url: https://example.com/NAME-gitops.git", true},
		{"url: 'https://example.com/NAME_Gitops'", true},
		{"# NAME", true},
		{"NAME: value", false},          // a key: the ':' must come within 1024 characters of its start
		{"name: NAME # comment", false}, // a comment's column
		{"list: [NAME, other]", false},
		{"map: {k: NAME}", false},
		{"name: \"NAME\" tail", false},
		{"name: \"NAME\"\"", false},
		{"text: NAME\rkey: v", false}, // a lone CR ends the line for YAML
		{"name: NAME\t", false},
	} {
		to := strings.Index(c.line, "NAME") + len("NAME")
		if got := shortenable(c.line, to); got != c.want {
			t.Errorf("shortenable(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// yamlMaskSeeds are texts whose verdicts must survive masking: names of different lengths, names in
// keys, flow collections, comments, block scalars, quoted scalars and a key near the 1024-character limit.
var yamlMaskSeeds = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: dev-southeastasia-large-0029-search-0053-functional-test\ndata:\n  REGION: Southeast Asia\n",
	"spec:\n  url: \"https://github.com/kalypso-fleet/billing-0005-gitops\"\n  ref:\n    branch: \"dev\"\n",
	"- dev-ct-1\n- web-1: x\n  y: z\n",
	"dev-ct-1\n  - a\n",
	"key: dev-ct-1\n  - a\n",
	"web-1: x\nct-1: y\n",
	"a: [ct-1, web-1\n",
	"text: |\n  web-1\n ct-1\n",
	"name: web-1 # ct-1\n# dev-ct-1-web-1\n",
	"name: 'web-1''s'\n",
	strings.Repeat("k", 1015) + "ct-1-long: v\n",
	"? dev-ct-1\n: web-1\n",
	"---\nweb-1\n...\nct-1: 1\n",
}

// FuzzYAMLMaskKeepsVerdict checks the memo's premise: a text parses exactly when its masked text does,
// and the memo's key is the hash of that masked text. Texts with anchors or directives bypass the memo.
func FuzzYAMLMaskKeepsVerdict(f *testing.F) {
	for _, s := range yamlMaskSeeds {
		f.Add(s, "ct-1", "web-1")
		f.Add(s, "dev-southeastasia-large-0029-search-0053-functional-test", "billing-0005")
		f.Add(s, "web-1-ct-1", "web-1")
	}
	f.Fuzz(func(t *testing.T, text, name1, name2 string) {
		if strings.Contains(text, "&") || strings.HasPrefix(text, "%") || strings.Contains(text, "\n%") {
			return
		}
		spans := nameSpans(text, []string{name1, name2})
		if want := nameSpansOneByOne(text, []string{name1, name2}); !reflect.DeepEqual(spans, want) {
			t.Fatalf("spans of %q in %q: %v, searching each name on its own %v", []string{name1, name2}, text, spans, want)
		}
		masked := applySpans(text, spans)
		if hashMasked(text, spans) != hashMasked(masked, nil) {
			t.Fatalf("the memo key of %q is not the hash of its masked text %q", text, masked)
		}
		if a, b := invalidYAML(text), invalidYAML(masked); (a == nil) != (b == nil) {
			t.Fatalf("text %q: %v; masked %q: %v", text, a, masked, b)
		}
	})
}

// nameSpansOneByOne is nameSpans searching for every name on its own, as it did before names that
// extend another were found with it.
func nameSpansOneByOne(text string, names []string) []span {
	var spans []span
	for _, n := range names {
		if !isMaskableName(n) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], n)
			if i < 0 {
				break
			}
			spans = append(spans, span{from + i, from + i + len(n)})
			from += i + len(n)
		}
	}
	return mergeSpans(spans)
}

// A target named after its workload is found while searching for the workload; the spans are those of
// searching for each name on its own, also where a name overlaps itself or extends several others.
func TestNameSpansOfNamesThatExtendAnother(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text  string
		names []string
	}{
		{"ns: dev-ct-1-web-1-canary\nt: web-1-canary\nw: web-1\nx: web-1-canar", []string{"web-1-canary", "ct-1", "web-1"}},
		{"ababa-x aba-x abab abababa-x-y", []string{"aba-x", "aba", "aba-x-y"}},
		{"aaaa-a aa-aa a", []string{"aa-a", "a", "aa", "Not_DNS"}},
		{"aaaa-a aa-aa a", []string{"aa-a", "a", "aa", "Not_DNS", ""}}, // more names than nameSpans carries
		{"web-1 web-1", []string{"web-1", "web-1"}},
		{"no names here", []string{"web-1-x", "web-1"}},
	} {
		if got, want := nameSpans(c.text, c.names), nameSpansOneByOne(c.text, c.names); !reflect.DeepEqual(got, want) {
			t.Errorf("spans of %q in %q: %v, want %v", c.names, c.text, got, want)
		}
	}
}

// The one-scan searches of the checks' filters answer as the searches they replace.
var filterSeeds = []string{
	"", "%", "%YAML 1.1\n---\na: b\n", "a: b\n%x", "a: 50%\n", "a: b\n %x\n", "\n%", "a\r%b",
	"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n", "apiVersion: argoproj.io/v1alpha1\n",
	"url: https://fluxcd.io\n", "a: fluxcd.io /x\n", "a: xfluxcd.io/\n", "/fluxcd.io/", "argoproj.io/", "argoproj.i/o/", "a/b/c/fluxcd.io",
	"a: xsource.toolkit.fluxcd.io/\n", "kustomize.toolkit.fluxcd.io/v1", "source.toolkit.fluxcd.i/o", "apiVersion: helm.toolkit.fluxcd.io/v2\n",
}

func checkFilters(t *testing.T, text string) {
	t.Helper()
	if got, want := lineStartsWith(text, '%'), strings.HasPrefix(text, "%") || strings.Contains(text, "\n%"); got != want {
		t.Errorf("lineStartsWith(%q) = %v, want %v", text, got, want)
	}
	want := false
	for _, g := range builtins.groups {
		want = want || strings.Contains(text, g+"/")
	}
	if got := mentionsReconcilerGroup(text); got != want {
		t.Errorf("mentionsReconcilerGroup(%q) = %v, want %v", text, got, want)
	}
}

func TestCheckFiltersMatchTheirSearches(t *testing.T) {
	t.Parallel()
	for _, s := range append(filterSeeds, yamlMaskSeeds...) {
		checkFilters(t, s)
	}
}

func FuzzCheckFilters(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add(s)
	}
	f.Fuzz(checkFilters)
}
