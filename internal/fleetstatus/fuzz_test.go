// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMarkdownCell: any name, version or report description becomes one line of valid UTF-8 in a table
// cell: every pipe escaped, no tag, link or emphasis of its own, a backslash never left to escape what
// follows the cell, and at most 200 bytes of the input kept. In a code span there is no backtick to end it.
func FuzzMarkdownCell(f *testing.F) {
	for _, seed := range []string{"app", "a|b", "<script>", "[x](y)", "x\\", "\\|", "é", strings.Repeat("é", 150), "line\nbreak", "`x`", "\xff\xfe", strings.Repeat("|", 300)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []struct {
			name string
			out  string
		}{{"cell", cell(s)}, {"codeCell", codeCell(s)}} {
			out := c.out
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: invalid UTF-8", c.name, s, out)
			}
			if strings.ContainsAny(out, "\r\n") {
				t.Fatalf("%s(%q) = %q: a line break", c.name, s, out)
			}
			for i := 0; i < len(out); i++ {
				if out[i] == '|' && (i == 0 || out[i-1] != '\\') {
					t.Fatalf("%s(%q) = %q: an unescaped pipe at %d", c.name, s, out, i)
				}
			}
			kept := strings.TrimSuffix(out, "…")
			if c.name == "codeCell" {
				if strings.Contains(out, "`") {
					t.Fatalf("codeCell(%q) = %q: a backtick ends the code span", s, out)
				}
				continue
			}
			if strings.ContainsAny(out, "<>[]*_~`#!") {
				// Each of these must be escaped: preceded by a backslash that is not itself escaped.
				for i := 0; i < len(kept); i++ {
					if !strings.ContainsRune("[]*_~`#!", rune(kept[i])) {
						if kept[i] == '<' || kept[i] == '>' {
							t.Fatalf("cell(%q) = %q: a raw %q", s, out, kept[i])
						}
						continue
					}
					backslashes := 0
					for j := i - 1; j >= 0 && kept[j] == '\\'; j-- {
						backslashes++
					}
					if backslashes%2 == 0 {
						t.Fatalf("cell(%q) = %q: %q at %d is not escaped", s, out, kept[i], i)
					}
				}
			}
			// A trailing odd run of backslashes would escape whatever follows the cell.
			trailing := len(kept) - len(strings.TrimRight(kept, "\\"))
			if trailing%2 == 1 {
				t.Fatalf("cell(%q) = %q ends in an unescaped backslash", s, out)
			}
		}
	})
}
