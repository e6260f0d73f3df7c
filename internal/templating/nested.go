// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"strings"
	"sync"
	"text/template/parse"
)

// Output that still holds `{{` is executed again (executeParsed). A config value such as
// `Hello {{ .ClusterType }}` makes every assignment's output hold actions, and the output differs per
// assignment (namespace, names), so parsing it whole cost a parse and a function map per assignment, 60 %
// of the CPU of such a fleet. But the actions are usually the same text: only what surrounds them differs.
//
// So the output is cut into three: the text before the first `{{` (prefix), the text from it to the end
// of the last `}}` (actions), and the rest (suffix). text/template lexes the prefix and the suffix as
// plain text (neither holds `{{`), so executing the whole output writes the prefix, executes the actions,
// then writes the suffix, with a trim marker on the first or last action trimming the prefix's trailing
// or the suffix's leading white space. The actions part is parsed once per distinct text and its parse
// reused, with the clones and bound functions that the manifests' own parses use.
//
// What goes the way it went before (a parse of the whole output): an actions part seen for the first
// time (output that never repeats costs no more than it did), one that defines templates or holds a
// comment (where its last action ends is then not plain), one that does not parse, and an execution that
// fails with an error other than a limit's (its message names a line and column of the whole output).

// nestedCacheLimit bounds the parses of actions parts an Engine keeps; past it the cache starts again.
const nestedCacheLimit = 4096

// nestedParses is an Engine's cache of actions parts: nil for a text seen once.
type nestedParses struct {
	mu      sync.RWMutex
	entries map[string]*nestedParse
}

type nestedParse struct {
	parsed *parseResult
	// reads is what the actions read (parsed.reads), with memo false when they hold text that could be
	// a sentinel (an execution with sentinels must see them only in the text around the actions).
	reads readSet
	// trimsSuffix: the last action ends with ` -}}`, which trims the white space after it.
	trimsSuffix bool
}

// spaceChars are the characters a trim marker removes, as text/template's lexer defines them.
const spaceChars = " \t\r\n"

// splitActions cuts text into prefix, actions and suffix, or reports false when text has no action.
func splitActions(text string) (prefix, actions, suffix string, ok bool) {
	start := strings.Index(text, "{{")
	end := strings.LastIndex(text, "}}") + len("}}")
	// The suffix must hold no `{{` either (`{{0}}{{`): text/template would lex it as an action.
	if start < 0 || end < start+len("{{}}") || strings.Contains(text[end:], "{{") {
		return "", "", "", false
	}
	return text[:start], text[start:end], text[end:], true
}

// lookup returns the parse of actions when it was seen before, recording it as seen otherwise.
func (c *nestedParses) lookup(actions string) *nestedParse {
	c.mu.RLock()
	got, seen := c.entries[actions]
	c.mu.RUnlock()
	if got != nil {
		return got
	}
	if !seen {
		c.store(actions, nil)
		return nil
	}
	got = &nestedParse{parsed: &parseResult{}}
	t, err := parseTemplate(actions)
	if err != nil || len(t.Templates()) != 1 || strings.Contains(actions, "/*") || len(t.Root.Nodes) < 2 {
		// Not cut-able (see above): remembered, so that it is not parsed again on this path.
		got.parsed = nil
	} else {
		got.parsed.tmpl = t
		got.parsed.modifies = mayModify(t)
		got.reads = analyseReads(t)
		if strings.Contains(actions, sentinelPrefix) {
			got.reads.memo = false
		}
		if _, text := t.Root.Nodes[len(t.Root.Nodes)-1].(*parse.TextNode); !text {
			got.trimsSuffix = strings.HasSuffix(actions, "-}}") && strings.ContainsRune(spaceChars, rune(actions[len(actions)-4]))
		}
	}
	c.store(actions, got)
	return got
}

func (c *nestedParses) store(actions string, p *nestedParse) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= nestedCacheLimit {
		c.entries = map[string]*nestedParse{}
	}
	c.entries[actions] = p
	c.mu.Unlock()
}

// rerenderCut executes text (output holding `{{`) through the cache of actions parts, within st. It
// reports false, with st as it was, when text must be parsed whole instead. An error is a limit's. reads
// is what the actions read.
func (e *Engine) rerenderCut(text string, data *Data, st *execState) (string, bool, readSet, error) {
	prefix, actions, suffix, ok := splitActions(text)
	if !ok {
		return "", false, readSet{}, nil
	}
	cached := e.nested.lookup(actions)
	if cached == nil || cached.parsed == nil {
		return "", false, readSet{}, nil
	}
	if len(actions) > 4 && actions[2] == '-' && strings.IndexByte(spaceChars, actions[3]) >= 0 {
		prefix = strings.TrimRight(prefix, spaceChars)
	}
	if cached.trimsSuffix {
		suffix = strings.TrimLeft(suffix, spaceChars)
	}
	if cached.parsed.modifies {
		data.ownConfig()
	}
	bound := cached.parsed.get(e.memos)
	defer cached.parsed.put(bound)
	inner := bound.state
	// The re-render shares the first execution's limits and budget.
	inner.ctx, inner.done, inner.deadline, inner.max, inner.spent, inner.err = st.ctx, st.done, st.deadline, st.max, st.spent, nil
	out, err := runBetween(prefix, bound.tmpl, suffix, data, inner, len(text))
	if err != nil {
		if _, isLimit := AsLimitError(err); isLimit {
			st.spent, st.err = inner.spent, inner.err
			return "", true, readSet{}, err
		}
		return "", false, readSet{}, nil
	}
	st.spent = inner.spent
	return out, true, cached.reads, nil
}
