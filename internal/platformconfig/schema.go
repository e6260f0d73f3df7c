// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// SchemaCache compiles each distinct schema text once; it is safe for concurrent use.
type SchemaCache struct {
	mu      sync.Mutex
	schemas map[string]*compiled
}

type compiled struct {
	schema *jsonschema.Schema
	err    error
}

// NewSchemaCache returns an empty cache.
func NewSchemaCache() *SchemaCache {
	return &SchemaCache{schemas: map[string]*compiled{}}
}

// Compile parses schema text (JSON, or YAML for convenience) as a draft-07 JSON Schema.
func (c *SchemaCache) Compile(text string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.schemas[text]; ok {
		return got.schema, got.err
	}
	s, err := CompileSchema(text)
	c.schemas[text] = &compiled{schema: s, err: err}
	return s, err
}

// schemaURL names the schema document. It is not a file URL, so that a relative `$ref` does not resolve
// against (and a diagnostic does not reveal) the provider's working directory.
const schemaURL = "kalypso:///config-schema.json"

// refusingLoader refuses every document that is not the schema itself.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %q is refused: a schema may only reference its own definitions (for example \"#/definitions/port\"), never a file or URL; copy the referenced schema into this one", url)
}

// CompileSchema compiles one schema text without caching.
func CompileSchema(text string) (*jsonschema.Schema, error) {
	js, err := schemaJSON(text)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	// Schemas come from platform and application teams: a `$ref` to file:// or https:// would read the
	// provider's file system (or hang on a FIFO) or reach the network. Only references inside the schema
	// document resolve; the draft-07 meta-schema is built into the library.
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return s, nil
}

// schemaJSON reads schema text as JSON first, on the whitespace-trimmed text, then as YAML. Upstream reads
// only JSON, and its own schemas start with a newline and tab-indented lines, which YAML refuses (a tab
// cannot start a token); YAML is a convenience on top.
func schemaJSON(text string) ([]byte, error) {
	trimmed := []byte(strings.TrimSpace(text))
	if json.Valid(trimmed) {
		return trimmed, nil
	}
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		var v interface{}
		jsonErr := json.Unmarshal(trimmed, &v) // not valid, so this names the first JSON syntax error
		return nil, fmt.Errorf("schema is neither JSON (%v) nor YAML (%v); write it as a JSON Schema document in JSON or YAML", jsonErr, err)
	}
	return js, nil
}

// Violation describes why config data failed a schema.
type Violation struct {
	// Field is the JSON pointer of the first failing value, for example `/replicas`.
	Field   string
	Message string
}

// Validate checks config data against a compiled schema. Top-level strings that parse as numbers are
// validated as numbers, as upstream does, because ConfigMap values are always strings.
func Validate(s *jsonschema.Schema, data map[string]interface{}) *Violation {
	inst, err := toJSONValue(numberize(data))
	if err != nil {
		return &Violation{Field: "/", Message: "config data cannot be represented as JSON: " + err.Error()}
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Violation{Field: "/", Message: err.Error()}
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	field := "/" + strings.Join(leaf.InstanceLocation, "/")
	// The first line names the internal schema URL, which means nothing to a user; keep the findings.
	lines := strings.Split(strings.TrimSpace(ve.Error()), "\n")
	if len(lines) > 1 {
		lines = lines[1:]
	}
	for i := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(lines[i]), "- ")
	}
	return &Violation{Field: field, Message: strings.Join(lines, "; ")}
}

func numberize(data map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(data))
	for k, v := range data {
		if s, ok := v.(string); ok {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				out[k] = i
				continue
			}
			// "NaN" and "Inf" parse as floats but have no JSON form; they stay strings.
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				out[k] = f
				continue
			}
		}
		out[k] = v
	}
	return out
}

// toJSONValue converts YAML-decoded values (with interface{} map keys) into JSON-decoded ones.
func toJSONValue(v interface{}) (interface{}, error) {
	b, err := json.Marshal(jsonCompatible(v))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out interface{}
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func jsonCompatible(v interface{}) interface{} {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		m := make(map[string]interface{}, len(t))
		for k, val := range t {
			m[fmt.Sprint(k)] = jsonCompatible(val)
		}
		return m
	case map[string]interface{}:
		m := make(map[string]interface{}, len(t))
		for k, val := range t {
			m[k] = jsonCompatible(val)
		}
		return m
	case []interface{}:
		l := make([]interface{}, len(t))
		for i, val := range t {
			l[i] = jsonCompatible(val)
		}
		return l
	}
	return v
}
