// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// fastYAMLTree reads text in the fast path's subset (fastYAMLToJSON) into its tree.
func fastYAMLTree(text string) (*fyNode, bool) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; (c < 0x20 || c > 0x7e) && c != '\n' {
			return nil, false
		}
	}
	p := fyParser{text: text}
	first, ok := p.peek()
	if !ok || first.indent != 0 {
		return nil, false
	}
	root := p.mapping(0)
	if _, more := p.peek(); root == nil || more {
		return nil, false
	}
	return root, true
}

// json writes the tree as JSON; size is the length of its YAML. JSON is about as long as the YAML;
// beyond 64 KiB the buffer grows as needed, as blank or comment lines may make up most of the text.
func (n *fyNode) json(size int) []byte {
	return n.appendJSON(make([]byte, 0, min(size+size/4, 1<<16)))
}

// fyMaxDepth bounds nesting in the subset (yaml.v2 refuses 10,000); deeper text takes the full path.
const fyMaxDepth = 64

type fyLine struct {
	indent int
	text   string // without the indentation and trailing spaces
	raw    string // the whole line, for block scalars
	skip   bool   // blank or a comment, outside a block scalar
}

// fyParser reads the text line by line; no list of lines is kept, as a text of blank lines would make
// it many times the text's size.
type fyParser struct {
	text  string
	pos   int    // where the current line starts; past len(text) once every line is read
	cur   fyLine // the current line once peeked; a sequence item replaces it by the item's content
	next  int    // where the line after cur starts
	have  bool   // cur is set
	depth int
}

type fyKind uint8

const (
	fyString fyKind = iota
	fyInt
	fyMapping
	fySequence
)

// lineAt reads the line that starts at pos and returns where the next one starts. Lines are those of
// strings.Split(text, "\n"): a text that ends with a line break ends with an empty line.
func (p *fyParser) lineAt(pos int) (fyLine, int) {
	rest, next := p.text[pos:], len(p.text)+1
	if end := strings.IndexByte(rest, '\n'); end >= 0 {
		rest, next = rest[:end], pos+end+1
	}
	body := strings.TrimLeft(rest, " ")
	return fyLine{indent: len(rest) - len(body), text: strings.TrimRight(body, " "), raw: rest, skip: body == "" || body[0] == '#'}, next
}

// peek returns the current line, skipping blank and comment lines; false once none is left.
func (p *fyParser) peek() (fyLine, bool) {
	for !p.have && p.pos <= len(p.text) {
		ln, next := p.lineAt(p.pos)
		if !ln.skip {
			p.cur, p.next, p.have = ln, next, true
			break
		}
		p.pos = next
	}
	if !p.have {
		return fyLine{}, false
	}
	return p.cur, true
}

// advance moves past the current line, which peek returned.
func (p *fyParser) advance() {
	p.pos, p.have = p.next, false
}

type fyNode struct {
	kind  fyKind
	text  string    // fyString, fyInt: the value (an integer's decimal digits)
	keys  []string  // fyMapping
	items []*fyNode // fyMapping: the values, in the order of keys; fySequence: the items
}

func (n *fyNode) get(key string) *fyNode {
	if i := slices.Index(n.keys, key); i >= 0 {
		return n.items[i]
	}
	return nil
}

// mapping reads a block mapping whose keys are at column indent, from the current line on.
func (p *fyParser) mapping(indent int) *fyNode {
	if p.depth++; p.depth > fyMaxDepth {
		return nil
	}
	defer func() { p.depth-- }()
	n := &fyNode{kind: fyMapping}
	var seen map[string]bool
	for {
		ln, ok := p.peek()
		if !ok || ln.indent < indent {
			break
		}
		if ln.indent > indent {
			return nil
		}
		key, rest, isKey, ok := splitKey(ln.text)
		if !ok || !isKey {
			return nil
		}
		if seen == nil && len(n.keys) == 8 {
			// A mapping of many keys must not cost their square.
			seen = make(map[string]bool, 16)
			for _, k := range n.keys {
				seen[k] = true
			}
		}
		if seen != nil && seen[key] || seen == nil && slices.Contains(n.keys, key) {
			return nil // the full path reports the duplicate key
		}
		if seen != nil {
			seen[key] = true
		}
		p.advance()
		v := p.value(rest, indent)
		if v == nil {
			return nil
		}
		n.keys = append(n.keys, key)
		n.items = append(n.items, v)
	}
	if len(n.keys) == 0 {
		return nil
	}
	return n
}

// value reads the value of a key at column indent: rest is the text after `key:`.
func (p *fyParser) value(rest string, indent int) *fyNode {
	rest = strings.TrimLeft(rest, " ")
	if rest != "" {
		return p.scalarLine(rest, indent)
	}
	next, ok := p.peek()
	switch {
	case !ok:
		return nil // null
	case next.indent == indent && isItem(next.text):
		return p.sequence(indent)
	case next.indent > indent && isItem(next.text):
		return p.sequence(next.indent)
	case next.indent > indent:
		return p.mapping(next.indent)
	}
	return nil // null
}

// scalarLine reads a scalar that starts on the line before the current one, in a collection at
// column indent: a one-line scalar, or a literal block scalar whose lines follow.
func (p *fyParser) scalarLine(text string, indent int) *fyNode {
	switch text {
	case "|":
		return p.literal(indent, false)
	case "|-":
		return p.literal(indent, true)
	}
	v := scalar(text)
	if next, ok := p.peek(); v == nil || (ok && next.indent > indent) {
		return nil // or a continuation line of a multi-line scalar
	}
	return v
}

// literal reads the lines of a literal block scalar (`|`, or `|-` to strip the final line break) in a
// collection at column indent. Its indentation is that of its first line, which must be more than
// indent; leading blank lines, lines of spaces longer than that indentation (content made of spaces),
// and a last line without a line break are declined.
func (p *fyParser) literal(indent int, strip bool) *fyNode {
	if p.pos > len(p.text) {
		return nil
	}
	in, _ := p.lineAt(p.pos)
	if in.text == "" || in.indent <= indent {
		return nil // a leading blank line, or an empty scalar
	}
	var b strings.Builder
	breaks := 0
	for p.pos <= len(p.text) {
		ln, next := p.lineAt(p.pos)
		if ln.text == "" {
			if len(ln.raw) > in.indent {
				return nil
			}
			breaks++
			p.pos = next
			continue
		}
		if ln.indent < in.indent {
			break
		}
		for ; breaks > 0; breaks-- {
			b.WriteByte('\n')
		}
		b.WriteString(ln.raw[in.indent:])
		breaks = 1
		p.pos = next
	}
	if p.pos > len(p.text) && breaks < 2 {
		return nil // the text ends inside the last line
	}
	v := b.String()
	if !strip {
		v += "\n"
	}
	return &fyNode{kind: fyString, text: v}
}

// sequence reads a block sequence whose `-` are at column indent.
func (p *fyParser) sequence(indent int) *fyNode {
	if p.depth++; p.depth > fyMaxDepth {
		return nil
	}
	defer func() { p.depth-- }()
	n := &fyNode{kind: fySequence}
	for {
		ln, ok := p.peek()
		if !ok || ln.indent < indent || (ln.indent == indent && !isItem(ln.text)) {
			break // the caller decides whether that line belongs to it
		}
		if ln.indent > indent || len(ln.text) < 3 {
			return nil
		}
		body := strings.TrimLeft(ln.text[1:], " ")
		col := indent + len(ln.text) - len(body)
		if isItem(body) {
			return nil // a nested sequence on the same line
		}
		var v *fyNode
		if _, _, isKey, ok := splitKey(body); !ok {
			return nil
		} else if isKey {
			// The item is a mapping whose first key is on the item's line.
			p.cur = fyLine{indent: col, text: body}
			v = p.mapping(col)
		} else {
			p.advance()
			v = p.scalarLine(body, indent)
		}
		if v == nil {
			return nil
		}
		n.items = append(n.items, v)
	}
	return n
}

func isItem(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// splitKey splits `key: rest` or `key:`; isKey is false for text that is no key (a scalar, which
// scalar then reads or declines), ok is false for text outside the subset.
func splitKey(text string) (key, rest string, isKey, ok bool) {
	var after string
	switch text[0] {
	case '"', '\'':
		v, n := quoted(text)
		if n < 0 {
			return "", "", false, false
		}
		key, after = v, text[n:]
	default:
		n := 0
		for n < len(text) && isKeyChar(text[n]) {
			n++
		}
		key, after = text[:n], text[n:]
		if n == 0 || !isKeyStart(key[0]) || isResolved(key) {
			return "", "", false, !strings.HasPrefix(after, ":")
		}
	}
	if after == "" {
		return "", "", false, true
	}
	if after == ":" || strings.HasPrefix(after, ": ") {
		return key, after[1:], true, len(key) <= 512
	}
	// A quoted key followed by other text, or a plain word followed by other characters: leave that
	// to scalar (which declines `a:b: c` and `a b: c`).
	return "", "", false, text[0] != '"' && text[0] != '\''
}

func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isKeyChar(c byte) bool {
	return isKeyStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/'
}

// isResolved reports whether yaml.v2 reads a plain word as something other than a string: its
// booleans and nulls in any case (a superset of its table, which lists three spellings of each).
func isResolved(word string) bool {
	if len(word) > 5 {
		return false
	}
	switch strings.ToLower(word) {
	case "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~":
		return true
	}
	return false
}

// quoted reads a quoted scalar at the start of text and returns its value and the length of the
// quoted text; n < 0 declines (escapes, or no closing quote on this line).
func quoted(text string) (string, int) {
	q := text[0]
	if q == '"' {
		end := strings.IndexByte(text[1:], '"')
		if end < 0 || strings.IndexByte(text[1:end+1], '\\') >= 0 {
			return "", -1
		}
		return text[1 : end+1], end + 2
	}
	for i := 1; i < len(text); i++ {
		if text[i] != '\'' {
			continue
		}
		if i+1 < len(text) && text[i+1] == '\'' {
			return quotedSingleEscaped(text)
		}
		return text[1:i], i + 1
	}
	return "", -1
}

// quotedSingleEscaped reads a single-quoted scalar that holds a doubled quote.
func quotedSingleEscaped(text string) (string, int) {
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		if text[i] != '\'' {
			b.WriteByte(text[i])
			continue
		}
		if i+1 < len(text) && text[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i + 1
	}
	return "", -1
}

// scalar reads a one-line scalar value (trailing spaces already cut), or declines with nil.
func scalar(text string) *fyNode {
	switch text[0] {
	case '"', '\'':
		v, n := quoted(text)
		if n != len(text) {
			return nil
		}
		return &fyNode{kind: fyString, text: v}
	}
	switch text {
	case "[]":
		return &fyNode{kind: fySequence, items: []*fyNode{}}
	case "{}":
		return &fyNode{kind: fyMapping}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '#', ',', '[', ']', '{', '}':
			return nil
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' {
				return nil
			}
		}
	}
	c := text[0]
	switch {
	case c >= '0' && c <= '9' || c == '-':
		if isDecimal(text) {
			return &fyNode{kind: fyInt, text: text}
		}
		return nil
	case c == '.':
		// yaml.v2 reads `.5`, `.inf` and `.nan` as floats, `.` and `./x` as strings.
		if _, err := strconv.ParseFloat(text, 64); err == nil || isSpecialFloat(text) {
			return nil
		}
	case c == '/' || isKeyStart(c):
		if isResolved(text) {
			return nil
		}
	default:
		return nil
	}
	return &fyNode{kind: fyString, text: text}
}

func isSpecialFloat(text string) bool {
	switch strings.ToLower(text) {
	case ".inf", ".nan":
		return true
	}
	return false
}

// isDecimal reports an integer that yaml.v2 and encoding/json both write as these digits: no sign
// but `-`, no leading zero, no `-0`, and well inside int64.
func isDecimal(text string) bool {
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && (len(digits) > 1 || len(text) > 1)) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// appendJSON writes the node as encoding/json writes the value sigs.k8s.io/yaml makes of it: object
// keys sorted, `<`, `>` and `&` escaped.
func (n *fyNode) appendJSON(b []byte) []byte {
	switch n.kind {
	case fyString:
		return appendJSONString(b, n.text)
	case fyInt:
		return append(b, n.text...)
	case fySequence:
		b = append(b, '[')
		for i, it := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.appendJSON(b)
		}
		return append(b, ']')
	}
	order := make([]int, len(n.keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, c int) bool { return n.keys[order[a]] < n.keys[order[c]] })
	b = append(b, '{')
	for i, j := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, n.keys[j])
		b = append(b, ':')
		b = n.items[j].appendJSON(b)
	}
	return append(b, '}')
}

// appendJSONString quotes printable ASCII and line breaks as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '<':
			b = append(b, `\u003c`...)
		case '>':
			b = append(b, `\u003e`...)
		case '&':
			b = append(b, `\u0026`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// decodeInto sets v, an addressable struct of a kind, from the tree as encoding/json sets it from the
// tree's JSON (field names matched exactly, unknown fields ignored, `{}` and `[]` made empty but not
// nil), without writing the JSON. It returns false for a value whose type its field does not take, or
// a field type it does not handle; v is then partly set, and the caller decodes the JSON into a new
// object, which reports the error as before.
func decodeInto(n *fyNode, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		if n.kind != fyString {
			return false
		}
		v.SetString(n.text)
	case reflect.Struct:
		if n.kind != fyMapping {
			return false
		}
		fields := jsonFields(v.Type())
		for i, k := range n.keys {
			if at, ok := fields[k]; ok && !decodeInto(n.items[i], v.FieldByIndex(at)) {
				return false
			}
		}
	case reflect.Map:
		t := v.Type()
		if n.kind != fyMapping || t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.String {
			return false
		}
		m := reflect.MakeMapWithSize(t, len(n.keys))
		for i, k := range n.keys {
			if n.items[i].kind != fyString {
				return false
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), reflect.ValueOf(n.items[i].text).Convert(t.Elem()))
		}
		v.Set(m)
	case reflect.Slice:
		if n.kind != fySequence {
			return false
		}
		s := reflect.MakeSlice(v.Type(), len(n.items), len(n.items))
		for i, it := range n.items {
			if !decodeInto(it, s.Index(i)) {
				return false
			}
		}
		v.Set(s)
	case reflect.Pointer:
		if v.Type().Elem().Kind() != reflect.Struct {
			return false
		}
		p := reflect.New(v.Type().Elem())
		if !decodeInto(n, p.Elem()) {
			return false
		}
		v.Set(p)
	default:
		return false
	}
	return true
}

// jsonFieldCache holds jsonFields by struct type.
var jsonFieldCache sync.Map // reflect.Type → map[string][]int

// jsonFields maps the JSON names of a struct's fields to their indices, as encoding/json names them:
// the tag's name, else the field's; fields of an embedded struct without a name in its tag are the
// struct's own. Where two fields take one name the first is kept, which is not always encoding/json's
// choice: the model's types have no such name (TestFastPathDecodesAsTheFullPath would see it).
func jsonFields(t reflect.Type) map[string][]int {
	if f, ok := jsonFieldCache.Load(t); ok {
		return f.(map[string][]int) //nolint:forcetypeassert // jsonFieldCache only ever holds map[string][]int
	}
	fields := map[string][]int{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			at := append(slices.Clone(index), i)
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type, at)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := fields[name]; !dup {
				fields[name] = at
			}
		}
	}
	walk(t, nil)
	jsonFieldCache.Store(t, fields)
	return fields
}
