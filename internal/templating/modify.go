// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"text/template"
	"text/template/parse"

	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
)

// modifyingFunctions are the functions that change a map or list passed to them. Every other function
// of the map (sprig's list and dict functions included) returns new values and leaves its arguments alone.
var modifyingFunctions = map[string]bool{
	"set": true, "unset": true,
	"merge": true, "mergeOverwrite": true, "mustMerge": true, "mustMergeOverwrite": true,
}

// mayModify reports whether t, or a template it defines, calls a function that modifies its arguments.
// It only looks at names, so it errs on the side of true: an unused branch counts too.
func mayModify(t *template.Template) bool {
	return calls(t, modifyingFunctions, true) != ""
}

// nonDeterministicFunctions are the functions whose result differs between two renders of the same input.
var nonDeterministicFunctions = map[string]bool{
	"now": true, "ago": true, "uuidv4": true, "randAlphaNum": true, "randAlpha": true, "randNumeric": true, "randAscii": true,
	"randBytes": true, "randInt": true, "shuffle": true, "genPrivateKey": true, "genCA": true, "genCAWithKey": true,
	"genSelfSignedCert": true, "genSelfSignedCertWithKey": true, "genSignedCert": true, "genSignedCertWithKey": true,
	"htpasswd": true, "bcrypt": true, "encryptAES": true,
}

// NonDeterministicCall returns the first function text calls whose result differs on every render
// (`uuidv4`, `now`, `randAlphaNum`, ...), or "" (also for text that does not parse: that is reported
// when it runs).
func NonDeterministicCall(text string) string {
	t, err := parseTemplate(text)
	if err != nil {
		return ""
	}
	return calls(t, nonDeterministicFunctions, false)
}

// unknownNode is what calls returns for a node type it does not know, when unknownCounts.
const unknownNode = "(unknown template node)"

// calls returns the first function of names that t, or a template it defines, calls, or "". It only
// looks at names, so an unused branch counts too.
func calls(t *template.Template, names map[string]bool, unknownCounts bool) string {
	for _, assoc := range t.Templates() {
		if assoc.Tree == nil {
			continue
		}
		if got := nodeCalls(assoc.Root, names); got != "" && (got != unknownNode || unknownCounts) {
			return got
		}
	}
	return ""
}

func nodeCalls(n parse.Node, names map[string]bool) string {
	each := func(nodes ...parse.Node) string {
		for _, c := range nodes {
			if got := nodeCalls(c, names); got != "" {
				return got
			}
		}
		return ""
	}
	switch n := n.(type) {
	case nil:
		return ""
	case *parse.ListNode:
		if n == nil {
			return ""
		}
		return each(n.Nodes...)
	case *parse.ActionNode:
		return nodeCalls(n.Pipe, names)
	case *parse.PipeNode:
		if n == nil {
			return ""
		}
		cmds := make([]parse.Node, len(n.Cmds))
		for i, c := range n.Cmds {
			cmds[i] = c
		}
		return each(cmds...)
	case *parse.CommandNode:
		return each(n.Args...)
	case *parse.IdentifierNode:
		if names[n.Ident] {
			return n.Ident
		}
		return ""
	case *parse.ChainNode:
		return nodeCalls(n.Node, names)
	case *parse.IfNode:
		return branchCalls(&n.BranchNode, names)
	case *parse.RangeNode:
		return branchCalls(&n.BranchNode, names)
	case *parse.WithNode:
		return branchCalls(&n.BranchNode, names)
	case *parse.TemplateNode:
		return nodeCalls(n.Pipe, names)
	case *parse.TextNode, *parse.CommentNode, *parse.FieldNode, *parse.VariableNode, *parse.DotNode,
		*parse.NilNode, *parse.BoolNode, *parse.NumberNode, *parse.StringNode, *parse.BreakNode, *parse.ContinueNode:
		return ""
	}
	// A node type this walker does not know: the caller decides whether it counts.
	return unknownNode
}

func branchCalls(b *parse.BranchNode, names map[string]bool) string {
	for _, n := range []parse.Node{b.Pipe, b.List, b.ElseList} {
		if got := nodeCalls(n, names); got != "" {
			return got
		}
	}
	return ""
}

// ownConfig gives data its own copy of ConfigData before a template that may modify it runs, because
// the renderer shares one composed config between every assignment that matches the same sources.
func (d *Data) ownConfig() {
	if d.configOwned {
		return
	}
	d.ConfigData = platformconfig.CopyConfig(d.ConfigData)
	d.configOwned = true
}
