// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/templating"
)

// The templates guide (templates/guides/templates.md.tmpl) shows each built-in template's source and
// what it renders for one example assignment, from files under examples/guides/templates. These tests
// keep those files equal to the real templates and the real engine's output, so the guide cannot rot.
// UPDATE_TEMPLATE_DOCS=1 go test ./internal/render -run TestBuiltinTemplateDocs rewrites them.

const templateDocsDir = "../../examples/guides/templates"

// builtinDocFleet is the guide's example: hello-world-app's functional-test target in dev, placed on one
// cluster type per built-in reconciler (its docClusterType: "large" for arc-flux, "small" for argocd, ...),
// with two platform config values.
func builtinDocFleet() []string {
	var docs []string
	for _, b := range builtins.ordered {
		if b.reconciler != nil {
			docs = append(docs, clusterTypeDoc(b.docClusterType, map[string]string{"region": "west-us", "size": b.docClusterType}, b.template.Metadata.Name, "default", "configmap"))
		}
	}
	return append(docs,
		apiV+"kind: WorkloadRegistration\nmetadata:\n  name: hello-world-app\nspec:\n  workload:\n    repo: https://github.com/microsoft/kalypso-app-src\n    branch: main\n    path: workload/\n  workspace: kaizen-app-team\n",
		apiV+`kind: Workload
metadata:
  name: hello-world-app
  labels:
    type: application
spec:
  deploymentTargets:
    - name: functional-test
      environment: dev
      labels:
        purpose: functional-test
      manifests:
        repo: https://github.com/microsoft/kalypso-app-gitops
        branch: dev
        path: ./functional-test
`,
		policyDoc("functional-test-policy", "kaizen-app-team", "{matchLabels: {purpose: functional-test}}", "{matchLabels: {region: west-us}}"),
		configMapDoc("west-us-config", map[string]string{"platform-config": "true", "region": "west-us"},
			map[string]string{"REGION": "West US", "DATABASE_URL": "mysql://west:8806/mysql2"}),
	)
}

// builtinDocFiles maps each example file to what it must hold: each built-in template's source and what
// it renders (a reconciler on its own cluster type, the namespace and config templates on the first).
func builtinDocFiles(t *testing.T) map[string]string {
	t.Helper()
	fleet := builtinDocFleet()
	res, _ := mustRender(t, "dev", Options{}, fleet...)
	files := map[string]string{"example-model.yaml": strings.Join(fleet, "---\n")}
	first := ""
	for _, b := range builtins.ordered {
		if b.reconciler != nil && first == "" {
			first = b.docClusterType
		}
	}
	const folder = "/hello-world-app-functional-test/"
	for _, b := range builtins.ordered {
		name := b.template.Metadata.Name
		files[name+".tmpl"] = strings.Join(b.template.Spec.Manifests, "---\n")
		switch b.template.Spec.Type {
		case model.TemplateTypeReconciler:
			files[name+".rendered.yaml"] = res.Files[b.docClusterType+folder+model.ReconcilerFile]
		case model.TemplateTypeNamespace:
			files[name+".rendered.yaml"] = res.Files[first+folder+model.NamespaceFile]
		case model.TemplateTypeConfig:
			files[name+".rendered.yaml"] = res.Files[first+folder+model.PlatformConfigFile+".yaml"]
		}
	}
	for name, content := range files {
		if content == "" {
			t.Fatalf("%s: the example renders nothing", name)
		}
	}
	return files
}

func TestBuiltinTemplateDocs(t *testing.T) {
	t.Parallel()
	files := builtinDocFiles(t)
	if os.Getenv("UPDATE_TEMPLATE_DOCS") != "" {
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(templateDocsDir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(templateDocsDir, name))
		if err != nil {
			t.Fatalf("%v; run UPDATE_TEMPLATE_DOCS=1 go test ./internal/render -run TestBuiltinTemplateDocs, then make generate", err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run UPDATE_TEMPLATE_DOCS=1 go test ./internal/render -run TestBuiltinTemplateDocs, then make generate.\n got: %q\nwant: %q", name, got, want)
		}
	}
}

// TestTemplatesGuideNamesEverything: the guide lists every built-in template, shows each one's files,
// and documents every field a template can read and every function Kalypso adds to sprig.
func TestTemplatesGuideNamesEverything(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../templates/guides/templates.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	for _, name := range BuiltinTemplateNames() {
		for _, want := range []string{"`" + name + "`", "examples/guides/templates/" + name + ".tmpl", "examples/guides/templates/" + name + ".rendered.yaml"} {
			if !strings.Contains(guide, want) {
				t.Errorf("the guide does not mention %s", want)
			}
		}
	}
	dataType := reflect.TypeOf(templating.Data{})
	for i := 0; i < dataType.NumField(); i++ {
		f := dataType.Field(i)
		if !f.IsExported() || f.Name == "ConfigFrozen" {
			continue
		}
		if !regexp.MustCompile("\\| `\\." + f.Name + "[` ]").MatchString(guide) {
			t.Errorf("the guide's variable table has no row for .%s", f.Name)
		}
	}
	for _, fn := range []string{"toYaml", "stringify", "hash", "unquote"} {
		if !strings.Contains(guide, "`"+fn+"`") {
			t.Errorf("the guide does not document %s", fn)
		}
	}
}

// SECURITY.md's row of the namespace check names every built-in template the check holds to a
// namespace name, so a reconciler added to the registry is not missing there.
func TestSecurityNamespaceCheckNamesEveryBuiltinThatWritesIt(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "| Namespace `<env>-<clusterType>-<target>`") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("SECURITY.md has no row for the namespace check")
	}
	for _, bt := range builtins.ordered {
		if name := bt.template.Metadata.Name; bt.writesNamespace != "" && !strings.Contains(row, "`"+name+"`") {
			t.Errorf("SECURITY.md's namespace row does not name %s, which writes the namespace %s:\n%s", name, bt.writesNamespace, row)
		}
	}
}
