// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"text/template"
	"text/template/parse"
)

// dataField is one field of Data, as a bit of a fieldSet.
type dataField uint8

const (
	fieldDeploymentTargetName dataField = iota
	fieldNamespace
	fieldEnvironment
	fieldWorkspace
	fieldWorkload
	fieldClusterType
	fieldLabels
	fieldManifests
	fieldConfigData
	fieldConfigFrozen
	numFields
)

// stringFields are the string fields of Data, in dataField order: the first numStringFields fields.
const numStringFields = int(fieldClusterType) + 1

var fieldNames = [numFields]string{
	"DeploymentTargetName", "Namespace", "Environment", "Workspace", "Workload", "ClusterType",
	"Labels", "Manifests", "ConfigData", "ConfigFrozen",
}

func fieldByName(name string) (dataField, bool) {
	for i, n := range fieldNames {
		if n == name {
			return dataField(i), true
		}
	}
	return 0, false
}

// fieldSet is a set of Data fields.
type fieldSet uint16

func (s fieldSet) has(f dataField) bool { return s&(1<<f) != 0 }

// readSet is what a template reads of the Data it executes on, found statically from its parse tree.
// A template whose output is a pure function of the fields it reads can be executed once per distinct
// value of those fields (execMemo).
type readSet struct {
	// memo is false when the output may depend on more than the fields below: the template passes the
	// whole data value somewhere (`{{ . }}`, `toYaml $`, `template "x" .`, a `with` or `range` over the
	// root), defines or calls templates, uses a node kind the analysis does not know, calls a function
	// whose result differs between calls with the same arguments, or one that modifies its arguments.
	memo bool
	// key are the fields whose values the output depends on in any way.
	key fieldSet
	// splice are string fields that the template only ever prints as they are (`{{ .Namespace }}`) or
	// quoted (`{{ .Namespace | quote }}`): for a value that quoting leaves alone, the output is the output
	// for any other such value with the occurrences replaced. They are not in key.
	splice fieldSet
}

// unmemoizedFunctions are functions besides nonDeterministicFunctions whose result is not a pure
// function of their arguments: sprig's date functions read the clock when they are given something
// other than a time, durationRound measures from now, and keys and values list a map in Go's random
// iteration order. They do not warn (their usual use is deterministic) but they are not memoized.
var unmemoizedFunctions = map[string]bool{
	"date": true, "date_in_zone": true, "dateInZone": true, "htmlDate": true, "htmlDateInZone": true,
	"durationRound": true, "keys": true, "values": true,
}

// analyseReads works out the readSet of a parsed template. It errs on the side of no memo.
func analyseReads(t *template.Template) readSet {
	templates := t.Templates()
	if len(templates) != 1 || templates[0].Tree == nil || templates[0].Root == nil {
		return readSet{} // defines templates: `template` passes data the analysis does not follow
	}
	if calls(t, nonDeterministicFunctions, true) != "" || calls(t, unmemoizedFunctions, true) != "" || mayModify(t) {
		return readSet{}
	}
	a := &readAnalysis{}
	a.list(templates[0].Root, true)
	if a.everything {
		return readSet{}
	}
	rs := readSet{memo: true, key: a.key}
	for f := dataField(0); int(f) < numStringFields; f++ {
		if a.spliced.has(f) && !a.key.has(f) {
			rs.splice |= 1 << f
		}
	}
	return rs
}

type readAnalysis struct {
	key, spliced fieldSet
	everything   bool
}

// read records a field of the root data read by name; a name that is not a field of Data (an error when
// the template runs) counts as everything.
func (a *readAnalysis) read(name string, spliced bool) {
	f, ok := fieldByName(name)
	if !ok {
		a.everything = true
		return
	}
	if spliced {
		a.spliced |= 1 << f
	} else {
		a.key |= 1 << f
	}
}

// list walks a list of nodes; root says whether dot is the root data there.
func (a *readAnalysis) list(l *parse.ListNode, root bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		a.node(n, root)
	}
}

func (a *readAnalysis) node(n parse.Node, root bool) {
	switch n := n.(type) {
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
	case *parse.ActionNode:
		if name, ok := splicedField(n.Pipe, root); ok {
			a.read(name, true)
			return
		}
		a.pipe(n.Pipe, root)
	case *parse.IfNode:
		a.pipe(n.Pipe, root)
		a.list(n.List, root)
		a.list(n.ElseList, root)
	case *parse.RangeNode:
		// Inside the body dot is an element of the ranged value, whose reads the pipeline counts; in the
		// else branch dot is unchanged.
		a.pipe(n.Pipe, root)
		a.list(n.List, false)
		a.list(n.ElseList, root)
	case *parse.WithNode:
		a.pipe(n.Pipe, root)
		a.list(n.List, false)
		a.list(n.ElseList, root)
	default:
		a.everything = true // a template call, or a node this analysis does not know
	}
}

func (a *readAnalysis) pipe(p *parse.PipeNode, root bool) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		for _, arg := range c.Args {
			a.arg(arg, root)
		}
	}
}

func (a *readAnalysis) arg(n parse.Node, root bool) {
	switch n := n.(type) {
	case *parse.FieldNode:
		if root {
			a.read(n.Ident[0], false)
		}
	case *parse.VariableNode:
		// `$` is the root data wherever it appears; other variables hold values of pipelines, whose reads
		// are counted where they are declared, or elements of ranged values.
		if n.Ident[0] == "$" {
			if len(n.Ident) == 1 {
				a.everything = true
				return
			}
			a.read(n.Ident[1], false)
		}
	case *parse.DotNode:
		if root {
			a.everything = true
		}
	case *parse.ChainNode:
		a.arg(n.Node, root)
	case *parse.PipeNode:
		a.pipe(n, root)
	case *parse.IdentifierNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
	default:
		a.everything = true
	}
}

// splicedField reports the string field an action only prints, as it is or quoted: `{{ .F }}`,
// `{{ $.F }}`, `{{ .F | quote }}` or `{{ quote .F }}` (a field of the root data).
func splicedField(p *parse.PipeNode, root bool) (string, bool) {
	if p == nil || len(p.Decl) != 0 {
		return "", false
	}
	ref := func(n parse.Node) (string, bool) {
		var name string
		switch n := n.(type) {
		case *parse.FieldNode:
			if !root || len(n.Ident) != 1 {
				return "", false
			}
			name = n.Ident[0]
		case *parse.VariableNode:
			if len(n.Ident) != 2 || n.Ident[0] != "$" {
				return "", false
			}
			name = n.Ident[1]
		default:
			return "", false
		}
		f, ok := fieldByName(name)
		return name, ok && int(f) < numStringFields
	}
	isQuote := func(n parse.Node) bool {
		id, ok := n.(*parse.IdentifierNode)
		return ok && id.Ident == "quote"
	}
	switch {
	case len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1:
		return ref(p.Cmds[0].Args[0])
	case len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 2 && isQuote(p.Cmds[0].Args[0]):
		return ref(p.Cmds[0].Args[1])
	case len(p.Cmds) == 2 && len(p.Cmds[0].Args) == 1 && len(p.Cmds[1].Args) == 1 && isQuote(p.Cmds[1].Args[0]):
		return ref(p.Cmds[0].Args[0])
	}
	return "", false
}
