// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// fastAccepted lists texts in the fast path's subset; each must convert exactly as the full path does.
var fastAccepted = map[string]string{
	"flat":                     "a: b\n",
	"every scalar":             "s: plain text\nq: \"double <q> & 'x'\"\nsq: 'it''s \"x\" \\ y'\nsq2: 'x'\ni: 0\nneg: -12\nbig: 123456789012345678\nseq: []\nmap: {}\ndot: .\npath: ./x/y\nurl: https://example.com:8443/a?b=c&d=%20\nsl: /abs\nq2: \"\"\nsq3: ''\nqt: a\"b\\c\nu: _x\n",
	"nested":                   "a:\n  b:\n    c: d\n  e: f\ng: h\n",
	"sequence under key":       "a:\n- x\n- w\nb: z\n",
	"indented sequence":        "a:\n    - x\n    - 'y'\n    - w\nb: z\n",
	"mappings in a sequence":   "a:\n  - name: x\n    labels:\n      k: v\n  -   name: w\n      list:\n      - 1\n      - 2\n  - \"z\"\n",
	"compact in item":          "a:\n- b:\n  - c\n  d: e\n- f\n",
	"comments and blank lines": "# head\na: b   \n\n  # indented comment\nc:\n\n  d: e\n# tail\n",
	"quoted keys":              "\"a b\": c\n'd''e': f\n\"<&>\": g\n",
	"keys":                     "app.kubernetes.io/name: x\n_k: v\nK-1: z\nyess: a\nnull1: b\nony: c\n",
	"unsorted keys":            "z: 1\nb: 2\nB: 3\na-b: 4\na: 5\n",
	"literal":                  "a: |\n  x\n  # not a comment\n\n    y  \n\n\n\nb: |-\n   z\n   w\n\n# comment\nc:\n- |\n  item\n- |-\n    item2\n  \nd: |\n  e: f\n  - g\n",
	"literal in item mapping":  "a:\n  - name: x\n    text: |\n      one\n\n      two\n    after: w\n",
	"many keys":                manyKeys(20, ""),
	"long value":               "a: " + strings.Repeat("x ", 3000) + "y\n",
	"manifest": "apiVersion: scheduler.kalypso.io/v1alpha1\nkind: ClusterType\nmetadata:\n  name: ct\n  labels:\n    region: \"east-us\"\n" +
		"spec:\n  reconciler: arc-flux\n  namespaceService: default\n",
	"header types": "apiVersion: 1\nkind: []\nmetadata: x\n",
	"metadata {}":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
	"name is int":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 5\n",
}

// fastDeclined lists texts outside the subset: the fast path must leave them to the full path.
var fastDeclined = map[string]string{
	"yes": "a: yes\n", "y value": "a: x\nb: y\n", "n key": "n: 1\n", "y item": "a:\n- y\n", "Off": "a: Off\n", "y": "a: y\n", "tilde": "a: ~\n", "null": "a: null\n", "NULL": "a: NULL\n",
	"empty value": "a:\nb: c\n", "empty last": "a: b\nc:\n", "empty item": "a:\n- \n- b\n",
	"float": "a: 1.5\n", "hex": "a: 0x1F\n", "octal": "a: 012\n", "minus zero": "a: -0\n", "dot float": "a: .5\n",
	"inf": "a: .inf\n", "Inf": "a: .Inf\n", "exponent": "a: 1e3\n", "timestamp": "a: 2001-12-14\n", "plus": "a: +1\n",
	"underscore int": "a: 1_000\n", "huge int": "a: 1234567890123456789\n", "sha": "a: 783fdef9\n",
	"anchor": "a: &x b\nc: *x\n", "alias": "a: *x\n", "tag": "a: !!str b\n", "merge": "<<: {a: b}\nc: d\n",
	"literal, no final break": "a: |\n  x", "literal, leading blank": "a: |\n\n  x\n", "literal, keep": "a: |+\n  x\n",
	"literal, indicator": "a: |2\n  x\n", "literal, comment": "a: | # c\n  x\n", "literal, empty": "a: |\nb: c\n",
	"literal, space line": "a: |\n  x\n     \n  y\n", "literal, misindented": "a: |\n    x\n  y\n", "folded": "a: >\n  x\n", "multi-line plain": "a: b\n  c\n", "multi-line item": "- a\n  b\n",
	"escape": "a: \"x\\ty\"\n", "unterminated": "a: \"x\n", "unterminated single": "a: 'x\n", "after quote": "a: \"x\" y\n",
	"comment after value": "a: b # c\n", "hash in value": "a: b#c\n", "colon space": "a: b: c\n", "trailing colon": "a: b:\n",
	"duplicate": "a: b\na: c\n", "duplicate quoted": "a: b\n\"a\": c\n", "tab": "a:\tb\n", "tab indent": "a:\n\tb: c\n",
	"non-ASCII": "a: é\n", "BOM": "\ufeffa: b\n", "CR": "a: b\rc: d\n", "NUL": "a: b\x00\n",
	"bool key": "yes: 1\n", "int key": "1: a\n", "root sequence": "- a\n", "root scalar": "a\n", "root indented": "  a: b\n",
	"misindented": "a:\n  - b\n c: d\n", "misindented map": "a:\n  b: c\n d: e\n", "nested sequence": "a:\n- - b\n",
	"flow sequence": "a: [b]\n", "flow map": "a: {b: c}\n", "comma": "a: b,c\n", "space before colon": "a : b\n",
	"duplicate among many": manyKeys(20, "k00: again\n"), "duplicate among many, last": manyKeys(20, "k19: again\n"),
	"long key": strings.Repeat("k", 600) + ": v\n", "deep": deepMapping(100), "empty": "", "comments only": "# a\n",
	"document end": "a: b\n...\n", "directive": "%YAML 1.1\n---\na: b\n", "question": "? a\n: b\n", "backtick": "a: `b`\n",
	"at": "a: @b\n", "percent": "a: %b\n", "dash plain": "a: -b\n", "bare dash": "a: -\n", "quoted key then text": "\"a\"b: c\n",
	"key colon text": "a:b: c\n", "word then space": "a b: c\n",
}

func manyKeys(n int, tail string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%02d: v\n", i)
	}
	return b.String() + tail
}

func deepMapping(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "k: v\n")
	return b.String()
}

// checkFastPath fails when the fast path accepts text and converts it otherwise than the full path (or
// the full path refuses it), or reads a header that decoding the JSON would not give. It reports
// whether the fast path took the text.
func checkFastPath(t *testing.T, name, text string) bool {
	t.Helper()
	root, got, ok := fastYAMLToJSON(text)
	if !ok {
		return false
	}
	want, err := fullYAMLToJSON(text)
	if err != nil {
		t.Errorf("%s: the fast path accepted text that the full path refuses (%v):\n%s", name, err, text)
		return true
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: fast path\n%s\nfull path\n%s\ninput:\n%s", name, got, want, text)
	}
	if h := fastHeader(root); h != nil {
		var fromJSON objectHeader
		if err := kjson.UnmarshalCaseSensitivePreserveInts(want, &fromJSON); err != nil || !reflect.DeepEqual(*h, fromJSON) {
			t.Errorf("%s: fast header %+v, from JSON %+v (%v)", name, *h, fromJSON, err)
		}
	}
	return true
}

func TestFastYAMLToJSONSubset(t *testing.T) {
	t.Parallel()
	for name, text := range fastAccepted {
		if !checkFastPath(t, name, text) {
			t.Errorf("%s: declined by the fast path:\n%s", name, text)
		}
	}
	for name, text := range fastDeclined {
		if _, js, ok := fastYAMLToJSON(text); ok {
			t.Errorf("%s: accepted by the fast path as %s:\n%s", name, js, text)
		}
	}
}

// repositoryDocuments splits every YAML file of the repository: fixtures, examples, templates, CRDs.
func repositoryDocuments(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		split, _ := SplitDocuments(0, string(raw))
		for i, doc := range split {
			docs[path+"#"+string(rune('0'+i%10))+strings.Repeat("+", i/10)] = doc.Text
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// fleetDocuments returns the documents of testdata/fleets: two files of each folder of the fleetgen
// presets the engine is measured on (`go run ./tools/fleetgen -size <preset>`).
func fleetDocuments(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fleets", "*", "*.yaml"))
	if err != nil || len(files) < 60 {
		t.Fatalf("%d fleet files (%v)", len(files), err)
	}
	docs := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(raw)
	}
	return docs
}

// TestFastYAMLToJSONMatchesFullPath compares the two paths on every YAML document of the repository
// and checks that the fast path takes nearly all of the benchmark fleets' manifests (not the base
// repository, whose commit is a hexadecimal word, nor a config schema's escaped JSON): without that it
// would speed nothing up.
func TestFastYAMLToJSONMatchesFullPath(t *testing.T) {
	t.Parallel()
	repo := repositoryDocuments(t)
	if len(repo) < 100 {
		t.Fatalf("only %d documents found in the repository", len(repo))
	}
	for name, text := range repo {
		checkFastPath(t, name, text)
	}
	taken, direct := 0, 0
	presets := fleetDocuments(t)
	for name, text := range presets {
		if checkFastPath(t, name, text) {
			taken++
			// And the object is decoded from the tree, without its JSON.
			root, _ := fastYAMLTree(text)
			if h := fastHeader(root); h != nil && h.Kind != nil {
				if obj, _ := newObject(*h.Kind); obj != nil && decodeInto(root, reflect.ValueOf(obj).Elem()) {
					direct++
				}
			}
		} else {
			t.Logf("%s: declined by the fast path", name)
		}
	}
	if taken < len(presets)*9/10 || direct < taken {
		t.Errorf("the fast path took %d of %d fleet documents, and decoded %d of them from the tree", taken, len(presets), direct)
	}
}

// TestFastPathDecodesAsTheFullPath: DecodeDocument gives the same entry and the same diagnostics with
// the fast path as without it, on every document above, the subset's cases and the fuzz seeds.
func TestFastPathDecodesAsTheFullPath(t *testing.T) {
	t.Parallel()
	all := repositoryDocuments(t)
	for name, text := range fleetDocuments(t) {
		all[name] = text
	}
	for name, text := range fastAccepted {
		all["accepted/"+name] = text
	}
	for name, text := range fastDeclined {
		all["declined/"+name] = text
	}
	for name, text := range decodeCases() {
		all["decode/"+name] = text
	}
	for name, text := range all {
		doc := Document{Text: text, Source: Source{Input: 1, Document: 2, Line: 3, File: name}}
		fe, fd := decodeDocument(doc, true)
		se, sd := decodeDocument(doc, false)
		if !reflect.DeepEqual(fe, se) || !reflect.DeepEqual(fd, sd) {
			t.Errorf("%s: fast path %+v %v, full path %+v %v", name, fe, fd, se, sd)
		}
	}
}

// decodeCases are manifests in the subset that decoding refuses or warns about, so that the diagnostics
// after a fast conversion are compared too.
func decodeCases() map[string]string {
	return map[string]string{
		"unknown kind":    av + "kind: Nope\nmetadata:\n  name: x\n",
		"no kind":         av + "metadata:\n  name: x\n",
		"wrong version":   "apiVersion: v2\nkind: ClusterType\nmetadata:\n  name: x\n",
		"no version":      "kind: ClusterType\nmetadata:\n  name: x\n",
		"no name":         av + "kind: ClusterType\nmetadata:\n  labels:\n    a: b\n",
		"int name":        av + "kind: ClusterType\nmetadata:\n  name: 5\n",
		"kind list":       av + "kind: []\nmetadata:\n  name: x\n",
		"metadata string": av + "kind: ClusterType\nmetadata: x\n",
		"bad label":       av + "kind: ClusterType\nmetadata:\n  name: x\n  labels:\n    \"a b\": c\nspec:\n  reconciler: r\n  namespaceService: n\n",
		"type error":      av + "kind: ClusterType\nmetadata:\n  name: x\n  labels:\n    a: 5\nspec:\n  reconciler: r\n  namespaceService: n\n",
		"list for map":    av + "kind: ClusterType\nmetadata:\n  name: x\n  labels:\n  - a\nspec:\n  reconciler: r\n",
		"case":            av + "Kind: ClusterType\nkind: ClusterType\nMetadata:\n  name: y\nmetadata:\n  name: x\n",
		"workload": av + "kind: Workload\nmetadata:\n  name: w\nspec:\n  deploymentTargets:\n  - name: t\n    environment: dev\n" +
			"    manifests:\n      repo: r\n  - name: t\n    environment: dev\n    manifests: {}\n",
		"empty collections": av + "kind: Workload\nmetadata:\n  name: w\n  labels: {}\n  annotations: {}\nspec:\n  deploymentTargets: []\n  configSchemas: []\n",
		"empty selector":    av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector: {}\n  clusterTypeSelector: {}\n",
		"unknown fields":    av + "kind: ClusterType\nextra: x\nmetadata:\n  name: x\n  other:\n    deep: y\nspec:\n  reconciler: r\n  namespaceService: n\n  more: [a]\n",
		"embedded by name":  av + "kind: ClusterType\nTypeMeta:\n  kind: Template\nmetadata:\n  name: x\nspec:\n  reconciler: r\n  namespaceService: n\n",
		"struct as string":  av + "kind: ClusterType\nmetadata:\n  name: x\nspec: r\n",
		"list as string":    av + "kind: Template\nmetadata:\n  name: t\nspec:\n  type: config\n  manifests: x\n",
		"int in list":       av + "kind: Template\nmetadata:\n  name: t\nspec:\n  type: config\n  manifests:\n  - a\n  - 5\n",
		"selector values": av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  clusterTypeSelector:\n    labelSelector:\n      matchLabels:\n        a: b\n" +
			"      matchExpressions:\n      - key: a\n        operator: In\n        values: []\n      - key: b\n        operator: Exists\n",
		"config map":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: n\ndata:\n  A: |\n    x: 1\n  B: \"2\"\n",
		"config map int": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  A: 1\n",
		"policy": av + "kind: SchedulingPolicy\nmetadata:\n  name: p\nspec:\n  deploymentTargetSelector:\n    labelSelector:\n" +
			"      matchExpressions:\n      - key: a\n        operator: Bad\n        values:\n        - b\n",
	}
}

// FuzzFastYAMLToJSON: whatever the fast path accepts, the full path converts to the same JSON.
func FuzzFastYAMLToJSON(f *testing.F) {
	for _, text := range fastAccepted {
		f.Add(text)
	}
	for _, text := range fastDeclined {
		f.Add(text)
	}
	for _, text := range decodeCases() {
		f.Add(text)
	}
	for _, text := range fleetDocuments(f) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFastPath(t, "fuzz", text)
	})
}

// TestFastPathAllocatesLittleForBlankLines: the fast path keeps no list of lines, so a text of blank
// lines (cheap for yaml.v2) costs it no more memory than its tree.
func TestFastPathAllocatesLittleForBlankLines(t *testing.T) { //nolint:paralleltest // it measures the process's allocations, which parallel tests would add to
	text := strings.Repeat("\n", 4<<20) + "a: b\nc:\n" + strings.Repeat("  # comment\n", 1<<18) + "  d: e\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, js, ok := fastYAMLToJSON(text)
	runtime.ReadMemStats(&after)
	if !ok || string(js) != `{"a":"b","c":{"d":"e"}}` {
		t.Fatalf("fast path: %s, %v", js, ok)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(text))/4 {
		t.Errorf("the fast path allocated %d bytes for %d bytes of text", n, len(text))
	}
}

// The byte searches for line breaks answer as strings.ContainsAny does, invalid UTF-8 included.
func checkLineBreakSearch(t *testing.T, text string) {
	t.Helper()
	if got, want := hasOtherLineBreak(text), strings.ContainsAny(text, "\r\u0085\u2028\u2029"); got != want {
		t.Errorf("hasOtherLineBreak(%q) = %v, want %v", text, got, want)
	}
	if got, want := hasUnicodeLineBreak(text), strings.ContainsAny(text, "\u0085\u2028\u2029"); got != want {
		t.Errorf("hasUnicodeLineBreak(%q) = %v, want %v", text, got, want)
	}
}

var lineBreakSeeds = []string{"", "a\nb", "a\rb", "a\u0085b", "a\u2028", "\u2029", "\xc2", "\xc2\x84", "\xe2\x80", "\xe2\x80\xa7", "\xe2\x80\xaa", "é\u00a0€", "\xc2\xc2\x85", "\xe2\xe2\x80\xa8"}

func TestLineBreakSearch(t *testing.T) {
	t.Parallel()
	for _, s := range lineBreakSeeds {
		checkLineBreakSearch(t, s)
	}
}

func FuzzLineBreakSearch(f *testing.F) {
	for _, s := range lineBreakSeeds {
		f.Add(s)
	}
	f.Fuzz(checkLineBreakSearch)
}

// FuzzFastPathDecodes: DecodeDocument gives the same entry and diagnostics with the fast path as without.
func FuzzFastPathDecodes(f *testing.F) {
	for _, text := range decodeCases() {
		f.Add(text)
	}
	for _, text := range fleetDocuments(f) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc := Document{Text: text, Source: Source{Input: 1, Document: 2, Line: 3}}
		fe, fd := decodeDocument(doc, true)
		se, sd := decodeDocument(doc, false)
		if !reflect.DeepEqual(fe, se) || !reflect.DeepEqual(fd, sd) {
			t.Errorf("fast path %+v %v, full path %+v %v", fe, fd, se, sd)
		}
	})
}
