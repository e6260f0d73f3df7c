// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"

	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Document is one YAML document of an input stream, with its text kept verbatim.
type Document struct {
	Text   string
	Source Source
}

// SplitDocuments splits a stream into documents the way kustomize's kyaml ByteReader does, which is how
// Flux delivers a control-plane repository: CRLF line endings are read as LF, and a line that starts with
// `---` separates documents when the rest of it is empty, whitespace or a `# comment`. Any other text after
// `---` on that line (`--- !!map`, `---apiVersion: v1`) is an "Invalid document separator" error naming the
// line, and the input gives no documents. Each document's text is otherwise kept verbatim; empty and
// comment-only documents are skipped. Positions count every document, skipped or not. A document that a
// YAML parser would still read as several documents (after a `...` end marker, a lone CR or another line
// break that YAML knows and this splitter does not) is an error too, so that no document is ever dropped.
func SplitDocuments(input int, text string) ([]Document, Diagnostics) {
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	var docs []Document
	var diags Diagnostics
	index, line, startLine, start := 0, 1, 1, 0
	flush := func(end int) {
		t := text[start:end]
		if !isBlankDocument(t) {
			src := Source{Input: input, Document: index, Line: startLine}
			if n, trailing := yamlDocumentCount(t); n > 1 || trailing != nil {
				what := fmt.Sprintf("this document holds %d YAML documents", n)
				if n <= 1 {
					what = fmt.Sprintf("this document has text after the end of its first YAML document (%v), which a YAML decoder would drop", trailing)
				}
				diags = append(diags, Diagnostic{Severity: SeverityError, Summary: SummaryHiddenDocuments, Source: src,
					Detail: what + ", but only a line that starts with `---` separates documents here (as in Flux); " +
						"remove the `...` end marker or the stray line break (a lone CR, NEL, LS or PS), or put `---` on its own line between the documents"})
			} else {
				docs = append(docs, Document{Text: t, Source: src})
			}
		}
		index++
	}
	pos := 0
	for pos < len(text) {
		end := len(text)
		next := len(text)
		if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
			end, next = pos+nl, pos+nl+1
		}
		if ln := text[pos:end]; strings.HasPrefix(ln, "---") {
			// Only YAML's whitespace (space and tab) counts: other Unicode spaces are refused rather than guessed at.
			if rest := strings.Trim(ln[3:], " \t"); rest != "" && rest[0] != '#' {
				diags = append(diags, Diagnostic{Severity: SeverityError, Summary: SummaryInvalidSeparator,
					Source: Source{Input: input, Document: index + 1, Line: line},
					Detail: fmt.Sprintf("line %d is %q: a line that starts with `---` separates documents and may hold only whitespace or a `# comment` after it (as kustomize and Flux require); move %q to the next line", line, abbreviateLine(ln), abbreviateLine(rest))})
			}
			if directivesOnly(text[start:pos]) {
				// `%YAML 1.1` or `%TAG` lines only introduce the document that this `---` starts (YAML's
				// rule): they are no document of their own, which no decoder could read. They are
				// dropped with the separator, as every separator line is: %YAML 1.1 is the decoder's own
				// version, and a tag handle that %TAG declared is an error where the document uses it.
				start = pos
			}
			flush(pos)
			start = next
			startLine = line + 1
		}
		pos = next
		line++
	}
	flush(len(text))
	if diags.HasError() {
		return nil, diags
	}
	return docs, diags
}

const (
	// SummaryInvalidSeparator is the summary of a `---` line with other text after it.
	SummaryInvalidSeparator = "Invalid document separator"
	// SummaryHiddenDocuments is the summary of a document that a YAML parser reads as several.
	SummaryHiddenDocuments = "Several YAML documents without a separator"
)

func abbreviateLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// yamlDocumentCount returns how many non-empty documents yaml.v3 reads from a text that holds no `---`
// line, and the error that stopped it after the first document, if any. Only a document end marker or a
// line break other than LF can make that more than one, so any other text is one document without parsing
// it twice. Text that does not parse at all is one document: the decoder reports it with the object's context.
func yamlDocumentCount(text string) (int, error) {
	if !strings.HasPrefix(text, "...") && !strings.Contains(text, "\n...") && !hasOtherLineBreak(text) {
		return 1, nil
	}
	n, err := CountYAMLDocuments(text)
	if err != nil && n == 0 {
		return 1, nil
	}
	return n, err
}

// CountYAMLDocuments returns the number of non-empty documents a yaml.v3 stream decoder reads from text.
func CountYAMLDocuments(text string) (int, error) {
	dec := yamlv3.NewDecoder(strings.NewReader(text))
	n := 0
	for {
		var node yamlv3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if !isEmptyYAMLDocument(&node) {
			n++
		}
	}
}

func isEmptyYAMLDocument(n *yamlv3.Node) bool {
	if n.Kind != yamlv3.DocumentNode {
		return n.Kind == 0
	}
	if len(n.Content) == 0 {
		return true
	}
	c := n.Content[0]
	return len(n.Content) == 1 && c.Kind == yamlv3.ScalarNode && c.Tag == "!!null" && c.Value == "" && c.Style == 0 && c.Anchor == ""
}

// hasOtherLineBreak reports whether text holds a line break that YAML knows besides LF:
// strings.ContainsAny(text, "\r\u0085\u2028\u2029"), which decodes every rune of the text and was most
// of splitting a fleet's files; this searches for the bytes that start those breaks.
func hasOtherLineBreak(text string) bool {
	return strings.IndexByte(text, '\r') >= 0 || hasUnicodeLineBreak(text)
}

// hasUnicodeLineBreak is strings.ContainsAny(text, "\u0085\u2028\u2029"): NEL is C2 85 in UTF-8, LS
// and PS are E2 80 A8 and E2 80 A9.
func hasUnicodeLineBreak(text string) bool {
	return strings.IndexByte(text, 0xC2) >= 0 && strings.Contains(text, "\u0085") ||
		strings.IndexByte(text, 0xE2) >= 0 && (strings.Contains(text, "\u2028") || strings.Contains(text, "\u2029"))
}

func isBlankDocument(text string) bool {
	if hasOtherLineBreak(text) {
		// YAML also breaks lines at these, so a "comment" line may hold content after one of them.
		n, err := CountYAMLDocuments(text)
		if err == nil || hasUnicodeLineBreak(text) {
			return err == nil && n == 0
		}
		// yaml.v3 cannot read a lone end marker on its own (in a stream it ends the document before): with
		// a lone CR read as the line break it is, the lines below decide, as they do for LF.
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	for _, ln := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(ln, "..."); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			// A document end marker (followed by nothing, whitespace or a comment) holds nothing;
			// `...#` or `...x` is text.
			if r := strings.Trim(rest, " \t"); r == "" || r[0] == '#' {
				continue
			}
		}
		t := strings.Trim(ln, " \t")
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// directivesOnly reports whether text holds a YAML directive (a line that starts with `%`) and otherwise
// only blank and comment lines.
func directivesOnly(text string) bool {
	found := false
	for _, ln := range strings.Split(text, "\n") {
		switch t := strings.Trim(ln, " \t"); {
		case strings.HasPrefix(ln, "%"):
			found = true
		case t != "" && !strings.HasPrefix(t, "#"):
			return false
		}
	}
	return found
}

// Entry is a decoded object with the document it came from.
type Entry struct {
	Kind   string
	Name   string
	Object Object
	Doc    Document
}

// DecodeDocument decodes one document into its typed object.
func DecodeDocument(doc Document) (*Entry, Diagnostics) {
	return decodeDocument(doc, true)
}

// decodeDocument is DecodeDocument; fast false takes the full YAML path for every document, which is
// how TestFastPathDecodesAsTheFullPath compares the two.
func decodeDocument(doc Document, fast bool) (*Entry, Diagnostics) {
	fail := func(kind, name, field, summary, detail string) (*Entry, Diagnostics) {
		return nil, Diagnostics{{Severity: SeverityError, Summary: summary, Detail: detail, Source: doc.Source, Kind: kind, Name: name, Field: field}}
	}
	var root *fyNode
	if fast {
		root, _ = fastYAMLTree(doc.Text)
	}
	var js []byte
	var header *objectHeader
	if root != nil {
		header = fastHeader(root)
	} else {
		var err error
		if js, err = fullYAMLToJSON(doc.Text); err != nil {
			return fail("", "", "", "Malformed YAML document", err.Error()+". Fix the YAML syntax (indent with spaces, no duplicate keys).")
		}
		if string(js) == "null" {
			return nil, nil
		}
	}
	// The fast path's tree is written as JSON only when a decoder needs it.
	jsonOf := func() []byte {
		if js == nil {
			js = root.json(len(doc.Text))
		}
		return js
	}
	if header == nil {
		header = &objectHeader{}
		// Field names are case-sensitive, as in Kubernetes: `Metadata` or `apiversion` are unknown fields, not aliases.
		if err := kjson.UnmarshalCaseSensitivePreserveInts(jsonOf(), header); err != nil {
			return fail("", "", "", "Document is not a Kubernetes object", "expected a mapping with apiVersion, kind and metadata: "+err.Error())
		}
	}
	kind := deref(header.Kind)
	name := ""
	if header.Metadata != nil {
		name = deref(header.Metadata.Name)
	}
	if kind == "" {
		return fail("", name, "kind", "Missing required field", "every document needs `kind`; one of "+strings.Join(Kinds, ", "))
	}
	obj, wantAPIVersion := newObject(kind)
	if obj == nil {
		return fail(kind, name, "kind", "Unknown kind", fmt.Sprintf("%q is not a Kalypso kind; expected one of %s", kind, strings.Join(Kinds, ", ")))
	}
	if header.APIVersion == nil || *header.APIVersion == "" {
		return fail(kind, name, "apiVersion", "Missing required field", "set apiVersion: "+wantAPIVersion)
	}
	if *header.APIVersion != wantAPIVersion {
		return fail(kind, name, "apiVersion", "Wrong apiVersion", fmt.Sprintf("%s needs apiVersion %q, got %q", kind, wantAPIVersion, *header.APIVersion))
	}
	if name == "" {
		return fail(kind, "", "metadata.name", "Missing required field", "every object needs metadata.name")
	}
	if root == nil || !decodeInto(root, reflect.ValueOf(obj).Elem()) {
		obj, _ = newObject(kind) // decodeInto may have set part of the first one
		if err := kjson.UnmarshalCaseSensitivePreserveInts(jsonOf(), obj); err != nil {
			// The case-sensitive decoder's type error is not exported; encoding/json reports the same mismatch with its path.
			probe, _ := newObject(kind)
			if perr := json.Unmarshal(js, probe); perr != nil {
				err = perr
			}
			field, detail := describeJSONError(js, err)
			return fail(kind, name, field, "Invalid field value", detail)
		}
	}
	entry := &Entry{Kind: kind, Name: name, Object: obj, Doc: doc}
	diags := Validate(entry)
	return entry, diags
}

// objectHeader is what a document says about itself before its kind is known.
type objectHeader struct {
	APIVersion *string `json:"apiVersion"`
	Kind       *string `json:"kind"`
	Metadata   *struct {
		Name *string `json:"name"`
	} `json:"metadata"`
}

// fullYAMLToJSON converts any document's YAML to JSON and reports every error of it.
func fullYAMLToJSON(text string) ([]byte, error) {
	// Strict YAML rejects duplicate keys, which Kubernetes would also reject.
	js, err := yaml.YAMLToJSONStrict([]byte(text))
	if err != nil && strings.Contains(err.Error(), "already set in map") {
		// yaml.v2's strict mode counts a key that overrides one taken from a merge key (`<<: *base` then
		// `name: t2`) as a duplicate. That is valid YAML, and sigs.k8s.io/yaml and Kubernetes accept it, so
		// only keys written twice in one mapping are refused.
		js, err = decodeWithMergeOverrides(text, err)
	}
	return js, err
}

// fastHeader reads the header from the fast path's tree when each of its fields is absent or of the
// type the header wants, which is when decoding the header from the JSON cannot fail; otherwise nil.
func fastHeader(root *fyNode) *objectHeader {
	var h objectHeader
	str := func(n *fyNode, into **string) bool {
		if n == nil {
			return true
		}
		if n.kind != fyString {
			return false
		}
		*into = &n.text
		return true
	}
	if !str(root.get("apiVersion"), &h.APIVersion) || !str(root.get("kind"), &h.Kind) {
		return nil
	}
	if m := root.get("metadata"); m != nil {
		if m.kind != fyMapping {
			return nil
		}
		h.Metadata = &struct {
			Name *string `json:"name"`
		}{}
		if !str(m.get("name"), &h.Metadata.Name) {
			return nil
		}
	}
	return &h
}

// decodeWithMergeOverrides converts YAML to JSON like sigs.k8s.io/yaml does when the only duplicate keys
// are overrides of merged keys; otherwise it returns strictErr.
func decodeWithMergeOverrides(text string, strictErr error) ([]byte, error) {
	var root yamlv3.Node
	if yamlv3.Unmarshal([]byte(text), &root) != nil || hasLiteralDuplicateKey(&root, 0) {
		return nil, strictErr
	}
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, strictErr
	}
	return js, nil
}

// hasLiteralDuplicateKey reports whether a mapping of the tree writes one key twice; merge keys (`<<`) do
// not count, as YAML's merge rules let the mapping's own keys override merged ones.
func hasLiteralDuplicateKey(n *yamlv3.Node, depth int) bool {
	if n == nil || depth > 10000 {
		return depth > 10000
	}
	if n.Kind == yamlv3.MappingNode {
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yamlv3.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yamlv3.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			if seen[k.Value] {
				return true
			}
			seen[k.Value] = true
		}
	}
	if n.Kind == yamlv3.AliasNode {
		return false
	}
	for _, c := range n.Content {
		if hasLiteralDuplicateKey(c, depth+1) {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func newObject(kind string) (Object, string) {
	for _, k := range kindTable {
		if k.kind == kind {
			return k.new(), k.apiVersion
		}
	}
	return nil, ""
}

// IsKnownKind reports whether the codec can decode kind at apiVersion.
func IsKnownKind(apiVersion, kind string) bool {
	obj, want := newObject(kind)
	return obj != nil && want == apiVersion
}

func describeJSONError(js []byte, err error) (string, string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		// encoding/json names neither list indices nor map keys; find the offending value to name it exactly.
		var root interface{}
		if json.Unmarshal(js, &root) == nil && te.Field != "" {
			if refined, ok := locateField(root, strings.Split(te.Field, "."), te.Value); ok {
				field = strings.TrimPrefix(refined, ".")
			}
		}
		return field, fmt.Sprintf("expected %s, got a YAML %s; quote the value if it should be a string", te.Type.String(), te.Value)
	}
	return "", err.Error()
}

// locateField follows a dotted field path through decoded JSON, descending into every list element, and
// returns the path with list indices and, when the path ends at a map, the key whose value has JSON type want.
func locateField(node interface{}, parts []string, want string) (string, bool) {
	if list, ok := node.([]interface{}); ok {
		for i, el := range list {
			if rest, ok := locateField(el, parts, want); ok {
				return fmt.Sprintf("[%d]", i) + rest, true
			}
		}
		return "", false
	}
	m, isMap := node.(map[string]interface{})
	if len(parts) == 0 {
		if jsonType(node) == want {
			return "", true
		}
		if !isMap {
			return "", false
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if jsonType(m[k]) == want {
				return "." + k, true
			}
		}
		return "", false
	}
	if !isMap {
		return "", false
	}
	child, ok := m[parts[0]]
	if !ok {
		return "", false
	}
	rest, ok := locateField(child, parts[1:], want)
	if !ok {
		return "", false
	}
	return "." + parts[0] + rest, true
}

func jsonType(v interface{}) string {
	switch v.(type) {
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []interface{}:
		return "array"
	case map[string]interface{}:
		return "object"
	}
	return ""
}

// Validate checks required fields and values that Kubernetes or the scheduler would reject.
func Validate(e *Entry) Diagnostics {
	var ds Diagnostics
	add := func(field, summary, detail string) {
		ds = append(ds, Diagnostic{Severity: SeverityError, Summary: summary, Detail: detail, Source: e.Doc.Source, Kind: e.Kind, Name: e.Name, Field: field})
	}
	required := func(field, value string) {
		if value == "" {
			add(field, "Missing required field", fmt.Sprintf("%s %q needs %s", e.Kind, e.Name, field))
		}
	}
	for _, msg := range validation.IsDNS1123Subdomain(e.Name) {
		add("metadata.name", "Invalid object name", msg)
	}
	ds = append(ds, validateLabels(e, "metadata.labels", e.Object.GetLabels())...)
	switch o := e.Object.(type) {
	case *ClusterType:
		required("spec.reconciler", o.Spec.Reconciler)
		required("spec.namespaceService", o.Spec.NamespaceService)
	case *Workload:
		seen := map[string]bool{}
		for i, t := range o.Spec.DeploymentTargets {
			f := fmt.Sprintf("spec.deploymentTargets[%d]", i)
			required(f+".name", t.Name)
			required(f+".environment", t.Environment)
			if t.Manifests == nil {
				add(f+".manifests", "Missing required field", "each deployment target needs manifests {repo, branch, path}")
			}
			// Upstream keeps each environment's targets apart, so a name may repeat across environments.
			key := t.Environment + "\x00" + t.Name
			if seen[key] {
				add(f+".name", "Duplicate deployment target", fmt.Sprintf("deployment target %q appears twice for environment %q in workload %q", t.Name, t.Environment, e.Name))
			}
			seen[key] = true
			ds = append(ds, validateLabels(e, f+".labels", t.Labels)...)
		}
	case *WorkloadRegistration:
		required("spec.workspace", o.Spec.Workspace)
	case *Template:
		required("spec.type", o.Spec.Type)
		switch o.Spec.Type {
		case "", TemplateTypeReconciler, TemplateTypeNamespace, TemplateTypeConfig:
		default:
			add("spec.type", "Invalid template type", fmt.Sprintf("%q is not one of reconciler, namespace, config", o.Spec.Type))
		}
	case *ConfigSchema:
		required("spec.schema", o.Spec.Schema)
	case *GitOpsRepo:
		required("spec.repo", o.Spec.Repo)
		required("spec.branch", o.Spec.Branch)
	case *SchedulingPolicy:
		ds = append(ds, validateSelector(e, "spec.deploymentTargetSelector.labelSelector", o.Spec.DeploymentTargetSelector.LabelSelector)...)
		ds = append(ds, validateSelector(e, "spec.clusterTypeSelector.labelSelector", o.Spec.ClusterTypeSelector.LabelSelector)...)
	}
	return ds
}

func validateLabels(e *Entry, field string, labels map[string]string) Diagnostics {
	var ds Diagnostics
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, msg := range validation.IsQualifiedName(k) {
			ds = append(ds, Diagnostic{Severity: SeverityError, Summary: "Invalid label key", Detail: fmt.Sprintf("%q: %s", k, msg), Source: e.Doc.Source, Kind: e.Kind, Name: e.Name, Field: field + "." + k})
		}
		for _, msg := range validation.IsValidLabelValue(labels[k]) {
			ds = append(ds, Diagnostic{Severity: SeverityError, Summary: "Invalid label value", Detail: fmt.Sprintf("%q: %s", labels[k], msg), Source: e.Doc.Source, Kind: e.Kind, Name: e.Name, Field: field + "." + k})
		}
	}
	return ds
}
