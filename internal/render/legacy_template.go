// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	yamlv2 "gopkg.in/yaml.v2"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// kalypso-scheduler read a Template's manifests as YAML objects until March 2023 (its commit f7fefe0 made
// them strings), and control-plane branches whose BaseRepo pins a 2023 commit of main, such as the public
// sample's dev and stage, still hold such Templates. That operator executed every string value of an
// object's mappings (not those inside lists) as a template, with the deployment target's manifests as
// .Repo, .Branch and .Path, and wrote each object with yaml.v2 (keys sorted), one document per object.
// The engine does the same, with its own templating (sprig and the limits included); upstream used
// html/template, which also HTML-escaped what actions printed.

// legacyFields are the data fields of that format, and the fields of today's data that hold them.
var legacyFields = regexp.MustCompile(`\.(Repo|Branch|Path)\b`)

var templateAction = regexp.MustCompile(`\{\{.*?\}\}`)

// legacyText is a string value of an object manifest with its actions rewritten to today's data.
func legacyText(text string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return templateAction.ReplaceAllStringFunc(text, func(action string) string {
		return legacyFields.ReplaceAllStringFunc(action, func(f string) string { return ".Manifests." + strings.ToLower(f[1:]) })
	})
}

// executeObjects renders the object manifests of a Template in the format before March 2023: one YAML
// document per object, never dropped. objects are the Template's with their string values rewritten by
// legacyText (legacyObjects); each string value is executed through memo, as string manifests are.
func executeObjects(engine *templating.Engine, memo *templating.ExecMemo, objects []map[string]interface{}, data *templating.Data, lim templating.Limits) ([]string, error) {
	out := make([]string, 0, len(objects))
	for i, obj := range objects {
		rendered, err := executeObject(engine, memo, obj, data, lim)
		if err != nil {
			return nil, fmt.Errorf("manifests[%d]: %w", i, err)
		}
		b, err := yamlv2.Marshal(rendered)
		if err != nil {
			return nil, fmt.Errorf("manifests[%d]: %w", i, err)
		}
		out = append(out, string(b))
	}
	return out, nil
}

// executeObject is a copy of m whose string values, in m and in the mappings below it, are executed.
func executeObject(engine *templating.Engine, memo *templating.ExecMemo, m map[string]interface{}, data *templating.Data, lim templating.Limits) (map[string]interface{}, error) {
	out := make(map[string]interface{}, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is the same on every run
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]interface{}:
			r, err := executeObject(engine, memo, v, data, lim)
			if err != nil {
				return nil, err
			}
			out[k] = r
		case string:
			r, err := engine.ExecuteMemo(memo, v, data, lim)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		default:
			out[k] = v
		}
	}
	return out, nil
}

// legacyObjects returns objects with every string value that executeObject executes rewritten by
// legacyText, once per render and Template: rewriting them for each assignment (a regular expression per
// value) was a twentieth of the render of a fleet on such a Template (issue 34).
func (j *assignmentJob) legacyObjects(t *model.Template) []map[string]interface{} {
	if v, ok := j.legacy.Load(t); ok {
		return v.([]map[string]interface{}) //nolint:forcetypeassert // legacy only ever holds the rewritten objects
	}
	out := make([]map[string]interface{}, len(t.Spec.Objects))
	for i, obj := range t.Spec.Objects {
		out[i] = rewriteObject(obj)
	}
	v, _ := j.legacy.LoadOrStore(t, out)
	return v.([]map[string]interface{}) //nolint:forcetypeassert // as above
}

// rewriteObject is a copy of m whose string values, in m and in the mappings below it, are legacyText's.
func rewriteObject(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case map[string]interface{}:
			out[k] = rewriteObject(v)
		case string:
			out[k] = legacyText(v)
		default:
			out[k] = v
		}
	}
	return out
}

// manifestTemplates are the template texts of each of t's manifests: the manifest itself, or the string
// values an object manifest executes.
func manifestTemplates(t *model.Template) [][]string {
	if len(t.Spec.Objects) == 0 {
		out := make([][]string, len(t.Spec.Manifests))
		for i, m := range t.Spec.Manifests {
			out[i] = []string{m}
		}
		return out
	}
	out := make([][]string, len(t.Spec.Objects))
	for i, obj := range t.Spec.Objects {
		out[i] = objectTexts(obj, nil)
	}
	return out
}

// objectTexts appends the string values of m's mappings, rewritten as executeObject executes them.
func objectTexts(m map[string]interface{}, texts []string) []string {
	for _, v := range m {
		switch v := v.(type) {
		case map[string]interface{}:
			texts = objectTexts(v, texts)
		case string:
			texts = append(texts, legacyText(v))
		}
	}
	return texts
}

// legacyTemplateWarnings are the deprecation warnings of the input's Templates in the format before
// March 2023, one per Template.
func legacyTemplateWarnings(set *model.Set) model.Diagnostics {
	var ds model.Diagnostics
	for _, t := range set.Templates {
		if len(t.Spec.Objects) == 0 {
			continue
		}
		ds = append(ds, model.Diagnostic{
			Severity: model.SeverityWarning, Summary: "Deprecated Template format", Source: set.Source(model.KindTemplate, t.Metadata.Name),
			Kind: model.KindTemplate, Name: t.Metadata.Name, Field: "spec.manifests",
			Detail: fmt.Sprintf("Template %q lists its manifests as YAML objects, the format kalypso-scheduler read until March 2023; current upstream "+
				"reads only strings and refuses this Template. It is rendered as that operator rendered it: each string value of an object's "+
				"mappings is a template (.Repo, .Branch and .Path are the deployment target's manifests), and each object is written with "+
				"yaml.v2, keys sorted. Write each manifest as a string (a `|` block) that uses .Manifests.repo, .Manifests.branch and "+
				".Manifests.path; on a control plane, move the environment branch's BaseRepo spec.commit to a commit of main that does.", t.Metadata.Name),
		})
	}
	return ds
}
