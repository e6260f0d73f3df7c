// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package templating executes Kalypso Template manifests: Go text/template with sprig and the
// scheduler's own functions, re-executed while the output still holds template actions.
package templating

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/mitchellh/hashstructure"
	yamlv3 "gopkg.in/yaml.v3"
)

// MaxRenderDepth bounds re-rendering, so that a value that renders to itself cannot loop forever.
const MaxRenderDepth = 10

// Data is what a template sees.
type Data struct {
	DeploymentTargetName string
	Namespace            string
	Environment          string
	Workspace            string
	Workload             string
	Labels               map[string]string
	Manifests            map[string]string
	ClusterType          string
	// ConfigData may be shared with other Data values: Execute copies it before it runs a template
	// that can modify it (sprig's set, unset and merge functions), so the owner's map never changes.
	ConfigData map[string]interface{}
	// ConfigFrozen promises that nobody will modify ConfigData (templates that would get a copy), which
	// lets toYaml memoize it by identity.
	ConfigFrozen bool

	configOwned bool
}

var funcMap = func() template.FuncMap {
	m := sprig.TxtFuncMap()
	m["toYaml"] = ToYAML
	m["indent"] = Indent
	m["nindent"] = Nindent
	m["stringify"] = Stringify
	m["hash"] = Hash
	m["unquote"] = Unquote
	// The provider's environment holds Git and cloud credentials, and template output is re-rendered, so a
	// deployment target's manifests path such as "{{ env \"GITHUB_TOKEN\" }}" would otherwise leak a secret
	// into the pushed tree. DNS lookups would make plans depend on the network. Both are refused.
	for _, name := range disabledFunctions {
		m[name] = disabledFunction(name)
	}
	return m
}()

// disabledFunctions are sprig functions that templates may not call.
var disabledFunctions = []string{"env", "expandenv", "getHostByName"}

func disabledFunction(name string) func(...interface{}) (string, error) {
	return func(...interface{}) (string, error) {
		return "", fmt.Errorf("%s is disabled in Kalypso templates: templates must not read the provider's environment or network; pass values through platform config instead", name)
	}
}

// ToYAML is yaml.v3 Marshal with the final newline trimmed; errors render as "". Templates call it
// through their Engine's memos (memos.toYAML), which return the same text.
func ToYAML(v interface{}) string {
	return marshalYAML(v)
}

func marshalYAML(v interface{}) string {
	b, err := yamlv3.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// Stringify, like upstream's, acts only on a map[string]interface{} (a sprig dict, or the config itself):
// each of its values that is a map[string]interface{} or a []interface{} is replaced by its yaml.v3 text,
// final newline kept (so ToYAML prints it as a `|` block), then the map is rendered with ToYAML. Other
// types, including yaml.v2 maps (map[interface{}]interface{}) and .Labels (map[string]string), are ToYAML.
func Stringify(v interface{}) string {
	return stringify(v, ToYAML)
}

// stringify is Stringify with toYAML as ToYAML.
func stringify(v interface{}, toYAML func(interface{}) string) string {
	in, ok := v.(map[string]interface{})
	if !ok {
		return toYAML(v)
	}
	out := make(map[string]interface{}, len(in))
	for key, val := range in {
		out[key] = val
		switch val.(type) {
		case map[string]interface{}, []interface{}:
			b, err := yamlv3.Marshal(val)
			if err != nil {
				// Upstream renders the whole call as "" when one value cannot be marshalled.
				return ""
			}
			out[key] = string(b)
		}
	}
	return toYAML(out)
}

// Hash is mitchellh/hashstructure (v1) of the value.
func Hash(v interface{}) (uint64, error) {
	return hashstructure.Hash(v, nil)
}

// Unquote trims spaces, then double quotes, then single quotes, from a string. Any other value (a number,
// a map, nil) gives "", as upstream does, rather than failing the render.
func Unquote(v interface{}) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return strings.Trim(strings.Trim(strings.TrimSpace(s), `"`), `'`)
}

// Engine parses each distinct manifest text once and is safe for concurrent use.
type Engine struct {
	mu     sync.RWMutex
	parsed map[string]*parseResult
	// memos are the caches of the template functions, shared by every execution of this engine.
	memos *memos
	// nested holds the parses of re-rendered output's actions (nested.go).
	nested nestedParses
}

type parseResult struct {
	tmpl     *template.Template
	err      error
	modifies bool
	// reads is what the template reads of its data, for ExecuteAllMemo.
	reads readSet

	// outputSize is the length of the last output, the capacity the next execution starts with. Outputs
	// of one manifest across a fleet have nearly the same length, and growing the buffer from empty
	// copied each output several times (a quarter of a render's allocations at 86k assignments).
	outputSize atomic.Int64

	// free holds clones of tmpl whose functions are bound to their own execution budget; a clone serves
	// one execution at a time, so there are at most as many as executions ran at once.
	mu   sync.Mutex
	free []*boundTemplate
}

type boundTemplate struct {
	tmpl  *template.Template
	state *execState
}

func (p *parseResult) get(m *memos) *boundTemplate {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	st := &execState{memos: m}
	c := template.Must(p.tmpl.Clone())
	c.Funcs(st.boundFuncs())
	return &boundTemplate{tmpl: c, state: st}
}

func (p *parseResult) put(b *boundTemplate) {
	p.mu.Lock()
	p.free = append(p.free, b)
	p.mu.Unlock()
}

// NewEngine returns an engine with an empty parse cache.
func NewEngine() *Engine {
	return &Engine{parsed: map[string]*parseResult{}, memos: newMemos()}
}

func (e *Engine) parse(text string) *parseResult {
	e.mu.RLock()
	got, ok := e.parsed[text]
	e.mu.RUnlock()
	if ok {
		return got
	}
	t, err := parseTemplate(text)
	got = &parseResult{tmpl: t, err: err}
	if err == nil {
		got.modifies = mayModify(t)
		got.reads = analyseReads(t)
	}
	e.mu.Lock()
	e.parsed[text] = got
	e.mu.Unlock()
	return got
}

// parseTemplate parses text with the function map and inserts the limit checks.
func parseTemplate(text string) (*template.Template, error) {
	t, err := template.New("manifest").Funcs(parseFuncs).Parse(text)
	if err != nil {
		return nil, err
	}
	insertLimitChecks(t)
	return t, nil
}

// ExecuteLimited renders one manifest within lim. While the result still contains `{{`, it is executed
// again, up to MaxRenderDepth times; the re-renders share the limits. An error from a limit is a *LimitError.
func (e *Engine) ExecuteLimited(text string, data *Data, lim Limits) (string, error) {
	out, _, err := e.executeParsed(e.parse(text), data, lim)
	return out, err
}

// execInfo is what an execution tells the memo besides its output.
type execInfo struct {
	// rerendered: the output held template actions and was executed again, which may read other fields.
	rerendered bool
	// spent is the value budget the functions of the first execution used (execState.spent).
	spent int
	// rereads is what the re-renders read, with memo false unless every one of them took the cut path
	// (rerenderCut) and its actions can be memoized.
	rereads readSet
}

// executeParsed is ExecuteLimited of a parsed text.
func (e *Engine) executeParsed(parsed *parseResult, data *Data, lim Limits) (string, execInfo, error) {
	var info execInfo
	if parsed.err != nil {
		return "", info, fmt.Errorf("template does not parse: %w", parsed.err)
	}
	if parsed.modifies {
		data.ownConfig()
	} else if data.ConfigFrozen && !data.configOwned {
		e.memos.frozen.freeze(data.ConfigData)
	}
	bound := parsed.get(e.memos)
	defer parsed.put(bound)
	st := bound.state
	st.reset(lim)
	out, err := run(bound.tmpl, data, st, int(parsed.outputSize.Load()))
	if err != nil {
		return "", info, err
	}
	info.spent = st.spent
	parsed.outputSize.Store(int64(len(out)))
	info.rereads.memo = true
	for depth := 1; strings.Contains(out, "{{"); depth++ {
		info.rerendered = true
		if depth >= MaxRenderDepth {
			return "", info, fmt.Errorf("output still contains template actions after %d renders; a config value probably renders to itself (look for `{{` in ConfigMap values)", MaxRenderDepth)
		}
		next, done, reads, err := e.rerenderCut(out, data, st)
		if !done {
			next, err = rerenderWhole(out, data, st)
		}
		info.rereads = readSet{memo: info.rereads.memo && reads.memo, key: info.rereads.key | reads.key, splice: info.rereads.splice | reads.splice}
		if err != nil {
			if le, ok := AsLimitError(err); ok {
				again := *le
				again.Rerender = depth
				return "", info, &again
			}
			return "", info, fmt.Errorf("re-rendering output that contains `{{` (render %d): %w", depth+1, err)
		}
		out = next
	}
	info.spent = st.spent
	return out, info, nil
}

// rerenderWhole parses text (output holding `{{`) and executes it within st.
func rerenderWhole(text string, data *Data, st *execState) (string, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return "", fmt.Errorf("template does not parse: %w", err)
	}
	t.Funcs(st.boundFuncs())
	if mayModify(t) {
		data.ownConfig()
	}
	return run(t, data, st, len(text))
}

// run executes t within st's limits into a buffer of sizeHint bytes to start with. A strings.Builder
// hands its bytes over as the result without the copy that bytes.Buffer.String makes.
func run(t *template.Template, data *Data, st *execState, sizeHint int) (out string, err error) {
	return runBetween("", t, "", data, st, sizeHint)
}

// runBetween is run with prefix written before t's output and suffix after it, within the same limits.
func runBetween(prefix string, t *template.Template, suffix string, data *Data, st *execState, sizeHint int) (out string, err error) {
	// Sprig and reflection-heavy functions can panic on odd input; a template must never crash the provider.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template execution panicked: %v", r)
		}
		if st.err != nil {
			out, err = "", st.err
		}
	}()
	if _, err := st.check(); err != nil {
		return "", err
	}
	w := &budgetWriter{s: st}
	// A little slack, so that an output a few bytes longer than the last (longer names) does not double
	// the buffer, but not much: the result keeps the buffer's capacity, and a fleet's tree is hundreds of
	// megabytes. Capped, so that one huge output does not make every later one allocate as much.
	w.buf.Grow(min(sizeHint+min(sizeHint/8, 256), maxSizeHint))
	if _, err := io.WriteString(w, prefix); err != nil {
		return "", err
	}
	if err := t.Execute(w, data); err != nil {
		return "", fmt.Errorf("template execution failed: %w", err)
	}
	if _, err := io.WriteString(w, suffix); err != nil {
		return "", err
	}
	return w.buf.String(), nil
}

// maxSizeHint caps the buffer an execution starts with.
const maxSizeHint = 1 << 20

// ExecuteAllLimited renders every manifest of a template, each within lim, and drops results equal to "".
func (e *Engine) ExecuteAllLimited(manifests []string, data *Data, lim Limits) ([]string, error) {
	out := make([]string, 0, len(manifests))
	for i, m := range manifests {
		r, err := e.ExecuteLimited(m, data, lim)
		if err != nil {
			return nil, fmt.Errorf("manifests[%d]: %w", i, err)
		}
		if r != "" {
			out = append(out, r)
		}
	}
	return out, nil
}
