// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	yamlv3 "gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// Upstream Kalypso writes these values too, but a cluster refuses them, so the engine reports them at
// plan time (issue 14). The rule: a value that a built-in template writes into a Kubernetes object
// field that the API server or Flux validates is an error, because the object can never be applied;
// the same value handed to an input template (which may not use it) is a warning.
const (
	SummaryInvalidEnvironment = "Invalid environment"
	SummaryInvalidNamespace   = "Invalid namespace"
	SummaryInvalidLabelValue  = "Invalid label value"
	SummaryInvalidRepoURL     = "Invalid manifests repo for Flux"
	SummaryInvalidConfigKey   = "Invalid platform config key"
)

// checkEnvironment refuses an environment that cannot start a namespace name.
func checkEnvironment(environment string) model.Diagnostics {
	msgs := validation.IsDNS1123Label(environment)
	if len(msgs) == 0 {
		return nil
	}
	return model.Diagnostics{{Severity: model.SeverityError, Summary: SummaryInvalidEnvironment, Source: model.NoSource,
		Detail: fmt.Sprintf("environment %q starts every namespace (<environment>-<clusterType>-<deploymentTarget>), so it must be a DNS-1123 label: %s. Use lower-case letters, digits and '-', for example \"dev\"",
			environment, strings.Join(msgs, "; "))}}
}

// deployability checks what the assignment's templates will write. It returns nothing for values that
// no template of the assignment writes into a validated field. What each built-in template writes, and
// which of its values the cluster refuses, is its entry in the registry (builtins).
func (j *assignmentJob) deployability(a *Assignment, t *DeploymentTarget, ct *model.ClusterType, config map[string]interface{}) []assignmentDiag {
	var ds []assignmentDiag
	src := j.set.Source(model.KindClusterType, ct.Metadata.Name)
	add := func(sev model.Severity, summary, field, detail string) {
		// mergeAssignmentDiags names the deployment target and cluster type.
		ds = append(ds, assignmentDiag{target: t.Name, clusterType: ct.Metadata.Name, diag: model.Diagnostic{Severity: sev, Summary: summary, Source: src, Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: field,
			Detail: detail}})
	}
	configType := ct.Spec.ConfigType
	if configType == "" {
		configType = model.DefaultConfigType
	}
	// The templates the cluster type uses, in the order their checks report; each is the built-in one
	// or nil when the input defines the name.
	type slot struct {
		field   string
		builtin *builtin
	}
	builtinOf := func(use string) *builtin {
		if tmpl, ok := j.templates[use]; ok && builtins.is(use, tmpl) {
			return builtins.byName[use]
		}
		return nil
	}
	reconciler := slot{"spec.reconciler", builtinOf(ct.Spec.Reconciler)}
	namespace := slot{"spec.namespaceService", builtinOf(ct.Spec.NamespaceService)}
	configSlot := slot{"spec.configType", builtinOf(configType)}

	if msgs := dns1123LabelErrors(a.Namespace); len(msgs) > 0 {
		sev, writer, field := model.SeverityWarning, "templates get it as .Namespace", "spec.namespaceService"
		for _, s := range []slot{namespace, reconciler} {
			if s.builtin != nil && s.builtin.writesNamespace != "" {
				sev, field = model.SeverityError, s.field
				writer = fmt.Sprintf("the built-in %q template writes it %s", s.builtin.template.Metadata.Name, s.builtin.writesNamespace)
				break
			}
		}
		add(sev, SummaryInvalidNamespace, field,
			fmt.Sprintf("the namespace %q (<environment>-<clusterType>-<deploymentTarget>) is not a valid Kubernetes namespace (%s), and %s. "+
				"Shorten or rename the environment, the cluster type or the deployment target (lower-case letters, digits and '-', at most 63 characters in all)",
				a.Namespace, strings.Join(msgs, "; "), writer))
	}

	type label struct{ value, field string }
	labels := map[string]label{}
	for _, s := range []slot{reconciler, namespace} {
		if s.builtin != nil && s.builtin.labels != nil {
			for k, v := range s.builtin.labels(j.environment, t) {
				labels[k] = label{v, s.field}
			}
		}
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if msgs := validation.IsValidLabelValue(labels[k].value); len(msgs) > 0 {
			add(model.SeverityError, SummaryInvalidLabelValue, labels[k].field,
				fmt.Sprintf("the built-in template writes label %s: %q, which Kubernetes refuses (%s); shorten the name or use an input template", k, labels[k].value, strings.Join(msgs, "; ")))
		}
	}

	for _, s := range []slot{reconciler, configSlot} {
		if s.builtin != nil && s.builtin.check != nil {
			for _, issue := range s.builtin.check(t, config) {
				add(model.SeverityError, issue.summary, issue.field, issue.detail)
			}
		}
	}
	return ds
}

// dns1123LabelErrors is validation.IsDNS1123Label, which matches a regular expression: checked for
// every assignment's namespace, that was a tenth of the deployability checks. A valid label is
// recognised here byte by byte; only an invalid one goes to apimachinery for its messages.
func dns1123LabelErrors(s string) []string {
	valid := s != "" && len(s) <= validation.DNS1123LabelMaxLength && isAlnum(s[0]) && isAlnum(s[len(s)-1])
	for i := 0; valid && i < len(s); i++ {
		valid = isAlnum(s[i]) || s[i] == '-'
	}
	if valid {
		return nil
	}
	return validation.IsDNS1123Label(s)
}

// Summaries of the checks on rendered documents (issue 23). Both keep the written bytes as upstream
// renders them and warn at plan time, naming the object to fix.
const (
	SummaryUnservedAPIVersion   = "API version not served by current reconcilers"
	SummaryConfigMapValueString = "ConfigMap data value is not a string"
)

// docHeader is the top-level apiVersion and kind of one document, and the document's text.
type docHeader struct {
	apiVersion, kind, text string
	at                     int // where text starts in the manifest
}

// docHeaders reads the top-level `apiVersion:` and `kind:` of each document of a rendered manifest by
// scanning its lines, without parsing it: templates write them as plain block-style keys, and a
// document this misreads is one the YAML check or the cluster reports anyway.
// trimLineEnd drops the spaces, tabs and carriage returns that end a line.
func trimLineEnd(line string) string {
	for line != "" {
		switch line[len(line)-1] {
		case ' ', '\t', '\r':
			line = line[:len(line)-1]
			continue
		}
		break
	}
	return line
}

func docHeaders(manifest string) []docHeader {
	return appendDocHeaders(nil, manifest)
}

// appendDocHeaders appends the headers of manifest's documents to out (docHeaders); checkDocuments
// passes an array on its stack, as a slice per rendered text was most of what the check allocated.
func appendDocHeaders(out []docHeader, manifest string) []docHeader {
	cur, start := docHeader{}, 0
	flush := func(end int) {
		if cur.apiVersion != "" || cur.kind != "" {
			cur.text, cur.at = manifest[start:end], start
			out = append(out, cur)
		}
		cur = docHeader{}
	}
	for at := 0; at < len(manifest); {
		end := strings.IndexByte(manifest[at:], '\n')
		if end < 0 {
			end = len(manifest)
		} else {
			end += at
		}
		// Only the lines that start like a separator or a header are trimmed: this runs on every line of
		// every rendered file, and trimming each was most of its cost.
		line := manifest[at:end]
		switch {
		case strings.HasPrefix(line, "---"):
			if line = trimLineEnd(line); line == "---" || strings.HasPrefix(line, "--- ") {
				flush(at)
				start = end
			}
		case strings.HasPrefix(line, "apiVersion:"):
			cur.apiVersion = scalarValue(trimLineEnd(line)[len("apiVersion:"):])
		case strings.HasPrefix(line, "kind:"):
			cur.kind = scalarValue(trimLineEnd(line)[len("kind:"):])
		}
		at = end + 1
	}
	flush(len(manifest))
	return out
}

// scalarValue is a plain or quoted one-line YAML scalar without its comment.
func scalarValue(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.Trim(s, `"'`)
}

// unserved reports whether unservedAPIVersion has something to say about h, without formatting it.
func unserved(h docHeader) bool {
	group, version, ok := strings.Cut(h.apiVersion, "/")
	if !ok {
		return false
	}
	served, known := builtins.served[groupKind{group, h.kind}]
	return known && !slices.Contains(served.versions, version)
}

// unservedAPIVersion returns the warning text for a document of a kind that a built-in reconciler writes
// (builtins.served) whose apiVersion the current CRDs do not serve, or "".
func unservedAPIVersion(h docHeader) string {
	group, version, ok := strings.Cut(h.apiVersion, "/")
	if !ok {
		return ""
	}
	served, known := builtins.served[groupKind{group, h.kind}]
	if !known || slices.Contains(served.versions, version) {
		return ""
	}
	want := make([]string, len(served.versions))
	for i, v := range served.versions {
		want[i] = group + "/" + v
	}
	return fmt.Sprintf("renders a %s of apiVersion %s, which current %s no longer serves (its CustomResourceDefinition serves only %s), so the cluster will refuse it. "+
		"The file is written as rendered, as upstream Kalypso does; change the template's apiVersion to %s and check its fields against that version",
		h.kind, h.apiVersion, served.project, strings.Join(want, ", "), want[len(want)-1])
}

// nonStringData is one key of a ConfigMap's `data` whose value is not a string, and what it is instead.
type nonStringData struct{ key, what string }

// configMapDataChecker finds non-string values in the `data` of rendered ConfigMaps. The API server
// accepts only strings there; the built-in and upstream `configmap` templates write a nested platform
// config value (`host: port`, a list) as a YAML mapping or list, which the cluster refuses. The `data`
// section of a fleet's ConfigMaps repeats across assignments that share their platform config, so the
// verdict is memoized on that section's exact text (the names that differ live in `metadata`).
type configMapDataChecker struct {
	memo   sync.Map // maskedKey of the data section → checkedSection
	size   atomic.Int64
	noMemo bool // every section is read again (a test compares the verdicts)
}

// check returns the keys of doc's `data` whose values are not strings, in document order, and the hash
// of that list (badKey), which is all their reports depend on.
func (c *configMapDataChecker) check(doc string) ([]nonStringData, maskedKey) {
	section := dataSection(doc)
	if section == "" {
		return nil, maskedKey{}
	}
	key := hashMasked(section, nil)
	if v, ok := c.memo.Load(key); ok {
		v := v.(checkedSection) //nolint:forcetypeassert // only this function stores into memo
		return v.bad, v.key
	}
	bad, ok := scanDataSection(section)
	if !ok {
		bad = parseDataSection(section)
	}
	checked := checkedSection{bad, badKey(bad)}
	if !c.noMemo && c.size.Add(1) <= yamlMemoLimit {
		c.memo.Store(key, checked)
	}
	return checked.bad, checked.key
}

// checkedSection is the verdict on one data section.
type checkedSection struct {
	bad []nonStringData
	key maskedKey
}

// badKey hashes a list of non-string values. The reports of a ConfigMap document depend on the list, not
// on the data section's text: when a platform config value holds template actions that print the
// assignment's names, every assignment has its own data section, and keying the reports by the section
// looked them up and stored them anew for each (issue 34: a third of the cost of nested values on 10k).
func badKey(bad []nonStringData) maskedKey {
	var key maskedKey
	if len(bad) == 0 {
		return key
	}
	for k, seed := range maskSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, b := range bad {
			_, _ = h.WriteString(b.key)
			_ = h.WriteByte(0)
			_, _ = h.WriteString(b.what)
			_ = h.WriteByte(0)
		}
		key[k] = h.Sum64()
	}
	return key
}

// parseDataSection finds the non-string values of a `data:` section with a YAML parser.
func parseDataSection(section string) []nonStringData {
	var root yamlv3.Node
	var bad []nonStringData
	if yamlv3.Unmarshal([]byte(section), &root) == nil && len(root.Content) == 1 && root.Content[0].Kind == yamlv3.MappingNode &&
		len(root.Content[0].Content) == 2 && root.Content[0].Content[1].Kind == yamlv3.MappingNode {
		data := root.Content[0].Content[1].Content
		for i := 0; i+1 < len(data); i += 2 {
			if what := nonStringValue(data[i+1]); what != "" {
				bad = append(bad, nonStringData{data[i].Value, what})
			}
		}
	}
	return bad
}

// scanDataSection is parseDataSection for the block-style `data:` that templates write (toYaml's
// output), read line by line: parsing every ConfigMap of a fleet whose assignments each compose their
// own config cost a third of the render. ok is false for anything else it does not read with
// certainty (flow style, anchors, tags, tabs, quoted keys), which parseDataSection then reads.
func scanDataSection(section string) (bad []nonStringData, ok bool) {
	lines := strings.Split(section, "\n")
	if strings.TrimSpace(strings.TrimPrefix(lines[0], "data:")) != "" || strings.ContainsAny(section, "\t&*!") {
		return nil, false
	}
	indent, inList := -1, false // inList: the entry above has no inline value, so `- ` items at its indent are its list
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \r")
		body := strings.TrimLeft(line, " ")
		n := len(line) - len(body)
		if body == "" || body[0] == '#' || (indent >= 0 && n > indent) {
			continue // blank, comment, or inside the value of the entry above
		}
		if indent < 0 {
			indent = n
		}
		if n == indent && inList && (strings.HasPrefix(body, "- ") || body == "-") {
			continue
		}
		if n != indent || body[0] == '-' || body[0] == '?' {
			return nil, false
		}
		key, value, found := strings.Cut(body, ":")
		if q := body[0]; q == '"' || q == '\'' { // a quoted key, as toYaml writes "y" or "N"
			end := strings.IndexByte(body[1:], q)
			if end < 0 || strings.ContainsRune(body[1:1+end], '\\') {
				return nil, false
			}
			key, value, found = body[1:1+end], "", strings.HasPrefix(body[2+end:], ":")
			if found {
				value = body[3+end:]
			}
		}
		if !found || (value != "" && value[0] != ' ') {
			return nil, false
		}
		value = strings.TrimSpace(value)
		if j := strings.Index(value, " #"); j >= 0 {
			value = strings.TrimSpace(value[:j])
		}
		what := ""
		inList = value == ""
		switch {
		case value == "" || value[0] == '#':
			what = nestedValue(lines[i+1:], indent)
		case value[0] == '{':
			what = "a mapping"
		case value[0] == '[':
			what = "a list"
		case value[0] == '|' || value[0] == '>' || value[0] == '"' || value[0] == '\'':
		case strings.ContainsRune("0123456789+-.tTfF", rune(value[0])):
			var n yamlv3.Node
			if yamlv3.Unmarshal([]byte(value), &n) != nil || len(n.Content) != 1 {
				return nil, false
			}
			what = nonStringValue(n.Content[0])
		}
		if what != "" {
			bad = append(bad, nonStringData{key, what})
		}
	}
	return bad, true
}

// nestedValue says what the block value that follows an entry with no inline value is: the next
// non-blank line, more indented (or a `- ` item at the same indent), starts a mapping or a list;
// nothing there is null, which the API server reads as an empty string.
func nestedValue(rest []string, indent int) string {
	for _, line := range rest {
		body := strings.TrimLeft(strings.TrimRight(line, " \r"), " ")
		if body == "" || body[0] == '#' {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, " "))
		switch {
		case strings.HasPrefix(body, "- ") || body == "-":
			if n >= indent {
				return "a list"
			}
		case n > indent:
			return "a mapping"
		}
		return ""
	}
	return ""
}

// dataSection is the top-level `data:` entry of a document, up to the next top-level key.
func dataSection(doc string) string {
	from, to := dataSectionBounds(doc)
	return doc[from:to]
}

// dataSectionBounds is where dataSection lies in doc; from == to when doc has none.
func dataSectionBounds(doc string) (from, to int) {
	from = -1
	if strings.HasPrefix(doc, "data:") {
		from = 0
	} else if i := strings.Index(doc, "\ndata:"); i >= 0 {
		from = i + 1
	}
	if from < 0 {
		return 0, 0
	}
	// The entry goes on while lines are indented, blank, comments or block-sequence items.
	at := from
	for {
		nl := strings.IndexByte(doc[at:], '\n')
		if nl < 0 {
			return from, len(doc)
		}
		at += nl + 1
		if at < len(doc) {
			if c := doc[at]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' && (c != '-' || strings.HasPrefix(doc[at:], "---")) {
				return from, at
			}
		}
	}
}

// nonStringValue says what a ConfigMap data value is when the API server would not read it as a string.
func nonStringValue(n *yamlv3.Node) string {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yamlv3.MappingNode:
		return "a mapping"
	case yamlv3.SequenceNode:
		return "a list"
	case yamlv3.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
	}
	return ""
}

// checkDocuments warns about the documents of an assignment's file that a current cluster refuses:
// an object of a built-in reconciler's kind (Flux, Argo CD, ...) of an apiVersion that is no longer served (about the Template), and a
// ConfigMap whose data holds a value that is not a string (about the platform ConfigMap that holds the
// value, or the Template when none does). One warning per template manifest and object, naming the
// first file and counting the others (mergeYAMLIssues).
//
// The built-in templates are left out: they write only served apiVersions and quote every ConfigMap
// value (TestBuiltinTemplatesRenderDocumentsTheReconcilersAccept). So is any manifest that names no
// group of a built-in reconciler and no ConfigMap, which a substring search finds faster than reading its lines.
func (s *assignmentRender) checkDocuments(use templateUse, tmpl *model.Template, file string, out []string, shapes []templating.Shape) {
	if !strings.HasSuffix(file, ".yaml") || builtins.is(use.name, tmpl) {
		return
	}
	for i, m := range out {
		if p := s.job.docPlan(shapes[i]); p != nil {
			for _, h := range p.headers {
				if h.unserved {
					s.addUnservedAPIVersion(use, i, file, h.header)
				}
				if h.configMap {
					s.reportNonStrings(use, i, file, s.job.nonStringReportsOf(s, use, i, h.bad, h.reports))
				}
			}
			continue
		}
		if !documentsToCheck(m) {
			continue
		}
		var buf [4]docHeader
		for _, h := range appendDocHeaders(buf[:0], m) {
			if unserved(h) {
				s.addUnservedAPIVersion(use, i, file, h)
			}
			if h.apiVersion != "v1" || h.kind != "ConfigMap" {
				continue
			}
			s.reportNonStrings(use, i, file, s.job.nonStringReports(s, use, i, h.text))
		}
	}
}

// documentsToCheck reports whether a manifest names a group of a built-in reconciler or a ConfigMap: one
// that does not has no document checkDocuments reports.
func documentsToCheck(m string) bool {
	return mentionsReconcilerGroup(m) || strings.Contains(m, "ConfigMap")
}

// reportNonStrings counts the reports of one ConfigMap document of the assignment.
func (s *assignmentRender) reportNonStrings(use templateUse, index int, file string, reports []nonStringReport) {
	for _, r := range reports {
		if r.tally.claim(s.docOrder()) {
			r.tally.build = s.nonStringDataDiagnostic(use, index, file, r.bad, r.holders)
			r.tally.mu.Unlock()
		}
	}
}

// A docPlan is what checkDocuments reads in every text cut from one memo entry (templating.EntryID):
// the documents' headers and, for ConfigMaps, the non-string values of their data sections. These texts
// differ only in spliced names (DNS-1123 names, without line breaks). The plan is made from the entry's
// skeleton and holds when no name lies where the checks read: at the start of a line or within what they
// look for there (nameMayStartLine; so every line starts alike in every text), on a header or separator
// line, or in a ConfigMap's data section. Then every text has the same documents,
// headers and data sections, and the plan is replayed instead of scanning each text. The reports still go
// through each assignment (their tallies count every file, and the holders depend on the assignment's
// composed config).
type docPlan struct {
	headers []plannedHeader
}

type plannedHeader struct {
	header    docHeader // apiVersion and kind
	unserved  bool
	configMap bool
	bad       []nonStringData
	reports   maskedKey // badKey(bad)
}

// linePrefixes are what the checks look for at the start of a line: a separator, a header, a ConfigMap's
// data section. (Where a data section ends they tell by a line's first byte.)
var linePrefixes = [...]string{"---", "apiVersion:", "kind:", "data:"}

// nameMayStartLine reports whether a spliced name that starts at byte k of line could decide what the
// checks read there: at the line's first byte, or within one of linePrefixes that line[:k] begins.
func nameMayStartLine(line string, k int) bool {
	if k == 0 {
		return true
	}
	for _, p := range linePrefixes {
		if k < len(p) && strings.HasPrefix(p, line[:k]) {
			return true
		}
	}
	return false
}

// docPlan returns the plan of the texts of shape's entry, or nil when there is none.
func (j *assignmentJob) docPlan(shape templating.Shape) *docPlan {
	if shape.IsZero() || j.noMemo {
		return nil
	}
	id := shape.Entry()
	j.docPlansMu.RLock()
	p, ok := j.docPlans[id]
	j.docPlansMu.RUnlock()
	if !ok {
		p = j.makeDocPlan(shape.Skeleton())
		j.docPlansMu.Lock()
		if j.docPlans == nil {
			j.docPlans = map[templating.EntryID]*docPlan{}
		}
		if len(j.docPlans) < yamlMemoLimit {
			j.docPlans[id] = p
		}
		j.docPlansMu.Unlock()
	}
	return p
}

// makeDocPlan makes the plan of the skeleton m, whose spliced names lie at holes; nil when a name lies
// where the checks read.
func (j *assignmentJob) makeDocPlan(m string, holes [][2]int) *docPlan {
	overlaps := func(from, to int) bool {
		for _, h := range holes {
			if h[0] < to && from < h[1] {
				return true
			}
		}
		return false
	}
	for at := 0; at < len(m); {
		end := strings.IndexByte(m[at:], '\n')
		if end < 0 {
			end = len(m)
		} else {
			end += at
		}
		line := m[at:end]
		// The first name on the line starts at the same byte of the line in every text (what comes before
		// it is the same); later names start later.
		for _, h := range holes {
			if h[0] >= at && h[0] < end {
				if nameMayStartLine(line, h[0]-at) {
					return nil
				}
				break
			}
		}
		if (strings.HasPrefix(line, "---") || strings.HasPrefix(line, "apiVersion:") || strings.HasPrefix(line, "kind:")) && overlaps(at, end) {
			return nil
		}
		at = end + 1
	}
	p := &docPlan{}
	if !documentsToCheck(m) {
		// No header names a built-in reconciler's group or a ConfigMap, and no spliced name is in a header:
		// no text of the shape has a document to report.
		return p
	}
	for _, h := range docHeaders(m) {
		ph := plannedHeader{header: docHeader{apiVersion: h.apiVersion, kind: h.kind}, unserved: unserved(h)}
		if h.apiVersion == "v1" && h.kind == "ConfigMap" {
			from, to := dataSectionBounds(h.text)
			if overlaps(h.at+from, h.at+to) {
				return nil
			}
			ph.configMap = true
			ph.bad, ph.reports = j.dataChecks.check(h.text)
		}
		p.headers = append(p.headers, ph)
	}
	return p
}

// mentionsReconcilerGroup reports whether text names one of the API groups of builtins.served followed
// by '/', as every apiVersion of those groups does. It looks only at the few '/' of a manifest:
// searching for each group looked at every 'f' and every 'a' of the text.
func mentionsReconcilerGroup(text string) bool {
	for from := 0; ; {
		i := strings.IndexByte(text[from:], '/')
		if i < 0 {
			return false
		}
		at := from + i
		for _, g := range builtins.groups {
			if strings.HasSuffix(text[:at], g) {
				return true
			}
		}
		from = at + 1
	}
}

// addUnservedAPIVersion reports a document of an apiVersion that is no longer served. The diagnostic is
// formatted only for the report that comes first, at the end of the render.
func (s *assignmentRender) addUnservedAPIVersion(use templateUse, index int, file string, h docHeader) {
	t := s.job.docTally(docIssueKey{check: "api", template: use.name, index: index, what: h.apiVersion})
	if !t.claim(s.docOrder()) {
		return
	}
	defer t.mu.Unlock()
	t.build = func() model.Diagnostic {
		return model.Diagnostic{
			Severity: model.SeverityWarning, Summary: SummaryUnservedAPIVersion, Source: s.job.set.Source(model.KindTemplate, use.name), Kind: model.KindTemplate, Name: use.name,
			Field:  fmt.Sprintf("spec.manifests[%d]", index),
			Detail: fmt.Sprintf("manifests[%d] of Template %q (used by cluster type %q as %s; first in %s) %s.", index, use.name, s.ct.Metadata.Name, use.field, filePath(s.a.Path, file), unservedAPIVersion(h)),
		}
	}
}

// nonStringReport is one non-string value of a ConfigMap's data: its tally, and what its diagnostic names.
type nonStringReport struct {
	tally   *docIssueTally
	bad     nonStringData
	holders []platformconfig.Holder
}

// nonStringReportsKey names the reports of one ConfigMap document: the composed config (which ConfigMaps
// hold a key), the template manifest, and the hash of its non-string values (badKey).
type nonStringReportsKey struct {
	config, template string
	index            int
	bad              maskedKey
}

// nonStringReports returns the reports of the non-string values of one ConfigMap document that manifest
// index of use rendered. The assignments of a fleet that share their composed config render the same data
// section, so the holders and tallies are looked up once for each such section, not per value and file.
func (j *assignmentJob) nonStringReports(s *assignmentRender, use templateUse, index int, doc string) []nonStringReport {
	bad, key := j.dataChecks.check(doc)
	return j.nonStringReportsOf(s, use, index, bad, key)
}

// nonStringReportsOf is nonStringReports of a document whose data section holds the non-string values
// bad, of badKey key.
func (j *assignmentJob) nonStringReportsOf(s *assignmentRender, use templateUse, index int, bad []nonStringData, key maskedKey) []nonStringReport {
	if len(bad) == 0 {
		return nil
	}
	k := nonStringReportsKey{s.configKey, use.name, index, key}
	if v, ok := j.nonStrings.Load(k); ok {
		return v.([]nonStringReport) //nolint:forcetypeassert // nonStrings only ever holds []nonStringReport
	}
	reports := make([]nonStringReport, len(bad))
	for n, b := range bad {
		holders := j.holders(s, b.key)
		kind, name := model.KindTemplate, use.name
		if len(holders) > 0 {
			kind, name = model.KindConfigMap, holders[len(holders)-1].ConfigMap
		}
		reports[n] = nonStringReport{j.docTally(docIssueKey{check: "cm", template: use.name, index: index, what: b.key, kind: kind, name: name}), b, holders}
	}
	if !j.noMemo && j.nonStringsSize.Add(1) <= yamlMemoLimit {
		j.nonStrings.Store(k, reports)
	}
	return reports
}

// nonStringDataDiagnostic formats the warning about one non-string ConfigMap data value, naming the
// platform ConfigMap that holds the value, or the Template when none does.
func (s *assignmentRender) nonStringDataDiagnostic(use templateUse, index int, file string, bad nonStringData, holders []platformconfig.Holder) func() model.Diagnostic {
	return func() model.Diagnostic {
		d := model.Diagnostic{Severity: model.SeverityWarning, Summary: SummaryConfigMapValueString}
		where := fmt.Sprintf("manifests[%d] of Template %q writes data.%s of a ConfigMap as %s (first in %s), and the API server accepts only strings as ConfigMap data values, so the cluster will refuse that ConfigMap",
			index, use.name, bad.key, bad.what, filePath(s.a.Path, file))
		if len(holders) > 0 {
			h := holders[len(holders)-1]
			d.Kind, d.Name, d.Field, d.Source = model.KindConfigMap, h.ConfigMap, "data."+h.DataKey, s.job.set.Source(model.KindConfigMap, h.ConfigMap)
			d.Detail = fmt.Sprintf("platform config key %q of ConfigMap %q is %s: %s. Write the value as one string in ConfigMap %q (wrapped in single quotes it stays a string), "+
				"or make Template %q write it as text (`stringify` does).", bad.key, h.ConfigMap, bad.what, where, h.ConfigMap, use.name)
		} else {
			d.Kind, d.Name, d.Field, d.Source = model.KindTemplate, use.name, fmt.Sprintf("spec.manifests[%d]", index), s.job.set.Source(model.KindTemplate, use.name)
			d.Detail = where + ". Quote the value in the template."
		}
		return d
	}
}

// docIssueKey names one warning of checkDocuments: the assignments that report the same key share one
// diagnostic. A struct, not a string built per report: 86k assignments that each report a few
// documents built and kept as many strings.
type docIssueKey struct {
	check, template  string
	index            int
	what, kind, name string
}

// docIssueTally is every report of one docIssueKey in a render. Most assignments of a fleet that report
// a key report the same ones, so a report only counts, and the diagnostic is formatted once, for the
// report that comes first in assignment order (then in the order the assignment made its reports): the
// same warnings as listing every assignment's reports in order and merging them (mergeIssues). A list
// per assignment, with a closure per report that kept the assignment's render alive, was half the cost
// of checkDocuments at 86k.
type docIssueTally struct {
	reports atomic.Int64
	first   atomic.Uint64 // docOrder of the first report so far; only ever decreases, under mu
	mu      sync.Mutex
	build   func() model.Diagnostic // set by the report that holds first, under mu
}

// claim counts one report of order. When the report comes before every report seen so far it returns
// true with t locked: the caller sets build and unlocks.
func (t *docIssueTally) claim(order uint64) bool {
	t.reports.Add(1)
	if order >= t.first.Load() {
		return false
	}
	t.mu.Lock()
	if order >= t.first.Load() {
		t.mu.Unlock()
		return false
	}
	t.first.Store(order)
	return true
}

// docOrder places the assignment's next report: the assignment's index in the render, then the number of
// reports it made before.
func (s *assignmentRender) docOrder() uint64 {
	s.docReports++
	return uint64(s.index)<<32 | uint64(s.docReports)
}

// docTally returns the tally of key, made at its first report.
func (j *assignmentJob) docTally(key docIssueKey) *docIssueTally {
	v, ok := j.docIssues.Load(key)
	if !ok {
		t := &docIssueTally{}
		t.first.Store(math.MaxUint64)
		v, _ = j.docIssues.LoadOrStore(key, t)
	}
	return v.(*docIssueTally) //nolint:forcetypeassert // docIssues only ever holds *docIssueTally
}

// docDiagnostics are the warnings of checkDocuments, in the order of their first reports, each counting
// the other files that report it.
func (j *assignmentJob) docDiagnostics() model.Diagnostics {
	var tallies []*docIssueTally
	j.docIssues.Range(func(_, v any) bool {
		tallies = append(tallies, v.(*docIssueTally)) //nolint:forcetypeassert // docIssues only ever holds *docIssueTally
		return true
	})
	sort.Slice(tallies, func(a, b int) bool { return tallies[a].first.Load() < tallies[b].first.Load() })
	var out model.Diagnostics
	for _, t := range tallies {
		d := t.build()
		if n := t.reports.Load() - 1; n > 0 {
			d.Detail += fmt.Sprintf(" The same holds in %d more file(s).", n)
		}
		out = append(out, d)
	}
	return out
}

// holdersKey names the holders of one data key for one composed config.
type holdersKey struct{ config, key string }

// holders is platformconfig.Sources.Holders for the assignment's match, once per composed config
// (which sources match is what the config's key encodes) and data key.
func (j *assignmentJob) holders(s *assignmentRender, key string) []platformconfig.Holder {
	k := holdersKey{s.configKey, key}
	if h, ok := j.holderCache.Load(k); ok {
		return h.([]platformconfig.Holder) //nolint:forcetypeassert // holderCache only ever holds []Holder
	}
	match := platformconfig.Target{ClusterTypeName: s.ct.Metadata.Name, ClusterTypeLabels: s.ct.Metadata.Labels, DeploymentTarget: s.t.Name, TargetLabels: s.t.Labels}
	h := s.job.sources.Holders(match, key)
	j.holderCache.Store(k, h)
	return h
}
