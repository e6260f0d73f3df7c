// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
)

// Parsing every rendered manifest as YAML costs more than rendering it (at 100k assignments, about
// 15 s of CPU for 180 MB of text). But the manifests of a fleet repeat with only the assignment's names
// changed: the same template, config and labels on another cluster type or target. So the check is
// memoized on the text with those names masked.
//
// Masking keeps the verdict: a name here is a DNS-1123 subdomain (lowercase letters, digits, '-' and
// '.', starting and ending with a letter or digit) and is replaced by as many 'x's. Inside a YAML token
// such characters are all ordinary, no indentation or column changes, and no indicator (`- `, `: `,
// ` #`, `---`, `...`) can appear or vanish, so the masked text parses exactly when the original does.
// Only valid verdicts are shared; an invalid text is parsed again for its own error message. Texts with
// anchors or directives bypass the memo: masking could make an alias name match an anchor it did not.

// yamlMemoLimit bounds the memo of one render.
const yamlMemoLimit = 1 << 16

type yamlChecker struct {
	valid sync.Map // masked text → struct{}
	size  atomic.Int64
}

// invalid returns the first YAML syntax error of text, or nil; names are the assignment's names.
func (c *yamlChecker) invalid(text string, names ...string) error {
	if strings.Contains(text, "&") || strings.HasPrefix(text, "%") || strings.Contains(text, "\n%") {
		return invalidYAML(text)
	}
	masked := maskNames(text, names)
	if _, ok := c.valid.Load(masked); ok {
		return nil
	}
	if err := invalidYAML(text); err != nil {
		return err
	}
	if c.size.Add(1) <= yamlMemoLimit {
		c.valid.Store(masked, struct{}{})
	}
	return nil
}

// maskNames replaces every occurrence of each DNS-1123 name, in order, by 'x's of the same length.
// Each replacement keeps the verdict on its own, so the order only matters for how often the memo hits:
// put a name before the names it contains (the namespace before the target's).
func maskNames(text string, names []string) string {
	var buf []byte
	for _, n := range names {
		if !isMaskableName(n) {
			continue
		}
		if buf == nil {
			if !strings.Contains(text, n) {
				continue
			}
			buf = []byte(text)
		}
		for from := 0; ; {
			i := bytes.Index(buf[from:], []byte(n))
			if i < 0 {
				break
			}
			i += from
			for k := i; k < i+len(n); k++ {
				buf[k] = 'x'
			}
			from = i + len(n)
		}
	}
	if buf == nil {
		return text
	}
	return string(buf)
}

func isMaskableName(n string) bool {
	if n == "" || !isAlnum(n[0]) || !isAlnum(n[len(n)-1]) {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !isAlnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
