// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"crypto/rand"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// A fleet's templates read a few fields of Data: a reconciler template the deployment target's name and
// manifests and the namespace, a config template the namespace and the platform config. Tens of
// thousands of assignments are then a few hundred distinct executions, and text/template's reflection
// was half of a render's CPU. ExecMemo executes each template once per distinct value of what it reads
// (readSet, found from the parse tree) and reuses the output.
//
// The namespace differs for every assignment (environment-clusterType-target), so a field that a template
// only prints, as it is or quoted, is not part of the key: the template runs once with a sentinel in its
// place, and the output is kept as the text between the sentinels. An assignment's output is that text
// with its own value put back, which is what executing the template on it gives when the value prints
// unchanged inside quotes (spliceable).
//
// What is not memoized, so that output and diagnostics stay exactly those of an execution:
//   - templates whose output may depend on more than the fields read (readSet.memo);
//   - a ConfigData that is not frozen (its identity is the key: a frozen map never changes);
//   - results that needed a second pass (output holding `{{`), which may read any field;
//   - errors, which are executed again on the assignment's own data so that they name it;
//   - results whose spliced output would pass the output limit or the value budget: executed again to
//     get the limit's own error.

// Memory bounds of one ExecMemo: past either, results are computed and not kept.
const (
	execMemoMaxEntries = 1 << 16
	execMemoMaxBytes   = 64 << 20
)

// ExecMemo holds the outputs of template executions by what the templates read. It is safe for
// concurrent use. Its keys hold maps (Labels, Manifests, ConfigData) by identity: whoever uses a memo
// promises not to modify the Labels and Manifests maps of the Data it executes on while the memo is in
// use, and ConfigData only counts when it is frozen (Data.ConfigFrozen).
type ExecMemo struct {
	// A map of its own type rather than a sync.Map: a memoKey boxed into an interface for every lookup
	// was an allocation and a slower hash, a tenth of a render's CPU.
	mu      sync.RWMutex
	entries map[memoKey]*memoEntry
	bytes   int64 // under mu

	// hits and misses count lookups, for tests.
	hits, misses atomic.Int64
}

// NewExecMemo returns an empty memo; use one per render.
func NewExecMemo() *ExecMemo { return &ExecMemo{entries: map[memoKey]*memoEntry{}} }

func (m *ExecMemo) load(key memoKey) (*memoEntry, bool) {
	m.mu.RLock()
	entry, ok := m.entries[key]
	m.mu.RUnlock()
	return entry, ok
}

// Stats returns the number of executions the memo answered and the number it did not.
func (m *ExecMemo) Stats() (hits, misses int64) { return m.hits.Load(), m.misses.Load() }

type memoKey struct {
	parsed *parseResult
	strs   [numStringFields]string
	// maps are Labels, Manifests and ConfigData by identity. The pointers keep the maps alive, so that
	// another map cannot take the address of one that is in a key.
	maps   [3]unsafe.Pointer
	frozen bool
}

type memoEntry struct {
	// parts are the texts between the spliced values: len(holes)+1 of them.
	parts []string
	holes []dataField
	// spent is the value budget the execution with sentinels used.
	spent int
	// none: the result is not memoized (it needed a second pass that cannot be); execute every time.
	none bool
	// For an output rendered again (rerenderedEntry): the fields the re-renders key on that the first
	// execution does not (requires, with their values), and every spliced field, whose values must be
	// spliceable (key checks those of the first execution only).
	requires fieldSet
	required [numStringFields]string
	spliced  fieldSet
}

// matches reports whether the entry holds data's output as far as the memo key does not say.
func (entry *memoEntry) matches(data *Data) bool {
	for f := dataField(0); int(f) < numStringFields; f++ {
		if entry.requires.has(f) && stringField(data, f) != entry.required[f] ||
			entry.spliced.has(f) && !spliceable(stringField(data, f)) {
			return false
		}
	}
	return true
}

// stringFieldSet holds the string fields of Data.
const stringFieldSet = fieldSet(1)<<numStringFields - 1

// rerenderedEntry memoizes an output that was rendered again, when every re-render took the cut path and
// reads only string fields (rereads): the whole execution is repeated with sentinels for the fields that
// the first execution splices (splice) and those the re-renders only print, and the entry requires the
// values of the fields that the re-renders key on. It returns nil when that cannot be.
func (e *Engine) rerenderedEntry(parsed *parseResult, data *Data, lim Limits, splice fieldSet, rereads readSet) *memoEntry {
	if !rereads.memo {
		// An actions part seen for the first time takes the whole parse (nested.go): look again.
		withSentinels := *data
		for f := dataField(0); int(f) < numStringFields; f++ {
			if splice.has(f) {
				*stringFieldOf(&withSentinels, f) = sentinels[f]
			}
		}
		_, info, err := e.executeParsed(parsed, &withSentinels, lim)
		if err != nil || !info.rerendered {
			return nil
		}
		rereads = info.rereads
	}
	if !rereads.memo || rereads.key&^stringFieldSet != 0 || rereads.splice&^stringFieldSet != 0 {
		return nil
	}
	all := splice | rereads.splice&^rereads.key&^parsed.reads.key
	if rereads.key&all != 0 {
		return nil // a re-render keys on a value that the first execution printed as a sentinel
	}
	withSentinels := *data
	for f := dataField(0); int(f) < numStringFields; f++ {
		if all.has(f) {
			if !spliceable(stringField(data, f)) {
				return nil
			}
			*stringFieldOf(&withSentinels, f) = sentinels[f]
		}
	}
	out, info, err := e.executeParsed(parsed, &withSentinels, lim)
	if err != nil || !info.rerendered || info.rereads != rereads {
		return nil
	}
	entry := split(out, all)
	entry.spent = info.spent
	entry.spliced = all
	entry.requires = rereads.key &^ parsed.reads.key
	for f := dataField(0); int(f) < numStringFields; f++ {
		if entry.requires.has(f) {
			entry.required[f] = stringField(data, f)
		}
	}
	return entry
}

// sentinels stand for the spliced fields in the execution that fills an entry. They are random, so that
// no template can write one on purpose; they are lowercase letters, so quoting leaves them alone; each
// starts with "kzq" and a letter of its own and goes on with letters a-p only, so no two occurrences can
// overlap.
var sentinels = func() [numStringFields]string {
	var out [numStringFields]string
	for f := range out {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		for i := range b {
			b[i] = 'a' + b[i]&15
		}
		copy(b, sentinelPrefix)
		b[3] = 'q' + byte(f)
		out[f] = string(b)
	}
	return out
}()

// sentinelPrefix starts every sentinel.
const sentinelPrefix = "kzq"

// spliceable reports whether s prints unchanged as it is and inside quotes (sprig's quote is %q), and
// cannot form `{{` with the text around it.
func spliceable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// stringField is the value of the string field f of d.
func stringField(d *Data, f dataField) string { return *stringFieldOf(d, f) }

// stringFieldOf is the string field f of d.
func stringFieldOf(d *Data, f dataField) *string {
	switch f {
	case fieldDeploymentTargetName:
		return &d.DeploymentTargetName
	case fieldNamespace:
		return &d.Namespace
	case fieldEnvironment:
		return &d.Environment
	case fieldWorkspace:
		return &d.Workspace
	case fieldWorkload:
		return &d.Workload
	case fieldClusterType:
		return &d.ClusterType
	}
	panic(fmt.Sprintf("not a string field: %d", f))
}

func stringMapIdentity(m map[string]string) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// Shape names the text of a memoized execution: the entry it was cut from and the length of each value
// put back into it. Two outputs of one Shape differ only in the values spliced into them, each a
// MaskableName of the same length in both, so a check that does not tell such names apart gives both the same verdict
// (the YAML check: see internal/render's yamlcheck_memo.go). The zero Shape names no such text.
type Shape struct {
	entry *memoEntry
	lens  [numStringFields]int32
}

// IsZero reports whether s names no text.
func (s Shape) IsZero() bool { return s.entry == nil }

// EntryID names the texts of every Shape cut from one memo entry, whatever the lengths of their values.
type EntryID struct{ entry *memoEntry }

// Entry returns the EntryID of s.
func (s Shape) Entry() EntryID { return EntryID{s.entry} }

// Skeleton is a text of s's entry, with a sentinel (lowercase letters) for each spliced value, and the
// byte ranges of the sentinels in it. The texts of the entry differ from it only in those ranges, each of
// which holds a MaskableName in them.
func (s Shape) Skeleton() (string, [][2]int) {
	if s.entry == nil {
		return "", nil
	}
	var b strings.Builder
	holes := make([][2]int, 0, len(s.entry.holes))
	for k, f := range s.entry.holes {
		b.WriteString(s.entry.parts[k])
		holes = append(holes, [2]int{b.Len(), b.Len() + len(sentinels[f])})
		b.WriteString(sentinels[f])
	}
	b.WriteString(s.entry.parts[len(s.entry.parts)-1])
	return b.String(), holes
}

// Holes appends to spans the byte ranges [from, to) of the spliced values in every text of s: the rest
// of such a text is the same in all of them.
func (s Shape) Holes(spans [][2]int) [][2]int {
	if s.entry == nil {
		return spans
	}
	at := 0
	for k, f := range s.entry.holes {
		at += len(s.entry.parts[k])
		spans = append(spans, [2]int{at, at + int(s.lens[f])})
		at += int(s.lens[f])
	}
	return spans
}

// ExecuteAllMemo is ExecuteAllLimited with each execution looked up in memo first (nil: none). shapes
// has one Shape per output, the zero one for an output that has none.
func (e *Engine) ExecuteAllMemo(memo *ExecMemo, manifests []string, data *Data, lim Limits) (out []string, shapes []Shape, err error) {
	out = make([]string, 0, len(manifests))
	shapes = make([]Shape, 0, len(manifests))
	for i, m := range manifests {
		r, shape, err := e.executeMemo(memo, m, data, lim)
		if err != nil {
			return nil, nil, fmt.Errorf("manifests[%d]: %w", i, err)
		}
		if r != "" {
			out = append(out, r)
			shapes = append(shapes, shape)
		}
	}
	return out, shapes, nil
}

// ExecuteMemo is ExecuteLimited through memo (nil: none), for one text whose output is kept even when
// empty: the Templates in the format before March 2023 execute each string value of their objects so.
func (e *Engine) ExecuteMemo(memo *ExecMemo, text string, data *Data, lim Limits) (string, error) {
	out, _, err := e.executeMemo(memo, text, data, lim)
	return out, err
}

// executeMemo is ExecuteLimited through memo.
func (e *Engine) executeMemo(memo *ExecMemo, text string, data *Data, lim Limits) (string, Shape, error) {
	parsed := e.parse(text)
	key, ok := memo.key(parsed, data, lim)
	if !ok {
		out, _, err := e.executeParsed(parsed, data, lim)
		return out, Shape{}, err
	}
	if entry, hit := memo.load(key); hit {
		if !entry.none && entry.matches(data) {
			if out, ok := entry.output(data, lim); ok {
				memo.hits.Add(1)
				return out, entry.shape(data), nil
			}
		}
		memo.misses.Add(1)
		out, _, err := e.executeParsed(parsed, data, lim)
		return out, Shape{}, err
	}
	memo.misses.Add(1)
	splice := parsed.reads.splice
	if splice == 0 {
		out, info, err := e.executeParsed(parsed, data, lim)
		if err != nil {
			return out, Shape{}, err
		}
		entry := &memoEntry{parts: []string{out}, spent: info.spent, none: info.rerendered}
		if info.rerendered {
			if rerendered := e.rerenderedEntry(parsed, data, lim, 0, info.rereads); rerendered != nil {
				entry = rerendered
			}
		}
		memo.store(key, entry)
		if entry.none {
			return out, Shape{}, nil
		}
		return out, entry.shape(data), nil
	}
	withSentinels := *data
	for f := dataField(0); int(f) < numStringFields; f++ {
		if splice.has(f) {
			*stringFieldOf(&withSentinels, f) = sentinels[f]
		}
	}
	out, info, err := e.executeParsed(parsed, &withSentinels, lim)
	var le *LimitError
	switch {
	case err != nil && errors.As(err, &le) && (le.Kind == LimitCanceled || le.Kind == LimitDeadline):
		return "", Shape{}, err // what a second execution would most likely meet too, only later
	case err != nil:
		// Executed again on the assignment's own values: the error may name them, and a limit met with
		// the sentinels may not be met with the real values.
		out, _, err := e.executeParsed(parsed, data, lim)
		return out, Shape{}, err
	case info.rerendered:
		entry := e.rerenderedEntry(parsed, data, lim, splice, info.rereads)
		if entry == nil {
			memo.store(key, &memoEntry{none: true})
			out, _, err := e.executeParsed(parsed, data, lim)
			return out, Shape{}, err
		}
		memo.store(key, entry)
		if spliced, ok := entry.output(data, lim); ok {
			return spliced, entry.shape(data), nil
		}
		out, _, err := e.executeParsed(parsed, data, lim)
		return out, Shape{}, err
	}
	entry := split(out, splice)
	entry.spent = info.spent
	memo.store(key, entry)
	if spliced, ok := entry.output(data, lim); ok {
		return spliced, entry.shape(data), nil
	}
	out, _, err = e.executeParsed(parsed, data, lim)
	return out, Shape{}, err
}

// shape is the Shape of the entry's output for data, or the zero one when a value put back is not a
// MaskableName.
func (entry *memoEntry) shape(data *Data) Shape {
	s := Shape{entry: entry}
	for _, f := range entry.holes {
		v := stringField(data, f)
		if !MaskableName(v) {
			return Shape{}
		}
		s.lens[f] = int32(len(v)) //nolint:gosec // a spliced value fits the output limit, far below 2 GiB
	}
	return s
}

// MaskableName reports whether s is made of lowercase letters, digits, '-' and '.', starts with a letter
// and ends with a letter or digit. A Shape holds only such values, and the render's YAML check masks them
// with letters. A DNS-1123 label may start with a digit too, but a digit can change what the text around
// it means to YAML (`>1` is a block scalar with an indentation indicator, `>x` is an error), so such a
// name is not masked (found by FuzzYAMLMaskKeepsVerdict).
func MaskableName(s string) bool {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	if s == "" || s[0] < 'a' || s[0] > 'z' || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// key is the memo key of executing parsed on data, or false when that execution is not memoized.
func (m *ExecMemo) key(parsed *parseResult, data *Data, lim Limits) (memoKey, bool) {
	if m == nil || parsed.err != nil || !parsed.reads.memo {
		return memoKey{}, false
	}
	// A canceled or expired execution fails at once; it is left to do so.
	if lim.Context != nil && lim.Context.Err() != nil || !lim.Deadline.IsZero() && time.Now().After(lim.Deadline) {
		return memoKey{}, false
	}
	rs := parsed.reads
	key := memoKey{parsed: parsed}
	for f := dataField(0); int(f) < numStringFields; f++ {
		switch {
		case rs.key.has(f):
			key.strs[f] = stringField(data, f)
		case rs.splice.has(f) && !spliceable(stringField(data, f)):
			return memoKey{}, false
		}
	}
	if rs.key.has(fieldLabels) {
		key.maps[0] = stringMapIdentity(data.Labels)
	}
	if rs.key.has(fieldManifests) {
		key.maps[1] = stringMapIdentity(data.Manifests)
	}
	if rs.key.has(fieldConfigData) {
		if !data.ConfigFrozen || data.configOwned {
			return memoKey{}, false
		}
		key.maps[2] = mapIdentity(data.ConfigData)
	}
	if rs.key.has(fieldConfigFrozen) {
		key.frozen = data.ConfigFrozen
	}
	return key, true
}

// store keeps entry under key while the memo is within its bounds.
func (m *ExecMemo) store(key memoKey, entry *memoEntry) {
	size := int64(0)
	for _, p := range entry.parts {
		size += int64(len(p))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) >= execMemoMaxEntries || m.bytes+size > execMemoMaxBytes {
		return
	}
	m.bytes += size
	m.entries[key] = entry
}

// split cuts the output of an execution with sentinels into the texts between them.
func split(out string, splice fieldSet) *memoEntry {
	type hole struct {
		at int
		f  dataField
	}
	var holes []hole
	for f := dataField(0); int(f) < numStringFields; f++ {
		if !splice.has(f) {
			continue
		}
		s := sentinels[f]
		for from := 0; ; {
			i := strings.Index(out[from:], s)
			if i < 0 {
				break
			}
			holes = append(holes, hole{from + i, f})
			from += i + len(s)
		}
	}
	sort.Slice(holes, func(a, b int) bool { return holes[a].at < holes[b].at })
	entry := &memoEntry{parts: make([]string, 0, len(holes)+1), holes: make([]dataField, 0, len(holes))}
	at := 0
	for _, h := range holes {
		entry.parts = append(entry.parts, out[at:h.at])
		entry.holes = append(entry.holes, h.f)
		at = h.at + len(sentinels[h.f])
	}
	entry.parts = append(entry.parts, out[at:])
	return entry
}

// output is the entry's text with data's values in the holes; ok is false when executing the template
// on data would meet the output limit or the value budget, which an execution must then report.
func (entry *memoEntry) output(data *Data, lim Limits) (string, bool) {
	limit := lim.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	n, grow := 0, 0
	for _, p := range entry.parts {
		n += len(p)
	}
	for _, f := range entry.holes {
		v := stringField(data, f)
		n += len(v)
		// Each spliced value that is quoted charges its quoted text to the value budget; the sentinel's
		// was charged. Counting every hole bounds what the real values charge.
		grow += max(0, len(v)-len(sentinels[f]))
	}
	if n > limit || entry.spent+grow > ValueBudgetFactor*limit {
		return "", false
	}
	if len(entry.holes) == 0 {
		return entry.parts[0], true
	}
	var b strings.Builder
	b.Grow(n)
	for i, f := range entry.holes {
		b.WriteString(entry.parts[i])
		b.WriteString(stringField(data, f))
	}
	b.WriteString(entry.parts[len(entry.parts)-1])
	return b.String(), true
}
