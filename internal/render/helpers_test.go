// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleet"
)

// Builders for Kalypso YAML documents used by the render tests.

const apiV = "apiVersion: scheduler.kalypso.io/v1alpha1\n"

func yamlMap(indent string, kv map[string]string) string {
	if len(kv) == 0 {
		return indent + "{}\n"
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s%q: %q\n", indent, k, kv[k])
	}
	return b.String()
}

func clusterTypeDoc(name string, labels map[string]string, reconciler, namespaceService, configType string) string {
	s := apiV + "kind: ClusterType\nmetadata:\n  name: " + name + "\n  labels:\n" + yamlMap("    ", labels) +
		"spec:\n  reconciler: " + reconciler + "\n  namespaceService: " + namespaceService + "\n"
	if configType != "" {
		s += "  configType: " + configType + "\n"
	}
	return s
}

// policyDoc takes the selectors as YAML flow text, or "" for none.
func policyDoc(name, workspace, targetSelector, clusterTypeSelector string) string {
	s := apiV + "kind: SchedulingPolicy\nmetadata:\n  name: " + name + "\nspec:\n  deploymentTargetSelector:\n"
	if workspace != "" {
		s += "    workspace: " + workspace + "\n"
	}
	if targetSelector != "" {
		s += "    labelSelector: " + targetSelector + "\n"
	}
	if workspace == "" && targetSelector == "" {
		s = strings.TrimSuffix(s, "\n") + " {}\n"
	}
	s += "  clusterTypeSelector:"
	if clusterTypeSelector != "" {
		s += "\n    labelSelector: " + clusterTypeSelector + "\n"
	} else {
		s += " {}\n"
	}
	return s
}

type targetSpec struct {
	name, env string
	labels    map[string]string
	schemas   []string
}

func workloadDoc(name, registration string, labels map[string]string, targets ...targetSpec) string {
	s := apiV + "kind: Workload\nmetadata:\n  name: " + name + "\n"
	if registration != "" {
		s += "  annotations:\n    scheduler.kalypso.io/registration: " + registration + "\n"
	}
	s += "  labels:\n" + yamlMap("    ", labels) + "spec:\n  deploymentTargets:\n"
	for _, t := range targets {
		s += "    - name: " + t.name + "\n      environment: " + t.env + "\n      labels:\n" + yamlMap("        ", t.labels) +
			"      manifests:\n        repo: https://example.com/" + name + "\n        branch: " + t.env + "\n        path: ./" + t.name + "\n"
		if len(t.schemas) > 0 {
			s += "      configSchemas:\n"
			for _, sc := range t.schemas {
				s += "        - " + fmt.Sprintf("%q", sc) + "\n"
			}
		}
	}
	return s
}

func registrationDoc(name, workspace string) string {
	return apiV + "kind: WorkloadRegistration\nmetadata:\n  name: " + name + "\nspec:\n  workload:\n    repo: https://example.com/" + name +
		"\n    branch: main\n    path: .\n  workspace: " + workspace + "\n"
}

func templateDoc(name, typ, contentType string, manifests ...string) string {
	s := apiV + "kind: Template\nmetadata:\n  name: " + name + "\nspec:\n  type: " + typ + "\n"
	if contentType != "" {
		s += "  contentType: " + contentType + "\n"
	}
	s += "  manifests:\n"
	if len(manifests) == 0 {
		return strings.TrimSuffix(s, "\n") + " []\n"
	}
	for _, m := range manifests {
		s += "    - " + fmt.Sprintf("%q", m) + "\n"
	}
	return s
}

func configMapDoc(name string, labels, data map[string]string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n" + yamlMap("    ", labels) + "data:\n" + yamlMap("  ", data)
}

func configSchemaDoc(name string, labels map[string]string, schema string) string {
	return apiV + "kind: ConfigSchema\nmetadata:\n  name: " + name + "\n  labels:\n" + yamlMap("    ", labels) + "spec:\n  schema: " + fmt.Sprintf("%q", schema) + "\n"
}

func parseSet(t *testing.T, docs ...string) *model.Set {
	t.Helper()
	set, diags := model.Parse(docs)
	if diags.HasError() {
		t.Fatalf("parse: %v", diags)
	}
	return set
}

func mustRender(t *testing.T, env string, opts Options, docs ...string) (*Result, model.Diagnostics) {
	t.Helper()
	res, diags := NewEngine().Render(env, docs, opts)
	if diags.HasError() {
		t.Fatalf("render: %v", diags)
	}
	return res, diags
}

func findDiag(ds model.Diagnostics, summary string) *model.Diagnostic {
	for i := range ds {
		if ds[i].Summary == summary {
			return &ds[i]
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Minimal templates that make the tree easy to assert.
var simpleTemplates = []string{
	templateDoc("rec", "reconciler", "", "reconciler {{ .DeploymentTargetName }} on {{ .ClusterType }}\n"),
	templateDoc("ns", "namespace", "", "namespace {{ .Namespace }}\n"),
	templateDoc("cfg", "config", "yaml", "{{ range $k, $v := .ConfigData }}{{ $k }}={{ $v }}\n{{ end }}"),
}

func badSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
}

// presetFleet generates the fleetgen preset name.
func presetFleet(t testing.TB, name string) fleet.Fleet {
	t.Helper()
	spec, err := fleet.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	generated, err := fleet.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return generated
}

// BuiltinTemplateNames lists the built-in templates in the order the templates guide presents them.
func BuiltinTemplateNames() []string {
	names := make([]string, len(builtins.ordered))
	for i, b := range builtins.ordered {
		names[i] = b.template.Metadata.Name
	}
	return names
}

// reconcilerTemplateNames is how the "Missing template" error lists the reconciler templates: the
// built-in ones and those of the input (inputs), sorted and quoted.
func reconcilerTemplateNames(inputs ...string) string {
	names := slices.Clone(inputs)
	for _, b := range BuiltinReconcilers() {
		names = append(names, b.Name)
	}
	sort.Strings(names)
	return `"` + strings.Join(names, `", "`) + `"`
}

// invalid returns the first YAML syntax error of text, or nil; names are the assignment's names.
func (c *yamlChecker) invalid(text string, names ...string) error {
	m := newMaskNames(names)
	return c.invalidMasked(text, &m)
}
