// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzSplitAndDecode checks that splitting never loses or invents text and that decoding never panics.
// A document that decodes cleanly must survive Marshal and Parse unchanged.
func FuzzSplitAndDecode(f *testing.F) {
	f.Add("a: 1\n---\nb: 2")
	f.Add("---\n# comment\n---\n")
	f.Add(av + "kind: ClusterType\nmetadata:\n  name: ct\n  labels: {size: large}\nspec:\n  reconciler: arc-flux\n  namespaceService: default\n")
	f.Add(av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n    - {name: t, environment: dev, manifests: {repo: r}, labels: {edge: yes}}\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  A: |\n    - x\n")
	f.Add(av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n      matchExpressions: [{key: a, operator: In, values: [b]}]\n  clusterTypeSelector: {}\n")
	f.Add("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")
	f.Add("kind: ClusterType\nkind: ClusterType\n")
	f.Add("metadata:\n\tname: x\n")
	f.Fuzz(func(t *testing.T, text string) {
		docs, splitDiags := SplitDocuments(0, text)
		if splitDiags.HasError() {
			if len(docs) != 0 {
				t.Fatalf("documents returned with a split error")
			}
			return
		}
		// Line numbers and verbatim text refer to the input as read, with CRLF as LF.
		text = strings.ReplaceAll(text, "\r\n", "\n")
		prev := -1
		for _, d := range docs {
			if d.Source.Document <= prev || d.Source.Line < 1 || d.Source.Input != 0 {
				t.Fatalf("bad source %+v after %d", d.Source, prev)
			}
			prev = d.Source.Document
			if !strings.Contains(text, d.Text) || isBlankDocument(d.Text) {
				t.Fatalf("document %q is not a non-blank part of the input", d.Text)
			}
			for _, ln := range strings.Split(d.Text, "\n") {
				if strings.HasPrefix(ln, "---") {
					t.Fatalf("document %q still holds a separator line", d.Text)
				}
			}
			// The document starts at its line.
			lines := strings.SplitAfter(text, "\n")
			if d.Source.Line-1 >= len(lines) || !strings.HasPrefix(strings.Join(lines[d.Source.Line-1:], ""), d.Text) {
				t.Fatalf("document %q does not start at line %d", d.Text, d.Source.Line)
			}
			e, diags := DecodeDocument(d)
			for _, dg := range diags {
				if dg.Summary == "" || dg.Source != d.Source {
					t.Fatalf("diagnostic without summary or source: %+v", dg)
				}
			}
			if e == nil || diags.HasError() {
				continue
			}
			out, err := Marshal(e.Object)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			set, diags := Parse([]string{out})
			if diags.HasError() {
				t.Fatalf("re-parse of\n%s\nfailed: %v", out, diags)
			}
			back := set.Objects()
			if len(back) != 1 {
				t.Fatalf("round trip gave %d objects", len(back))
			}
			// Compare canonical text: empty and absent lists are the same object.
			again, err := Marshal(back[0])
			if err != nil || again != out {
				t.Fatalf("round trip changed the object:\n%s\n%s", out, again)
			}
		}
	})
}

// separatorLine is the separator rule of SplitDocuments, for the differential below: a line that starts
// with `---` followed by nothing, whitespace or a `# comment`.
var separatorLine = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// FuzzSplitMatchesYAMLStream is a differential test of the splitter against yaml.v3's multi-document
// decoder: for any input that splits without error, the documents found equal the non-empty documents
// yaml.v3 reads from the same text after the same separator rule (each separator line written as a bare
// `---`). A document the splitter would silently lose, or two documents it would merge, is a failure; an
// input the splitter refuses must be refused with a diagnostic naming a line, never with documents.
func FuzzSplitMatchesYAMLStream(f *testing.F) {
	for _, s := range []string{
		"a: 1\n---\nb: 2\n", "a: 1\r\n---\r\nb: 2\r\n", "a: 1\n--- # c\nb: 2", "a: 1\n--- \nb: 2\n", "a: 1\n---\t\nb: 2",
		"a: 1\n...\nb: 2\n", "a: 1\r---\rb: 2", "a: 1\n--- !!map\nb: 2\n", "---\n---\n# c\n---\n", "a: |\n  ---\n  x\n",
		"a: 1\n\ufeff---\nb: 2\n", "a: 1\u2028---\u2028b: 2\n", "~\n---\nnull\n---\n''\n", "%YAML 1.2\n---\na: 1\n", "a: 1\n---#c\nb: 2\n",
		"- a\n---\n- b\n...\n", "a: &x 1\n---\nb: *x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		docs, diags := SplitDocuments(0, text)
		if diags.HasError() {
			if len(docs) != 0 {
				t.Fatalf("documents returned with a split error: %v", diags)
			}
			for _, d := range diags {
				if d.Summary == "" || d.Source.Line < 1 || d.Source.Input != 0 {
					t.Fatalf("split error without summary or line: %+v", d)
				}
			}
			return
		}
		normalized := separatorLine.ReplaceAllString(strings.ReplaceAll(text, "\r\n", "\n"), "---")
		want, err := CountYAMLDocuments(normalized)
		if err != nil {
			return // not YAML: the decoder reports it with the document's position
		}
		got := 0
		for _, d := range docs {
			n, err := CountYAMLDocuments(d.Text)
			if err != nil {
				// yaml.v3 reads the whole stream but not this part of it alone: then the document is
				// reported by the decoder, and counts as found.
				n = 1
			}
			if n > 1 {
				t.Fatalf("document %d at line %d holds %d YAML documents: %q", d.Source.Document, d.Source.Line, n, d.Text)
			}
			got += n
		}
		if got != want {
			t.Fatalf("splitter found %d non-empty documents, yaml.v3 reads %d from %q (split: %+v)", got, want, normalized, docs)
		}
	})
}
