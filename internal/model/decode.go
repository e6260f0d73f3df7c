// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Document is one YAML document of an input stream, with its text kept verbatim.
type Document struct {
	Text   string
	Source Source
}

// SplitDocuments splits a stream at lines that are exactly `---`. Each document's text is kept verbatim,
// and empty or comment-only documents are dropped. Positions count every document, dropped or not.
func SplitDocuments(input int, text string) []Document {
	var docs []Document
	var cur strings.Builder
	index, line, startLine := 0, 1, 1
	flush := func() {
		t := cur.String()
		if !isBlankDocument(t) {
			docs = append(docs, Document{Text: t, Source: Source{Input: input, Document: index, Line: startLine}})
		}
		cur.Reset()
		index++
	}
	rest := text
	for len(rest) > 0 {
		nl := strings.IndexByte(rest, '\n')
		var ln string
		if nl < 0 {
			ln, rest = rest, ""
		} else {
			ln, rest = rest[:nl+1], rest[nl+1:]
		}
		if strings.TrimSuffix(ln, "\n") == "---" {
			flush()
			startLine = line + 1
		} else {
			cur.WriteString(ln)
		}
		line++
	}
	flush()
	return docs
}

func isBlankDocument(text string) bool {
	for _, ln := range strings.Split(text, "\n") {
		t := strings.TrimSpace(ln)
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
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
	fail := func(kind, name, field, summary, detail string) (*Entry, Diagnostics) {
		return nil, Diagnostics{{Severity: SeverityError, Summary: summary, Detail: detail, Source: doc.Source, Kind: kind, Name: name, Field: field}}
	}
	// Strict YAML rejects duplicate keys, which Kubernetes would also reject.
	js, err := yaml.YAMLToJSONStrict([]byte(doc.Text))
	if err != nil {
		return fail("", "", "", "Malformed YAML document", err.Error()+". Fix the YAML syntax (indent with spaces, no duplicate keys).")
	}
	if string(js) == "null" {
		return nil, nil
	}
	var header struct {
		APIVersion *string `json:"apiVersion"`
		Kind       *string `json:"kind"`
		Metadata   *struct {
			Name *string `json:"name"`
		} `json:"metadata"`
	}
	// Field names are case-sensitive, as in Kubernetes: `Metadata` or `apiversion` are unknown fields, not aliases.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &header); err != nil {
		return fail("", "", "", "Document is not a Kubernetes object", "expected a mapping with apiVersion, kind and metadata: "+err.Error())
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
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, obj); err != nil {
		// The case-sensitive decoder's type error is not exported; encoding/json reports the same mismatch with its path.
		probe, _ := newObject(kind)
		if perr := json.Unmarshal(js, probe); perr != nil {
			err = perr
		}
		field, detail := describeJSONError(js, err)
		return fail(kind, name, field, "Invalid field value", detail)
	}
	entry := &Entry{Kind: kind, Name: name, Object: obj, Doc: doc}
	diags := Validate(entry)
	return entry, diags
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
