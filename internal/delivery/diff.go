// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds the line diff of one file; past it the rest is shown as removed and added, which is
// still correct, only less compact.
const diffTimeout = 2 * time.Second

const diffContext = 3

type diffLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// UnifiedDiff is the unified diff (3 lines of context, like git diff) turning before into after, with
// a/<name> and b/<name> headers. Equal inputs give "".
func UnifiedDiff(name, before, after string) string {
	if before == after {
		return ""
	}
	var lines []diffLine
	for _, d := range diff.DoWithTimeout(before, after, diffTimeout) {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range splitLines(d.Text) {
			lines = append(lines, diffLine{op: op, text: l})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	// Walk the lines and emit hunks around changed lines.
	oldNo, newNo := make([]int, len(lines)+1), make([]int, len(lines)+1)
	o, n := 1, 1
	for i, l := range lines {
		oldNo[i], newNo[i] = o, n
		if l.op != '+' {
			o++
		}
		if l.op != '-' {
			n++
		}
	}
	oldNo[len(lines)], newNo[len(lines)] = o, n
	for i := 0; i < len(lines); {
		if lines[i].op == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(lines) {
			if lines[end].op != ' ' {
				end++
				continue
			}
			// A run of context: the hunk ends unless another change follows within 2*context lines.
			j := end
			for j < len(lines) && lines[j].op == ' ' {
				j++
			}
			if j == len(lines) || j-end > 2*diffContext {
				end = min(end+diffContext, len(lines))
				break
			}
			end = j
		}
		oldCount, newCount := 0, 0
		for _, l := range lines[start:end] {
			if l.op != '+' {
				oldCount++
			}
			if l.op != '-' {
				newCount++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldNo[start], oldCount), hunkRange(newNo[start], newCount))
		for _, l := range lines[start:end] {
			b.WriteByte(l.op)
			b.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return b.String()
}

func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// splitLines splits s after each newline, keeping it; a last line without newline is kept as is.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
