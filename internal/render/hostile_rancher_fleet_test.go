// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/crdschema"
)

// TestHostileRancherFleetGitRepo: an application team's manifests.repo, branch and path land in the
// rancher-fleet GitRepo as quoted YAML strings: a line break, a quote, a document separator, a comment,
// an anchor or a tag cannot add a key, a document or an object. Each value either comes back unchanged
// from spec.repo / spec.branch / spec.paths[0] of the one GitRepo written, or the render refuses it with
// a diagnostic naming the Workload.
func TestHostileRancherFleetGitRepo(t *testing.T) {
	t.Parallel()
	values := []string{
		"x\nkind: Secret",
		"x\"\n  evil: true",
		"main\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen",
		"x\r\ny: 1",
		"# comment",
		"&anchor x",
		"*alias",
		"!!binary aGVsbG8=",
		"%TAG ! tag:evil,2000:",
		"'single' \"double\"",
		`back\slash \n \" \u0041`,
		"tab\there",
		"nul\x00byte",
		"line\u2028separator",
		"bidi\u202eoverride",
		"bell\a vt\v ff\f esc\x1b[31m",
		"- item",
		"key: value",
		"{flow: map}",
		"[flow, list]",
		"|\n  block",
		"> folded",
		"null",
		"true",
		"0x1F",
		"",
		" leading and trailing ",
		"ext::sh -c touch% /tmp/pwned",
		"file:///etc/passwd",
		"-uhttps://example.com/--upload-pack=touch",
		strings.Repeat("a", 100000),
	}
	for _, field := range []string{"repo", "branch", "path"} {
		for i, v := range values {
			t.Run(fmt.Sprintf("%s/%d", field, i), func(t *testing.T) {
				t.Parallel()
				docs := []string{
					clusterTypeDoc("edge", map[string]string{"size": "edge"}, "rancher-fleet", "default", "configmap"),
					registrationDoc("app", "ws"),
					workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
					policyDoc("p", "", "", ""),
				}
				quoted, _ := json.Marshal(v) // a YAML double-quoted scalar
				var line string
				switch field {
				case "repo":
					line = "repo: https://example.com/app\n"
				case "branch":
					line = "branch: dev\n"
				case "path":
					line = "path: ./t\n"
				}
				docs[2] = strings.Replace(docs[2], line, field+": "+string(quoted)+"\n", 1)
				res, diags := NewEngine().Render("dev", docs, Options{})
				if diags.HasError() {
					for _, d := range diags {
						if d.Severity == model.SeverityError && (d.Name == "" || d.Detail == "") {
							t.Errorf("%q: an error without object or detail: %+v", v, d)
						}
					}
					return
				}
				if len(res.Files) == 0 {
					t.Fatalf("%q: no files and no error", v)
				}
				got, ok := res.Files["edge/app-t/reconciler.yaml"]
				if !ok {
					t.Fatalf("%q: no reconciler.yaml: %v", v, keys(res.Files))
				}
				dec := yaml.NewDecoder(strings.NewReader(got))
				var gr struct {
					APIVersion string         `yaml:"apiVersion"`
					Kind       string         `yaml:"kind"`
					Metadata   map[string]any `yaml:"metadata"`
					Spec       map[string]any `yaml:"spec"`
				}
				if err := dec.Decode(&gr); err != nil {
					t.Fatalf("%q: reconciler.yaml is not YAML: %v\n%s", v, err, got)
				}
				var extra any
				if err := dec.Decode(&extra); err == nil {
					t.Fatalf("%q: a second document: %v\n%s", v, extra, got)
				}
				if gr.Kind != "GitRepo" || len(gr.Spec) != 5 || len(gr.Metadata) != 3 {
					t.Fatalf("%q: keys were added: %+v\n%s", v, gr, got)
				}
				if err := crdschema.Default(t).Validate(got); err != nil {
					t.Errorf("Fleet's GitRepo CRD refuses %q: %v", v, err)
				}
				want := v
				if field == "path" {
					paths, _ := gr.Spec["paths"].([]any)
					if len(paths) != 1 || paths[0] != want {
						t.Errorf("%q: spec.paths = %#v", v, gr.Spec["paths"])
					}
					return
				}
				if gr.Spec[field] != want {
					t.Errorf("%q: spec.%s = %#v", v, field, gr.Spec[field])
				}
			})
		}
	}
}

func keys(m map[string]string) []string { return sortedKeys(m) }
