// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"errors"
	"fmt"
	"io"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// SummaryInvalidYAML is the warning for a rendered .yaml file that does not parse.
//
// Upstream Kalypso writes such a file as rendered and lets Flux or Argo CD fail on the cluster. We keep
// the bytes (the tree stays identical to upstream's) but warn at plan time, naming the file, the
// template and its manifest index, so that the reviewer sees it before anything is pushed. One warning
// is reported per template manifest, naming the first file and how many more are affected.
const SummaryInvalidYAML = "Rendered file is not valid YAML"

// yamlIssue is one template manifest whose output did not parse, in one assignment.
type yamlIssue struct {
	key  string // template name and manifest index
	diag model.Diagnostic
	// build, when set, makes diag: only the first issue of each key is shown, and an issue that thousands
	// of assignments share (a non-string ConfigMap value at 86k) is formatted once instead of per assignment.
	build func() model.Diagnostic
}

func (is yamlIssue) diagnostic() model.Diagnostic {
	if is.build != nil {
		return is.build()
	}
	return is.diag
}

// invalidYAML returns the first syntax error of text, read as a `---` stream of YAML documents, or nil.
// Aliases are not expanded, so a YAML bomb costs nothing here.
func invalidYAML(text string) error {
	dec := yamlv3.NewDecoder(strings.NewReader(text))
	for {
		var n yamlv3.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// mergeYAMLIssues keeps the first issue of each template manifest (in assignment order, so the
// result is deterministic) and counts the files it also affects.
func mergeYAMLIssues(rendered []renderedAssignment) model.Diagnostics {
	return mergeIssues(rendered, func(r *renderedAssignment) []yamlIssue { return r.yamlIssues },
		func(is yamlIssue) (string, func() model.Diagnostic) { return is.key, is.diagnostic },
		" The same template manifest produced invalid YAML in %d more file(s).")
}

// mergeIssues keeps the first issue of each key and appends more, formatted with the number of
// other files the key affects. read returns an issue's key and its diagnostic, which is built only for
// the first issue of each key.
func mergeIssues[T any, K comparable](rendered []renderedAssignment, issues func(*renderedAssignment) []T,
	read func(T) (K, func() model.Diagnostic), more string) model.Diagnostics {
	var order []K
	first := map[K]model.Diagnostic{}
	count := map[K]int{}
	for i := range rendered {
		for _, is := range issues(&rendered[i]) {
			k, build := read(is)
			if _, seen := first[k]; seen {
				count[k]++
				continue
			}
			order = append(order, k)
			first[k] = build()
		}
	}
	var out model.Diagnostics
	for _, k := range order {
		d := first[k]
		if n := count[k]; n > 0 {
			d.Detail += fmt.Sprintf(more, n)
		}
		out = append(out, d)
	}
	return out
}
