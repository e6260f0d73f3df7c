// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"strings"
	"sync"
	"unsafe"
)

// Kalypso's config template ends in `{{ toYaml .ConfigData | indent 2 }}`. toYaml of a shared config
// returns the same string to every assignment that shares it (frozen.go), and sprig's indent then
// built two new copies of it for each of them: at 86k assignments a third of a render's allocations and
// a twentieth of its CPU. indent and nindent are memoized by the identity of their input instead.
//
// A Go string's bytes never change, so a string with the same data pointer and length has the same
// content; each entry holds its input, so that the pointer cannot be reused by another string while the
// entry exists. Short inputs are not worth an entry.

// indentMemoMin is the shortest input that is memoized.
const indentMemoMin = 256

// indentMemoLimit bounds the memo; when it is full, it starts again empty.
const indentMemoLimit = 1 << 12

type indentKey struct {
	data    *byte
	size    int
	spaces  int
	newline bool
}

type indentEntry struct {
	input, output string
}

// indentMemo is the memo of one Engine (memos).
type indentMemo struct {
	sync.RWMutex
	entries map[indentKey]indentEntry
}

// Indent is sprig's indent: every line of v, prefixed by spaces spaces. Templates call it through their
// Engine's memo (memos.indentFunc).
func Indent(spaces int, v string) string {
	return indent(spaces, v, false)
}

// Nindent is sprig's nindent: Indent after a newline.
func Nindent(spaces int, v string) string {
	return indent(spaces, v, true)
}

// indented is indent, memoized for inputs of at least indentMemoMin bytes.
func (m *indentMemo) indented(spaces int, v string, newline bool) string {
	if len(v) < indentMemoMin {
		return indent(spaces, v, newline)
	}
	key := indentKey{data: unsafe.StringData(v), size: len(v), spaces: spaces, newline: newline}
	m.RLock()
	e, ok := m.entries[key]
	m.RUnlock()
	if ok {
		return e.output
	}
	out := indent(spaces, v, newline)
	m.Lock()
	if len(m.entries) >= indentMemoLimit {
		m.entries = map[indentKey]indentEntry{}
	}
	m.entries[key] = indentEntry{input: v, output: out}
	m.Unlock()
	return out
}

// indent is sprig v3's indent and nindent, expression for expression: a negative count panics in
// strings.Repeat, which Execute reports as an error, as it does for sprig's.
func indent(spaces int, v string, newline bool) string {
	pad := strings.Repeat(" ", spaces)
	out := pad + strings.ReplaceAll(v, "\n", "\n"+pad)
	if newline {
		return "\n" + out
	}
	return out
}
