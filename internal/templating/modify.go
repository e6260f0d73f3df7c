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
	for _, assoc := range t.Templates() {
		if assoc.Tree != nil && nodeMayModify(assoc.Root) {
			return true
		}
	}
	return false
}

func nodeMayModify(n parse.Node) bool {
	switch n := n.(type) {
	case nil:
		return false
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if nodeMayModify(c) {
				return true
			}
		}
		return false
	case *parse.ActionNode:
		return nodeMayModify(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return false
		}
		for _, c := range n.Cmds {
			if nodeMayModify(c) {
				return true
			}
		}
		return false
	case *parse.CommandNode:
		for _, a := range n.Args {
			if nodeMayModify(a) {
				return true
			}
		}
		return false
	case *parse.IdentifierNode:
		return modifyingFunctions[n.Ident]
	case *parse.ChainNode:
		return nodeMayModify(n.Node)
	case *parse.IfNode:
		return branchMayModify(&n.BranchNode)
	case *parse.RangeNode:
		return branchMayModify(&n.BranchNode)
	case *parse.WithNode:
		return branchMayModify(&n.BranchNode)
	case *parse.TemplateNode:
		return nodeMayModify(n.Pipe)
	case *parse.TextNode, *parse.CommentNode, *parse.FieldNode, *parse.VariableNode, *parse.DotNode,
		*parse.NilNode, *parse.BoolNode, *parse.NumberNode, *parse.StringNode, *parse.BreakNode, *parse.ContinueNode:
		return false
	}
	// A node type this walker does not know: assume the worst.
	return true
}

func branchMayModify(b *parse.BranchNode) bool {
	return nodeMayModify(b.Pipe) || nodeMayModify(b.List) || nodeMayModify(b.ElseList)
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
