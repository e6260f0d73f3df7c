// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package model is the Kalypso object model and its YAML codec. It has no Terraform dependency.
package model

import (
	"fmt"
	"strings"
)

// Severity says whether a diagnostic stops the render.
type Severity int

const (
	SeverityError Severity = iota
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Source locates a document: which input string it came from and where in that string's stream.
type Source struct {
	// Input is the index of the input string (for example the index in the `manifests` list); -1 when unknown.
	Input int
	// Document is the 0-based position of the document in its input's `---` stream.
	Document int
	// Line is the 1-based line in the input where the document starts.
	Line int
	// File is an optional file name, set by readers of control-plane repositories.
	File string
}

// NoSource is used for diagnostics that are not tied to one document.
var NoSource = Source{Input: -1, Document: -1}

func (s Source) String() string {
	if s.Input < 0 && s.File == "" {
		return ""
	}
	var b strings.Builder
	if s.File != "" {
		fmt.Fprintf(&b, "file %s, ", s.File)
	}
	if s.Input >= 0 {
		fmt.Fprintf(&b, "manifests[%d], ", s.Input)
	}
	fmt.Fprintf(&b, "document %d (line %d)", s.Document, s.Line)
	return b.String()
}

// Diagnostic is an error or warning about the input model, always naming what and where.
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	Source   Source
	Kind     string
	Name     string
	// Field is the path inside the object, for example `spec.reconciler`.
	Field string
	// Option names the render option that would let the render pass: "config_validation" turns this
	// error into a warning, a limit ("render_timeout", ...) raised lets the render go on. Each entry
	// point suggests it under the name and in the place it has there (a provider attribute, an option of
	// the function), or not at all when it has none (the function has no config_validation).
	Option string
}

func (d Diagnostic) Error() string {
	var where []string
	if s := d.Source.String(); s != "" {
		where = append(where, s)
	}
	if d.Kind != "" || d.Name != "" {
		where = append(where, fmt.Sprintf("%s %q", d.Kind, d.Name))
	}
	if d.Field != "" {
		where = append(where, "field "+d.Field)
	}
	msg := d.Summary
	if len(where) > 0 {
		msg += " [" + strings.Join(where, ", ") + "]"
	}
	if d.Detail != "" {
		msg += ": " + d.Detail
	}
	return msg
}

// Diagnostics is an ordered list of diagnostics.
type Diagnostics []Diagnostic

// HasError reports whether any diagnostic is an error.
func (ds Diagnostics) HasError() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns only the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// Warnings returns only the warning diagnostics.
func (ds Diagnostics) Warnings() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == SeverityWarning {
			out = append(out, d)
		}
	}
	return out
}

// Message is a diagnostic as one line of text for a user: the summary, the object and field it is
// about, and the detail. It is what the render's `warnings` output lists.
func (d Diagnostic) Message() string {
	msg := d.Summary
	if d.Kind != "" || d.Name != "" {
		msg += fmt.Sprintf(" (%s %q", d.Kind, d.Name)
		if d.Field != "" {
			msg += ", field " + d.Field
		}
		msg += ")"
	}
	if d.Detail != "" {
		msg += ": " + d.Detail
	}
	return msg
}

// WarningMessages returns the Message of every warning, in order. Never nil, so that it converts to an
// empty list rather than a null one.
func (ds Diagnostics) WarningMessages() []string {
	out := []string{}
	for _, d := range ds {
		if d.Severity == SeverityWarning {
			out = append(out, d.Message())
		}
	}
	return out
}
