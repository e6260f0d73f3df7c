// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// Limits bound one config schema before it is compiled. Schemas come from application teams (a
// Workload's configSchemas) as well as from the platform, and the compiler has no context: a schema nested
// thousands of levels deep takes minutes and hundreds of MB to compile. Checked first, these limits keep
// every compile short, so that the render's deadline and cancellation, checked before each compile and
// each validation, are never far away.
type Limits struct {
	// MaxDepth bounds the nesting of objects and arrays in the schema document; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxBytes bounds the schema text; 0 means DefaultMaxBytes.
	MaxBytes int
}

const (
	// DefaultMaxDepth is Limits.MaxDepth's default: a config nested 30 objects deep needs about 62 levels
	// (each object is "properties" and the property's schema).
	DefaultMaxDepth = 128
	// DefaultMaxBytes is Limits.MaxBytes's default, 1 MiB (a Kubernetes object holds at most about 1.5 MB).
	DefaultMaxBytes = 1 << 20
)

func (l Limits) resolved() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// LimitError is a schema over one of its Limits.
type LimitError struct {
	// Depth is true for MaxDepth, false for MaxBytes.
	Depth      bool
	Got, Limit int
}

func (e *LimitError) Error() string {
	if e.Depth {
		return fmt.Sprintf("the schema nests objects and arrays more than %d levels deep (the limit)", e.Limit)
	}
	return fmt.Sprintf("the schema is %d bytes, more than the limit of %d", e.Got, e.Limit)
}

// SchemaCache compiles each distinct schema text once; it is safe for concurrent use, and a slow compile
// of one text does not hold up another.
type SchemaCache struct {
	mu      sync.Mutex
	schemas map[string]*compiled
}

type compiled struct {
	prepOnce sync.Once
	js       []byte
	depth    int
	prepErr  error

	compileOnce sync.Once
	schema      *jsonschema.Schema
	err         error
}

// NewSchemaCache returns an empty cache.
func NewSchemaCache() *SchemaCache {
	return &SchemaCache{schemas: map[string]*compiled{}}
}

// Compile parses schema text (JSON, or YAML for convenience) as a draft-07 JSON Schema, within limits:
// a text over them is a *LimitError and is not compiled. A canceled or expired ctx returns its error
// before anything is compiled.
func (c *SchemaCache) Compile(ctx context.Context, text string, limits Limits) (*jsonschema.Schema, error) {
	limits = limits.resolved()
	if len(text) > limits.MaxBytes {
		return nil, &LimitError{Got: len(text), Limit: limits.MaxBytes}
	}
	c.mu.Lock()
	e, ok := c.schemas[text]
	if !ok {
		e = &compiled{}
		c.schemas[text] = e
	}
	c.mu.Unlock()
	e.prepOnce.Do(func() {
		if e.js, e.prepErr = schemaJSON(text); e.prepErr == nil {
			e.depth = jsonDepth(e.js, DefaultMaxBytes)
		}
	})
	if e.prepErr != nil {
		return nil, e.prepErr
	}
	if e.depth > limits.MaxDepth {
		return nil, &LimitError{Depth: true, Got: e.depth, Limit: limits.MaxDepth}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.compileOnce.Do(func() { e.schema, e.err = compileJSON(e.js) })
	return e.schema, e.err
}

// jsonDepth is the deepest nesting of objects and arrays in the JSON text js, counted up to stopAt.
func jsonDepth(js []byte, stopAt int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range js {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > deepest {
				if deepest = depth; deepest >= stopAt {
					return deepest
				}
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// schemaURL names the schema document. It is not a file URL, so that a relative `$ref` does not resolve
// against (and a diagnostic does not reveal) the provider's working directory.
const schemaURL = "kalypso:///config-schema.json"

// refusingLoader refuses every document that is not the schema itself.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %q is refused: a schema may only reference its own definitions (for example \"#/definitions/port\"), never a file or URL; copy the referenced schema into this one", url)
}

// CompileSchema compiles one schema text without caching, within the default Limits.
func CompileSchema(text string) (*jsonschema.Schema, error) {
	return NewSchemaCache().Compile(context.Background(), text, Limits{})
}

// CheckSchemaText reports a schema text that is neither JSON nor YAML, and compiles it when it is within
// the default Limits. A text over them is not compiled here, since the provider's limits may be raised;
// the render checks it against the limits in force.
func CheckSchemaText(text string) error {
	_, err := CompileSchema(text)
	var le *LimitError
	if errors.As(err, &le) {
		return nil
	}
	return err
}

func compileJSON(js []byte) (*jsonschema.Schema, error) {
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

// Instance is config data in the form a schema validates: converted to JSON values, with top-level
// strings that parse as numbers made numbers, as upstream does, because ConfigMap values are always
// strings. The conversion (a JSON round trip) costs more than most validations and depends only on the
// data, so a render that validates one composed config against several schemas (a ConfigSchema and each
// Workload's own) converts it once.
type Instance struct {
	value interface{}
	err   error
}

// NewInstance converts data for validation; a failure is reported by each Validate.
func NewInstance(data map[string]interface{}) *Instance {
	inst, err := toJSONValue(numberize(data))
	return &Instance{value: inst, err: err}
}

// Validate checks the instance against a compiled schema.
func (in *Instance) Validate(s *jsonschema.Schema) *Violation {
	if in.err != nil {
		return &Violation{Field: "/", Message: "config data cannot be represented as JSON: " + in.err.Error()}
	}
	err := s.Validate(in.value)
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
