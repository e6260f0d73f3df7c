// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package crdschema checks Kubernetes documents against the real CustomResourceDefinitions under
// testdata/crds, the way an API server with strict field validation (kubectl apply's default) would:
// the document's apiVersion and kind pick a served version of a CRD, and the document must satisfy that
// version's openAPIV3Schema.
//
// The structural-schema subset used by CRDs is plain JSON Schema apart from a few OpenAPI and Kubernetes
// extensions, which are translated here:
//   - `nullable: true` also allows null;
//   - `x-kubernetes-int-or-string: true` allows an integer or a string;
//   - an object schema with `properties` and no `additionalProperties` rejects fields it does not list
//     (strict field validation), unless it has `x-kubernetes-preserve-unknown-fields: true`;
//   - OpenAPI's boolean `exclusiveMinimum`/`exclusiveMaximum` become draft-07's numeric ones;
//   - fields whose value is null are dropped before validation, as the API server prunes them (and
//     decodes a null ObjectMeta field as empty);
//   - `metadata` gets the checks the API server makes on every object: a DNS-subdomain name, and string
//     labels and annotations.
//
// One core kind is built in, as it has no CRD: v1 ConfigMap (platform config), with the fields of
// k8s.io/api/core/v1.ConfigMap and the API server's key check (IsConfigMapKey).
//
// CEL rules (`x-kubernetes-validations`) are not evaluated; Rules lists them, so that a test can check
// that the fields they constrain are left alone. `format` is not asserted.
package crdschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// Dir is the absolute path of testdata/crds.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "crds")
}

var (
	defaultOnce sync.Once
	defaultSet  *Set
	defaultErr  error
)

// Default returns the CRDs of testdata/crds, loaded once.
func Default(t testing.TB) *Set {
	t.Helper()
	defaultOnce.Do(func() { defaultSet, defaultErr = Load(Dir()) })
	if defaultErr != nil {
		t.Fatalf("loading CRDs: %v", defaultErr)
	}
	return defaultSet
}

// GVK names one served kind.
type GVK struct{ Group, Version, Kind string }

func (g GVK) String() string {
	if g.Group == "" {
		return g.Version + ", Kind=" + g.Kind
	}
	return g.Group + "/" + g.Version + ", Kind=" + g.Kind
}

// Rule is one CEL rule of a served version, which Validate does not evaluate.
type Rule struct {
	GVK GVK
	// Path is the JSON pointer of the object the rule applies to, for example `/spec`.
	Path    string
	Rule    string
	Message string
}

// Set holds the compiled schema of every served version of the loaded CRDs.
type Set struct {
	schemas map[GVK]*jsonschema.Schema
	rules   []Rule
}

// Load reads every *.yaml file below dir as CRDs.
func Load(dir string) (*Set, error) {
	s := &Set{schemas: map[GVK]*jsonschema.Schema{}}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs, err := Documents(string(text))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for i, doc := range docs {
			if err := s.add(doc); err != nil {
				return fmt.Errorf("%s, document %d: %w", path, i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(s.schemas) == 0 {
		return nil, fmt.Errorf("no CRDs below %s", dir)
	}
	configMap, err := compile("v1, Kind=ConfigMap", configMapSchema())
	if err != nil {
		return nil, err
	}
	s.schemas[GVK{"", "v1", "ConfigMap"}] = configMap
	return s, nil
}

// Kinds lists the served kinds, sorted.
func (s *Set) Kinds() []GVK {
	out := make([]GVK, 0, len(s.schemas))
	for g := range s.schemas {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Rules lists the CEL rules that Validate does not evaluate.
func (s *Set) Rules() []Rule { return s.rules }

type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema struct {
				OpenAPIV3Schema map[string]interface{} `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func (s *Set) add(doc string) error {
	var c crd
	if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
		return err
	}
	if c.Kind != "CustomResourceDefinition" {
		return fmt.Errorf("kind %q is not CustomResourceDefinition", c.Kind)
	}
	for _, v := range c.Spec.Versions {
		if !v.Served {
			continue
		}
		if v.Schema.OpenAPIV3Schema == nil {
			return fmt.Errorf("version %s has no openAPIV3Schema", v.Name)
		}
		gvk := GVK{c.Spec.Group, v.Name, c.Spec.Names.Kind}
		root := v.Schema.OpenAPIV3Schema
		js := s.convert(gvk, "", root)
		props, _ := js["properties"].(map[string]interface{})
		if props == nil {
			props = map[string]interface{}{}
			js["properties"] = props
		}
		props["metadata"] = objectMetaSchema()
		js["required"] = appendUnique(js["required"], "apiVersion", "kind", "metadata")
		compiled, err := compile(gvk.String(), js)
		if err != nil {
			return fmt.Errorf("%s: %w", gvk, err)
		}
		s.schemas[gvk] = compiled
	}
	return nil
}

// convert translates one OpenAPI v3 structural schema node into draft-07 JSON Schema.
func (s *Set) convert(gvk GVK, path string, in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for _, k := range []string{"type", "enum", "pattern", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
		"minProperties", "maxProperties", "multipleOf", "required", "minimum", "maximum"} {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	for _, k := range []string{"Minimum", "Maximum"} {
		if b, _ := in["exclusive"+k].(bool); b {
			out["exclusive"+k] = in[strings.ToLower(k)]
			delete(out, strings.ToLower(k))
		}
	}
	if props, ok := in["properties"].(map[string]interface{}); ok {
		conv := make(map[string]interface{}, len(props))
		for name, p := range props {
			if pm, ok := p.(map[string]interface{}); ok {
				conv[name] = s.convert(gvk, path+"/"+name, pm)
			}
		}
		out["properties"] = conv
	}
	if items, ok := in["items"].(map[string]interface{}); ok {
		out["items"] = s.convert(gvk, path+"/*", items)
	}
	switch ap := in["additionalProperties"].(type) {
	case bool:
		out["additionalProperties"] = ap
	case map[string]interface{}:
		out["additionalProperties"] = s.convert(gvk, path+"/*", ap)
	}
	for _, k := range []string{"anyOf", "allOf", "oneOf"} {
		if list, ok := in[k].([]interface{}); ok {
			conv := make([]interface{}, 0, len(list))
			for _, e := range list {
				if em, ok := e.(map[string]interface{}); ok {
					conv = append(conv, s.convert(gvk, path, em))
				}
			}
			out[k] = conv
		}
	}
	if not, ok := in["not"].(map[string]interface{}); ok {
		out["not"] = s.convert(gvk, path, not)
	}
	preserve, _ := in["x-kubernetes-preserve-unknown-fields"].(bool)
	if intOrString, _ := in["x-kubernetes-int-or-string"].(bool); intOrString {
		delete(out, "type")
		if _, ok := out["anyOf"]; !ok {
			out["anyOf"] = []interface{}{map[string]interface{}{"type": "integer"}, map[string]interface{}{"type": "string"}}
		}
	}
	if _, hasProps := out["properties"]; hasProps && out["type"] == "object" && !preserve {
		if _, set := out["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
	}
	if nullable, _ := in["nullable"].(bool); nullable {
		if t, ok := out["type"].(string); ok {
			out["type"] = []interface{}{t, "null"}
		}
		if enum, ok := out["enum"].([]interface{}); ok {
			out["enum"] = append(enum, nil)
		}
	}
	if rules, ok := in["x-kubernetes-validations"].([]interface{}); ok {
		for _, r := range rules {
			rm, _ := r.(map[string]interface{})
			rule, _ := rm["rule"].(string)
			msg, _ := rm["message"].(string)
			p := path
			if p == "" {
				p = "/"
			}
			s.rules = append(s.rules, Rule{GVK: gvk, Path: p, Rule: rule, Message: msg})
		}
	}
	return out
}

// objectMetaSchema is what the API server checks of metadata for any object it creates.
func objectMetaSchema() map[string]interface{} {
	stringMap := map[string]interface{}{"type": "object", "additionalProperties": map[string]interface{}{"type": "string"}}
	labelValue := map[string]interface{}{"type": "string", "maxLength": 63, "pattern": `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`}
	return map[string]interface{}{
		"type":     "object",
		"required": []interface{}{"name"},
		"properties": map[string]interface{}{
			"name": map[string]interface{}{
				"type": "string", "maxLength": 253,
				"pattern": `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
			},
			"namespace":   map[string]interface{}{"type": "string", "maxLength": 63, "pattern": `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`},
			"labels":      map[string]interface{}{"type": "object", "additionalProperties": labelValue},
			"annotations": stringMap,
		},
	}
}

// configMapSchema is core/v1 ConfigMap: data and binaryData map keys of at most 253 characters of
// [-._a-zA-Z0-9] to strings, and immutable.
func configMapSchema() map[string]interface{} {
	keyedStrings := map[string]interface{}{
		"type":                 "object",
		"propertyNames":        map[string]interface{}{"pattern": `^[-._a-zA-Z0-9]+$`, "maxLength": 253},
		"additionalProperties": map[string]interface{}{"type": "string"},
	}
	return map[string]interface{}{
		"type":                 "object",
		"required":             []interface{}{"apiVersion", "kind", "metadata"},
		"additionalProperties": false,
		"properties": map[string]interface{}{
			"apiVersion": map[string]interface{}{"type": "string"},
			"kind":       map[string]interface{}{"type": "string"},
			"metadata":   objectMetaSchema(),
			"data":       keyedStrings,
			"binaryData": keyedStrings,
			"immutable":  map[string]interface{}{"type": "boolean"},
		},
	}
}

func appendUnique(existing interface{}, names ...string) []interface{} {
	list, _ := existing.([]interface{})
	out := append([]interface{}{}, list...)
	for _, n := range names {
		found := false
		for _, e := range out {
			if e == n {
				found = true
			}
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

func compile(name string, schema map[string]interface{}) (*jsonschema.Schema, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	// The URL only names the schema in validation errors.
	url := "urn:crd:" + strings.NewReplacer(" ", "", ",", ":", "=", ":").Replace(name)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Validate checks one YAML (or JSON) document. It fails when no loaded CRD serves the document's
// apiVersion and kind.
func (s *Set) Validate(doc string) error {
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return fmt.Errorf("not an object: %w", err)
	}
	group, version := "", head.APIVersion
	if i := strings.LastIndex(head.APIVersion, "/"); i >= 0 {
		group, version = head.APIVersion[:i], head.APIVersion[i+1:]
	}
	gvk := GVK{group, version, head.Kind}
	schema, ok := s.schemas[gvk]
	if !ok {
		return fmt.Errorf("no loaded CRD serves %s", gvk)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	if err := schema.Validate(pruneNulls(inst)); err != nil {
		return fmt.Errorf("%s: %w", gvk, err)
	}
	return nil
}

// pruneNulls drops object fields whose value is null, recursively.
func pruneNulls(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			t[k] = pruneNulls(e)
		}
	case []interface{}:
		for i, e := range t {
			t[i] = pruneNulls(e)
		}
	}
	return v
}

// Documents splits a manifest stream as the provider's model does, and fails where the model reports an error.
func Documents(text string) ([]string, error) {
	docs, diags := model.SplitDocuments(0, text)
	if diags.HasError() {
		return nil, fmt.Errorf("%v", diags)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Text
	}
	return out, nil
}
