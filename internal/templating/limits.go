// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
)

// Templates come from application teams (a Workload's manifests path is re-rendered) and from platform
// config values, so one template must not be able to hang a plan or exhaust the provider's memory. Go's
// text/template has no context and no budget, so the engine adds both, without goroutines:
//
//   - A call to limitCheckFunc is inserted at the start of every range body and every template body of the
//     parse tree, so `{{ range 9000000000 }}{{ end }}` and exponential template recursion stop at the
//     deadline or when the context is canceled. Every guarded function call checks too.
//   - Output goes to a writer that refuses bytes past MaxOutput.
//   - Every function that can return a string or a container is wrapped: its arguments and its result may
//     not exceed MaxOutput (sizes count shared values once per reference, as a serializer would write
//     them, so doubling a list of itself is caught), and all results of one execution together may not
//     exceed ValueBudgetFactor × MaxOutput.
//   - Functions whose result size follows from an argument (until, untilStep, seq, repeat, indent,
//     nindent, rand*, printf widths, replace, regexReplaceAll, wrapWith, join) are refused before they
//     allocate, and uniq before its quadratic loop.

const (
	// DefaultTemplateTimeout bounds one template execution (one manifest for one deployment target,
	// re-renders included) when the caller sets no deadline.
	DefaultTemplateTimeout = 10 * time.Second
	// DefaultMaxOutput is the default bound, in bytes, on one manifest's output and on any value a function builds.
	DefaultMaxOutput = 16 << 20
	// ValueBudgetFactor × MaxOutput bounds the bytes of all values the functions of one execution return.
	ValueBudgetFactor = 8
	// maxUniqElements bounds sprig's uniq, which compares every pair of elements.
	maxUniqElements = 5000
	// maxValueDepth bounds the nesting of a value that a function gets or returns.
	maxValueDepth = 10000

	limitCheckFunc = "kalypsoLimitCheck"
)

// Limits bound one template execution. The zero value means: no cancellation, a deadline of
// DefaultTemplateTimeout from the start of the execution, and DefaultMaxOutput.
type Limits struct {
	// Context stops the execution when it is canceled, for example by Terraform on Ctrl-C.
	Context context.Context
	// Deadline stops the execution; zero means DefaultTemplateTimeout from the start.
	Deadline time.Time
	// MaxOutput bounds one manifest's output and any value a function returns, in bytes; 0 means DefaultMaxOutput.
	MaxOutput int
}

// LimitKind says which limit an execution hit.
type LimitKind int

const (
	// LimitDeadline: the execution ran past its deadline.
	LimitDeadline LimitKind = iota + 1
	// LimitOutput: the output, a value or all values together grew past the size limit.
	LimitOutput
	// LimitCanceled: the context was canceled.
	LimitCanceled
)

// LimitError reports a limit that stopped a template.
type LimitError struct {
	Kind   LimitKind
	Detail string
	// Rerender is 0 when the manifest itself hit the limit, n when the text it rendered did, re-rendered for the n-th time.
	Rerender int
}

func (e *LimitError) Error() string { return e.Detail }

// AsLimitError returns the limit that stopped a template execution, if one did.
func AsLimitError(err error) (*LimitError, bool) {
	var le *LimitError
	ok := errors.As(err, &le)
	return le, ok
}

// execState is the budget of one execution. It is bound to a clone of a parsed template (functions are
// closures over it) and reset before each use; a clone is used by one execution at a time.
type execState struct {
	ctx      context.Context
	done     <-chan struct{}
	deadline time.Time
	max      int
	spent    int
	err      *LimitError
	funcs    template.FuncMap
	// memos are the Engine's, which the bound toYaml, stringify, indent and nindent use.
	memos *memos
}

func (s *execState) reset(lim Limits) {
	s.ctx = lim.Context
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	s.done = s.ctx.Done()
	s.deadline = lim.Deadline
	if s.deadline.IsZero() {
		s.deadline = time.Now().Add(DefaultTemplateTimeout)
	}
	s.max = lim.MaxOutput
	if s.max <= 0 {
		s.max = DefaultMaxOutput
	}
	s.spent = 0
	s.err = nil
}

func (s *execState) fail(kind LimitKind, format string, args ...interface{}) error {
	if s.err == nil {
		s.err = &LimitError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
	}
	return s.err
}

// check is what every list node of a template runs first.
func (s *execState) check() (string, error) {
	if s.err != nil {
		return "", s.err
	}
	select {
	case <-s.done:
		return "", s.fail(LimitCanceled, "the render was canceled")
	default:
	}
	if time.Now().After(s.deadline) {
		return "", s.fail(LimitDeadline, "the template ran past its time limit")
	}
	return "", nil
}

// guardArgs refuses arguments larger than the limit (or nested deeper than any real value).
func (s *execState) guardArgs(name string, args []reflect.Value) error {
	if _, err := s.check(); err != nil {
		return err
	}
	total := 0
	for _, a := range args {
		total += valueSize(a, s.max-total, 0)
		if total > s.max {
			return s.fail(LimitOutput, "the arguments of %s are larger than %d bytes (or nested too deeply)", name, s.max)
		}
	}
	return nil
}

// guardInterfaces is guardArgs for the typed fast paths.
func (s *execState) guardInterfaces(name string, args ...interface{}) error {
	if _, err := s.check(); err != nil {
		return err
	}
	total := 0
	for _, a := range args {
		if str, ok := a.(string); ok {
			total += 2 + len(str)
		} else if n, ok := s.memos.frozen.size(a); ok {
			total += n
		} else {
			total += valueSize(reflect.ValueOf(a), s.max-total, 0)
		}
		if total > s.max {
			return s.fail(LimitOutput, "the arguments of %s are larger than %d bytes (or nested too deeply)", name, s.max)
		}
	}
	return nil
}

// guardString is guardResult for a string result.
func (s *execState) guardString(name string, out string) error {
	if len(out) > s.max {
		return s.fail(LimitOutput, "%s returned a value larger than %d bytes (or nested too deeply)", name, s.max)
	}
	s.spent += 2 + len(out)
	if s.spent > ValueBudgetFactor*s.max {
		return s.fail(LimitOutput, "the template's functions built more than %d bytes of values in total", ValueBudgetFactor*s.max)
	}
	return nil
}

// guardResult refuses a result larger than the limit and charges it to the execution's value budget.
func (s *execState) guardResult(name string, v reflect.Value) error {
	n := valueSize(v, s.max, 0)
	if n > s.max {
		return s.fail(LimitOutput, "%s returned a value larger than %d bytes (or nested too deeply)", name, s.max)
	}
	s.spent += n
	if s.spent > ValueBudgetFactor*s.max {
		return s.fail(LimitOutput, "the template's functions built more than %d bytes of values in total", ValueBudgetFactor*s.max)
	}
	return nil
}

// estimate refuses a call whose result would be larger than the limit before the function allocates it.
func (s *execState) estimate(name string, size float64) error {
	if size > float64(s.max) {
		return s.fail(LimitOutput, "%s would build a value of about %.0f bytes, more than the limit of %d bytes", name, size, s.max)
	}
	return nil
}

// boundFuncs returns the wrapped functions for this state, built once per state.
func (s *execState) boundFuncs() template.FuncMap {
	if s.funcs != nil {
		return s.funcs
	}
	m := template.FuncMap{limitCheckFunc: s.check}
	for name, fn := range s.memos.funcs() {
		if w := s.wrap(name, fn); w != nil {
			m[name] = w
		}
	}
	s.funcs = m
	return m
}

// guardedFuncs is the function map plus the builtins that build strings (print, printf, println, html,
// js, urlquery), which template.Funcs may override. It is built once and never modified: building its
// ~200 entries for every parse was a sixth of the CPU of a fleet whose config values hold templates.
var guardedFuncs = func() template.FuncMap {
	m := make(template.FuncMap, len(funcMap)+6)
	for k, v := range funcMap {
		m[k] = v
	}
	m["print"] = fmt.Sprint
	m["printf"] = fmt.Sprintf
	m["println"] = fmt.Sprintln
	m["html"] = template.HTMLEscaper
	m["js"] = template.JSEscaper
	m["urlquery"] = template.URLQueryEscaper
	return m
}()

// guardedFuncMap returns a copy of guardedFuncs, for a caller that changes it.
func guardedFuncMap() template.FuncMap {
	return maps.Clone(guardedFuncs)
}

// parseFuncs are the functions a parse needs to know by name: guardedFuncs and the limit check. An
// execution binds its own (execState.boundFuncs). Never modified.
var parseFuncs = func() template.FuncMap {
	m := make(template.FuncMap, len(guardedFuncs)+1)
	for k, v := range guardedFuncs {
		m[k] = v
	}
	m[limitCheckFunc] = func() string { return "" }
	return m
}()

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// wrap returns fn guarded by the state, or nil when fn cannot build anything large (it returns only
// booleans and numbers).
func (s *execState) wrap(name string, fn interface{}) interface{} {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumOut() == 0 {
		return nil
	}
	pre := preChecks[name]
	if pre == nil && !returnsBuilt(t) {
		return nil
	}
	if pre == nil {
		// The signatures of the functions that templates call most, without reflect.MakeFunc's cost.
		switch f := fn.(type) {
		case func(...interface{}) string:
			return func(args ...interface{}) (string, error) {
				if err := s.guardInterfaces(name, args...); err != nil {
					return "", err
				}
				out := f(args...)
				return out, s.guardString(name, out)
			}
		case func(interface{}) string:
			return func(arg interface{}) (string, error) {
				if err := s.guardInterfaces(name, arg); err != nil {
					return "", err
				}
				out := f(arg)
				return out, s.guardString(name, out)
			}
		case func(string) string:
			return func(arg string) (string, error) {
				if err := s.guardInterfaces(name, arg); err != nil {
					return "", err
				}
				out := f(arg)
				return out, s.guardString(name, out)
			}
		}
	}
	hasErr := t.NumOut() == 2 && t.Out(1) == errorType
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		if err := s.guardArgs(name, args); err != nil {
			return s.refuse(t, hasErr, err)
		}
		if pre != nil {
			if err := pre(s, name, args); err != nil {
				return s.refuse(t, hasErr, err)
			}
		}
		var out []reflect.Value
		if t.IsVariadic() {
			out = v.CallSlice(args)
		} else {
			out = v.Call(args)
		}
		if hasErr && !out[1].IsNil() {
			return out
		}
		if err := s.guardResult(name, out[0]); err != nil {
			return s.refuse(t, hasErr, err)
		}
		return out
	}).Interface()
}

// refuse returns err from a wrapped function; a function without an error result panics with it, which
// text/template turns into an execution error.
func (s *execState) refuse(t reflect.Type, hasErr bool, err error) []reflect.Value {
	if !hasErr {
		panic(err)
	}
	return []reflect.Value{reflect.Zero(t.Out(0)), reflect.ValueOf(&err).Elem()}
}

func returnsBuilt(t reflect.Type) bool {
	switch t.Out(0).Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return false
	}
	return true
}

// valueSize is a value's size as a serializer would write it, counting a shared value once per
// reference; it stops counting past limit and reports limit+1 for values nested deeper than maxValueDepth.
func valueSize(v reflect.Value, limit, depth int) int {
	if depth > maxValueDepth {
		return limit + 1
	}
	switch v.Kind() {
	case reflect.Invalid:
		return 1
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 1
		}
		return valueSize(v.Elem(), limit, depth+1)
	case reflect.String:
		return 2 + v.Len()
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return 2 + v.Len()
		}
		n := 2
		for i := 0; i < v.Len() && n <= limit; i++ {
			n += 2 + valueSize(v.Index(i), limit-n, depth+1)
		}
		return n
	case reflect.Map:
		n := 2
		it := v.MapRange()
		for it.Next() && n <= limit {
			n += 2 + valueSize(it.Key(), limit-n, depth+1)
			n += valueSize(it.Value(), limit-n, depth+1)
		}
		return n
	case reflect.Struct:
		n := 2
		for i := 0; i < v.NumField() && n <= limit; i++ {
			if v.Type().Field(i).IsExported() {
				n += 2 + len(v.Type().Field(i).Name) + valueSize(v.Field(i), limit-n, depth+1)
			}
		}
		return n
	}
	return 8
}

// preChecks estimate, before the call, the size of what a function would build from its arguments.
var preChecks = map[string]func(s *execState, name string, args []reflect.Value) error{
	"until": func(s *execState, name string, a []reflect.Value) error {
		return s.estimate(name, abs(intArg(a, 0))*16)
	},
	"untilStep": func(s *execState, name string, a []reflect.Value) error {
		step := abs(intArg(a, 2))
		if step == 0 {
			return nil
		}
		return s.estimate(name, abs(intArg(a, 1)-intArg(a, 0))/step*16)
	},
	"seq": func(s *execState, name string, a []reflect.Value) error {
		// seq's ints arrive as one variadic slice.
		var p []reflect.Value
		if len(a) == 1 && a[0].Kind() == reflect.Slice {
			for i := 0; i < a[0].Len(); i++ {
				p = append(p, a[0].Index(i))
			}
		}
		var n float64
		switch len(p) {
		case 1:
			n = abs(intArg(p, 0))
		case 2:
			n = abs(intArg(p, 1) - intArg(p, 0))
		case 3:
			if step := abs(intArg(p, 1)); step != 0 {
				n = abs(intArg(p, 2)-intArg(p, 0)) / step
			}
		}
		return s.estimate(name, n*21)
	},
	"repeat": func(s *execState, name string, a []reflect.Value) error {
		return s.estimate(name, abs(intArg(a, 0))*float64(strArg(a, 1).Len()))
	},
	"indent":    indentCheck,
	"nindent":   indentCheck,
	"randAlpha": countCheck, "randAlphaNum": countCheck, "randAscii": countCheck, "randNumeric": countCheck,
	"randBytes": countCheck,
	"printf":    printfCheck,
	"replace": func(s *execState, name string, a []reflect.Value) error {
		old, repl, src := strArg(a, 0).String(), strArg(a, 1).String(), strArg(a, 2).String()
		n := float64(len(src)) + 1
		if old != "" {
			n = float64(strings.Count(src, old))
		}
		return s.estimate(name, float64(len(src))+n*float64(len(repl)))
	},
	"regexReplaceAll":            regexReplaceCheck,
	"mustRegexReplaceAll":        regexReplaceCheck,
	"regexReplaceAllLiteral":     regexReplaceCheck,
	"mustRegexReplaceAllLiteral": regexReplaceCheck,
	"wrapWith": func(s *execState, name string, a []reflect.Value) error {
		src := float64(strArg(a, 2).Len())
		return s.estimate(name, src+(src+1)*float64(strArg(a, 1).Len()))
	},
	"join": func(s *execState, name string, a []reflect.Value) error {
		list := a[len(a)-1]
		for list.Kind() == reflect.Interface && !list.IsNil() {
			list = list.Elem()
		}
		if list.Kind() != reflect.Slice && list.Kind() != reflect.Array {
			return nil
		}
		return s.estimate(name, float64(list.Len())*float64(strArg(a, 0).Len()))
	},
	"uniq": func(s *execState, name string, a []reflect.Value) error {
		list := a[0]
		for list.Kind() == reflect.Interface && !list.IsNil() {
			list = list.Elem()
		}
		if (list.Kind() == reflect.Slice || list.Kind() == reflect.Array) && list.Len() > maxUniqElements {
			return s.fail(LimitOutput, "%s compares every pair of elements and is refused for lists over %d elements (got %d)", name, maxUniqElements, list.Len())
		}
		return nil
	},
}

func indentCheck(s *execState, name string, a []reflect.Value) error {
	text := strArg(a, 1).String()
	return s.estimate(name, float64(len(text))+abs(intArg(a, 0))*float64(strings.Count(text, "\n")+2))
}

func countCheck(s *execState, name string, a []reflect.Value) error {
	return s.estimate(name, abs(intArg(a, 0))*4)
}

var printfNumber = regexp.MustCompile(`%[-+# 0]*(\*|\[\d+\]\*|\d+)?(\.(\*|\[\d+\]\*|\d+)?)?`)

// printfCheck refuses a width or precision that would pad past the limit, written in the format or
// taken from an argument with `*`.
func printfCheck(s *execState, name string, a []reflect.Value) error {
	format := strArg(a, 0).String()
	star := false
	for _, m := range printfNumber.FindAllStringSubmatch(format, -1) {
		for _, g := range []string{m[1], m[3]} {
			if strings.HasSuffix(g, "*") {
				star = true
				continue
			}
			if len(g) > 9 {
				return s.estimate(name, 1e10)
			}
			var n int
			_, _ = fmt.Sscan(g, &n)
			if err := s.estimate(name, float64(n)); err != nil {
				return err
			}
		}
	}
	if star && len(a) > 1 {
		rest := a[1]
		for i := 0; rest.Kind() == reflect.Slice && i < rest.Len(); i++ {
			if err := s.estimate(name, abs(intValue(rest.Index(i)))); err != nil {
				return err
			}
		}
	}
	return nil
}

func regexReplaceCheck(s *execState, name string, a []reflect.Value) error {
	re, compileErr := regexp.Compile(strArg(a, 0).String())
	if compileErr != nil {
		return nil //nolint:nilerr // the function itself reports an invalid expression
	}
	src, repl := strArg(a, 1).String(), strArg(a, 2).String()
	matches := float64(len(re.FindAllStringIndex(src, -1)))
	per := float64(len(repl))
	if !strings.HasSuffix(name, "Literal") && strings.Contains(repl, "$") {
		// Each $group expands to at most the whole source.
		per += float64(strings.Count(repl, "$")) * float64(len(src))
	}
	return s.estimate(name, float64(len(src))+matches*per)
}

func strArg(a []reflect.Value, i int) reflect.Value {
	if i >= len(a) {
		return reflect.ValueOf("")
	}
	v := a[i]
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.String {
		return reflect.ValueOf(fmt.Sprint(v.Interface()))
	}
	return v
}

func intArg(a []reflect.Value, i int) float64 {
	if i >= len(a) {
		return 0
	}
	return intValue(a[i])
}

// intValue reads a number the way sprig's toInt does for the kinds templates pass.
func intValue(v reflect.Value) float64 {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.String:
		var f float64
		if _, err := fmt.Sscan(v.String(), &f); err == nil {
			return f
		}
	}
	return 0
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// insertLimitChecks puts a call to limitCheckFunc at the start of the body of every range and of every
// template t defines: only a range iteration or a template call can repeat work, so every loop and every
// recursion passes a check.
func insertLimitChecks(t *template.Template) {
	for _, assoc := range t.Templates() {
		if assoc.Tree != nil && assoc.Root != nil {
			walkRanges(assoc.Root)
			prependCheck(assoc.Root)
		}
	}
}

func walkRanges(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkRanges(c)
		}
	case *parse.IfNode:
		walkRanges(n.List)
		walkRanges(n.ElseList)
	case *parse.WithNode:
		walkRanges(n.List)
		walkRanges(n.ElseList)
	case *parse.RangeNode:
		if n.List == nil {
			n.List = &parse.ListNode{NodeType: parse.NodeList, Pos: n.Pos}
		}
		walkRanges(n.List)
		walkRanges(n.ElseList)
		prependCheck(n.List)
	}
}

func prependCheck(l *parse.ListNode) {
	check := &parse.ActionNode{NodeType: parse.NodeAction, Pos: l.Pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: l.Pos,
		Cmds: []*parse.CommandNode{{NodeType: parse.NodeCommand, Pos: l.Pos, Args: []parse.Node{parse.NewIdentifier(limitCheckFunc).SetPos(l.Pos)}}}}}
	l.Nodes = append([]parse.Node{check}, l.Nodes...)
}

// budgetWriter is the output of one execution: it refuses bytes past the limit.
type budgetWriter struct {
	buf strings.Builder
	s   *execState
}

func (w *budgetWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.s.max {
		return 0, w.s.fail(LimitOutput, "the template's output grew past %d bytes", w.s.max)
	}
	return w.buf.Write(p)
}
