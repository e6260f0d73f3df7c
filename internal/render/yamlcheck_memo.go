// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
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
//
// Masking by as many 'x's still gives texts whose names differ in length different keys, and at 86k
// assignments a namespace's length varies with its cluster type and target: one text in forty missed
// the memo and was parsed. So a name after which its line holds nothing but more characters of the same
// scalar (see shortenable) is masked by one 'x' instead. Its length then cannot matter: the parser
// measures lengths and columns only where a token starts (block indentation, a `- `, `? ` or `: `
// indicator, a simple key and its `:` within 1024 characters on one line); no token starts in the rest
// of that line, every later line keeps its own indentation, and a shorter scalar changes no character
// class around it. (Comments are placed by column, but where a comment goes never makes a text invalid.)

// yamlMemoLimit bounds the memo of one render.
const yamlMemoLimit = 1 << 16

// The memo is keyed by a 128-bit hash of the masked text rather than the text itself: building a masked
// copy of every manifest allocated as much as rendering it. A collision could only hide a warning.
var maskSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

type yamlChecker struct {
	valid sync.Map // maskedKey → struct{}
	size  atomic.Int64
	// validShapes are the output Shapes of texts found valid (shapeKey): a text of one of them is valid
	// too. Not a sync.Map: boxing each key into an interface to look it up allocated.
	shapesMu    sync.RWMutex
	validShapes map[shapeKey]struct{}
	short       map[templating.EntryID]bool // every name of the entry's texts is shortenable
	noShapes    bool                        // every text is checked (a test compares the verdicts)
}

// shapeKey names the texts that share a verdict. Texts of one Shape differ only in names of the same
// lengths, which masking makes alike. When every name of an entry's texts is shortenable (the rest of
// its line is more of the same scalar; the skeleton tells, as the characters of the names are all
// allowed there), masking makes all of the entry's texts alike, whatever the lengths: shape is zero then.
type shapeKey struct {
	entry templating.EntryID
	shape templating.Shape
}

// key returns the shapeKey of texts of shape; c.shapesMu is held for reading.
func (c *yamlChecker) key(shape templating.Shape) (shapeKey, bool) {
	id := shape.Entry()
	short, known := c.short[id]
	if !known {
		return shapeKey{}, false
	}
	if short {
		return shapeKey{entry: id}, true
	}
	return shapeKey{entry: id, shape: shape}, true
}

// learn works out whether every name of shape's entry is shortenable.
func (c *yamlChecker) learn(shape templating.Shape) {
	skeleton, holes := shape.Skeleton()
	short := true
	for _, h := range holes {
		short = short && shortenable(skeleton, h[1])
	}
	c.shapesMu.Lock()
	if c.short == nil {
		c.short = map[templating.EntryID]bool{}
	}
	if len(c.short) < yamlMemoLimit {
		c.short[shape.Entry()] = short
	}
	c.shapesMu.Unlock()
}

// validShape reports whether texts of shape were found valid.
func (c *yamlChecker) validShape(shape templating.Shape) bool {
	if shape.IsZero() || c.noShapes {
		return false
	}
	c.shapesMu.RLock()
	k, known := c.key(shape)
	_, ok := c.validShapes[k]
	c.shapesMu.RUnlock()
	return known && ok
}

// storeShape records that text, of shape, is valid. Not for texts with anchors or directives, which
// invalid does not memoize either: a spliced name could be an alias that an anchor of the text defines
// for one value and not for another.
func (c *yamlChecker) storeShape(shape templating.Shape, text string) {
	if shape.IsZero() || c.noShapes || unmaskable(text) {
		return
	}
	c.shapesMu.RLock()
	_, known := c.key(shape)
	c.shapesMu.RUnlock()
	if !known {
		c.learn(shape)
	}
	c.shapesMu.Lock()
	defer c.shapesMu.Unlock()
	k, known := c.key(shape)
	if !known {
		return // the entries' table is full
	}
	if c.validShapes == nil {
		c.validShapes = map[shapeKey]struct{}{}
	}
	if len(c.validShapes) < yamlMemoLimit {
		c.validShapes[k] = struct{}{}
	}
}

type maskedKey [2]uint64

// invalidMasked is invalid with the assignment's names analysed once for all of its texts.
func (c *yamlChecker) invalidMasked(text string, names *maskNames) error {
	if unmaskable(text) {
		return invalidYAML(text)
	}
	var buf [16]span
	key := hashMasked(text, names.spans(text, buf[:0]))
	if _, ok := c.valid.Load(key); ok {
		return nil
	}
	if err := invalidYAML(text); err != nil {
		return err
	}
	if c.size.Add(1) <= yamlMemoLimit {
		c.valid.Store(key, struct{}{})
	}
	return nil
}

// unmaskable reports whether text has anchors or directives, whose verdict is not shared.
func unmaskable(text string) bool {
	return strings.IndexByte(text, '&') >= 0 || lineStartsWith(text, '%')
}

// lineStartsWith reports whether a line of text starts with c: strings.HasPrefix(text, "%") ||
// strings.Contains(text, "\n%") for c '%'. That search looked for each line break and cost more than
// the rest of the check's scans together; c is rare in a manifest.
func lineStartsWith(text string, c byte) bool {
	for from := 0; ; {
		i := strings.IndexByte(text[from:], c)
		if i < 0 {
			return false
		}
		if at := from + i; at == 0 || text[at-1] == '\n' {
			return true
		}
		from += i + 1
	}
}

// span is a byte range [from, to) of a text.
type span struct{ from, to int }

// maskNames is the names of one assignment, prepared for finding them in each text it renders.
//
// Each name's occurrences are found left to right, each after the end of the one before. A name that
// extends another (a target named after its workload: "billing-0005" and "billing-0005-canary") is not
// searched for on its own: every occurrence of it starts where the shorter one occurs, so it is looked
// for at each of those, which spares a pass over the text and finds the same occurrences.
// It is kept in each assignment's render, so it is small: the names and, for each searched name, the
// indices of it and of the names it carries.
type maskNames struct {
	names [maskFew]string
	few   [maskFew]nameSearch
	nFew  int8
	many  []string // when there are more than maskFew names: the maskable ones, each searched for on its own
}

const maskFew = 4

// nameSearch is one name that is searched for, and the longer names found where it occurs: indices of
// maskNames.names.
type nameSearch struct {
	name     int8
	carried  [maskFew - 1]int8
	nCarried int8
}

func newMaskNames(names []string) maskNames {
	var m maskNames
	if len(names) > maskFew {
		for _, n := range names {
			if isMaskableName(n) {
				m.many = append(m.many, n)
			}
		}
		return m
	}
	copy(m.names[:], names)
	var maskable [maskFew]bool
	var carrier [maskFew]int // the name with which names[i] is found, or -1
	for i, n := range names {
		maskable[i] = isMaskableName(n)
	}
	for i := range names {
		carrier[i] = -1
		for k := range names {
			if k != i && maskable[k] && maskable[i] && len(names[k]) < len(names[i]) && strings.HasPrefix(names[i], names[k]) {
				carrier[i] = k
				break
			}
		}
	}
	// A name that extends one that extends another is found with the shortest: it starts with it too.
	for i := range names {
		for carrier[i] >= 0 && carrier[carrier[i]] >= 0 {
			carrier[i] = carrier[carrier[i]]
		}
	}
	for k := range names {
		if !maskable[k] || carrier[k] >= 0 {
			continue // not a name, or searched for with the name it extends
		}
		s := nameSearch{name: int8(k)}
		for i := range names {
			if carrier[i] == k {
				s.carried[s.nCarried] = int8(i)
				s.nCarried++
			}
		}
		m.few[m.nFew] = s
		m.nFew++
	}
	return m
}

// spans appends to spans every occurrence of each maskable name in text, sorted and merged where they
// overlap. A merged span is still a run of name characters that starts and ends with a letter or
// digit, so masking it keeps the verdict just as masking one name does.
func (m *maskNames) spans(text string, spans []span) []span {
	for _, n := range m.many {
		spans = appendOccurrences(spans, text, n)
	}
	for _, s := range m.few[:m.nFew] {
		n := m.names[s.name]
		if s.nCarried == 0 {
			spans = appendOccurrences(spans, text, n)
			continue
		}
		var ends [maskFew]int // where the last occurrence taken of n (0) and of each carried name ends
		for from := 0; ; {
			i := strings.Index(text[from:], n)
			if i < 0 {
				break
			}
			at := from + i
			if at >= ends[0] {
				spans = append(spans, span{at, at + len(n)})
				ends[0] = at + len(n)
			}
			for j, c := range s.carried[:s.nCarried] {
				if o := m.names[c]; at >= ends[j+1] && strings.HasPrefix(text[at:], o) {
					spans = append(spans, span{at, at + len(o)})
					ends[j+1] = at + len(o)
				}
			}
			from = at + 1
		}
	}
	return mergeSpans(spans)
}

// appendOccurrences appends the occurrences of n in text, left to right, each after the one before.
func appendOccurrences(spans []span, text, n string) []span {
	for from := 0; ; {
		i := strings.Index(text[from:], n)
		if i < 0 {
			return spans
		}
		spans = append(spans, span{from + i, from + i + len(n)})
		from += i + len(n)
	}
}

// mergeSpans sorts spans and merges those that overlap or touch, in place.
func mergeSpans(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

const xRun = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

// hashMasked hashes text as if every span were replaced by its mask: one 'x' where the span is
// shortenable, as many 'x's as it is long elsewhere.
func hashMasked(text string, spans []span) maskedKey {
	short := uint64(0) // bit i: spans[i] is shortenable; spans past the 64th keep their length
	for i, s := range spans {
		if i < 64 && shortenable(text, s.to) {
			short |= 1 << i
		}
	}
	var key maskedKey
	for k, seed := range maskSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		at := 0
		for i, s := range spans {
			_, _ = h.WriteString(text[at:s.from])
			n := s.to - s.from
			if i < 64 && short&(1<<i) != 0 {
				n = 1
			}
			for ; n > 0; n -= len(xRun) {
				_, _ = h.WriteString(xRun[:min(n, len(xRun))])
			}
			at = s.to
		}
		_, _ = h.WriteString(text[at:])
		key[k] = h.Sum64()
	}
	return key
}

// shortenable reports whether a name that ends at to may be masked by a shorter run of 'x's: the rest
// of its line is only letters, digits, '.', '_', '/' and '-' (more of the same plain or quoted scalar,
// or of a comment), then at most one closing quote, then at most spaces and a carriage return. No
// token starts there, so nothing on the line depends on where the name ends.
func shortenable(text string, to int) bool {
	rest := text[to:]
	if end := strings.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	for rest != "" && (rest[len(rest)-1] == ' ' || rest[len(rest)-1] == '\r') {
		rest = rest[:len(rest)-1]
	}
	if rest != "" && (rest[len(rest)-1] == '"' || rest[len(rest)-1] == '\'') {
		rest = rest[:len(rest)-1]
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !isAlnum(c) && (c < 'A' || c > 'Z') && c != '.' && c != '_' && c != '/' && c != '-' {
			return false
		}
	}
	return true
}

// isMaskableName is the rule a templating.Shape keeps to for the values it puts back, so that a verdict
// shared by Shape holds for every name.
func isMaskableName(n string) bool { return templating.MaskableName(n) }

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
