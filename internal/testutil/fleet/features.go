// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Input features that change what rendering costs per assignment, independent of the shape (issue 34).
// Each is a Spec field, off by default, that changes one thing of any shape's fleet, so that a benchmark
// can render the same fleet with and without it. Features names them for fleetgen -features and the
// feature benchmarks.

// Templated config values. Upstream renders a manifest again while its output holds `{{`, so a config
// value may hold template actions that see the assignment's data: GREETING is the value of upstream's own
// benchmark, ROUTE a tpl-style value whose first render prints another action (rendered three times).
const (
	templatedGreeting = "Hello {{ .ClusterType }} / {{ .DeploymentTargetName }}"
	templatedRoute    = `{{ printf "%s.{{ .ClusterType }}.example.com" .Environment }}`
)

// templateConfigValues gives a share of configs, spread evenly over them from the first (in most shapes the
// environment-wide one, so that most assignments meet the feature), the GREETING value, and every other of
// those the ROUTE value too.
func templateConfigValues(configs []PlatformConfig, share float64) {
	count := int(share*float64(len(configs)) + 0.5)
	for k := range count {
		i := k * len(configs) / count
		configs[i].Data["GREETING"] = ConfigValue{Scalar: templatedGreeting}
		if k%2 == 0 {
			configs[i].Data["ROUTE"] = ConfigValue{Scalar: templatedRoute}
		}
	}
}

// Spec.ConfigTemplate: the config template every cluster type uses (named configmap, so cluster types
// keep configType: configmap). The default is the tutorial fixture's, `toYaml .ConfigData | indent 2`.
const (
	// ConfigTemplateRange writes each key on its own line with sprig's quote, as the built-in configmap
	// template does: toYaml only for map and list values.
	ConfigTemplateRange = "range"
	// ConfigTemplateStringify is the fixture's template with stringify in place of toYaml: map and list
	// values become YAML text blocks.
	ConfigTemplateStringify = "stringify"
	// ConfigTemplateHash is the fixture's template with a config-hash annotation, `hash .ConfigData`, as a
	// template that rolls pods when the config changes writes.
	ConfigTemplateHash = "hash"
	// ConfigTemplateSh is a template with contentType sh: one `export KEY="value"` line per key, written
	// to platform-config.sh.
	ConfigTemplateSh = "sh"
)

// Spec.ConfigSchema.
const (
	// SchemaNone writes no ConfigSchema, even for ShapeUpstream.
	SchemaNone = "none"
	// SchemaFleet writes one ConfigSchema that types every key the fleet's config maps hold and requires
	// ENVIRONMENT (ShapeUpstream keeps its own schema).
	SchemaFleet = "fleet"
)

// Features are the named input features, each a change to a Spec. fleetgen -features takes a
// comma-separated list of these names; the engine's feature benchmarks render a preset with and without
// them.
var Features = map[string]func(*Spec){
	// Template actions in 30 % of the config maps (TemplatedConfigs).
	"nested":           func(s *Spec) { s.TemplatedConfigs = 0.3 },
	"range-config":     func(s *Spec) { s.ConfigTemplate = ConfigTemplateRange },
	"stringify":        func(s *Spec) { s.ConfigTemplate = ConfigTemplateStringify },
	"hash":             func(s *Spec) { s.ConfigTemplate = ConfigTemplateHash },
	"sh":               func(s *Spec) { s.ConfigTemplate = ConfigTemplateSh },
	"arc-flux":         func(s *Spec) { s.Reconciler = "arc-flux" },
	"argocd":           func(s *Spec) { s.Reconciler = "argocd" },
	"rancher-fleet":    func(s *Spec) { s.Reconciler = "rancher-fleet" },
	"builtin":          func(s *Spec) { s.BuiltinTemplates = true },
	"no-config-schema": func(s *Spec) { s.ConfigSchema = SchemaNone },
	"config-schema":    func(s *Spec) { s.ConfigSchema = SchemaFleet },
	"workload-schemas": func(s *Spec) { s.WorkloadSchemas = true },
	"azure-app-config": func(s *Spec) { s.AzureAppConfig = true },
	"structured":       func(s *Spec) { s.StructuredValues = true },
	"legacy-templates": func(s *Spec) { s.LegacyTemplates = true },
}

// FeatureNames lists Features in a stable order.
func FeatureNames() []string {
	return slices.Sorted(maps.Keys(Features))
}

// WithFeatures returns spec with the named features turned on, or an error naming an unknown one.
func WithFeatures(spec Spec, names ...string) (Spec, error) {
	for _, name := range names {
		set, ok := Features[name]
		if !ok {
			return Spec{}, fmt.Errorf("unknown fleet feature %q; known features: %v", name, FeatureNames())
		}
		set(&spec)
	}
	return spec, nil
}

func (s Spec) validateFeatures() []error {
	var errs []error
	switch s.ConfigTemplate {
	case "", ConfigTemplateRange, ConfigTemplateStringify, ConfigTemplateHash, ConfigTemplateSh:
	default:
		errs = append(errs, fmt.Errorf("spec.ConfigTemplate must be empty or one of %q, %q, %q, %q, got %q",
			ConfigTemplateRange, ConfigTemplateStringify, ConfigTemplateHash, ConfigTemplateSh, s.ConfigTemplate))
	}
	switch s.Reconciler {
	case "", "arc-flux", "argocd", "rancher-fleet":
	default:
		errs = append(errs, fmt.Errorf("spec.Reconciler must be empty, arc-flux, argocd or rancher-fleet, got %q", s.Reconciler))
	}
	switch s.ConfigSchema {
	case "", SchemaNone, SchemaFleet:
	default:
		errs = append(errs, fmt.Errorf("spec.ConfigSchema must be empty, %q or %q, got %q", SchemaNone, SchemaFleet, s.ConfigSchema))
	}
	return errs
}

// hasFeatures reports whether any input feature is on; the HCL baseline (TFVars) knows none of them.
func (s Spec) hasFeatures() bool {
	return s.ConfigTemplate != "" || s.Reconciler != "" || s.BuiltinTemplates || s.ConfigSchema != "" ||
		s.WorkloadSchemas || s.AzureAppConfig || s.StructuredValues || s.LegacyTemplates
}

// applyFeatures changes the generated model for the Spec's features. The order matters: values are added
// before the schema is derived from them, and moved into the azure-app-config map last.
func (f *Fleet) applyFeatures() {
	s := f.Spec
	if s.Reconciler != "" {
		for i := range f.ClusterTypes {
			f.ClusterTypes[i].Reconciler = s.Reconciler
			if s.Reconciler == "arc-flux" {
				f.ClusterTypes[i].Reconciler = ""
			}
		}
	}
	if s.StructuredValues {
		structureConfigValues(f.PlatformConfigs)
	}
	switch s.ConfigSchema {
	case SchemaNone:
		f.ConfigSchema = ""
	case SchemaFleet:
		if f.ConfigSchema == "" {
			f.ConfigSchema = fleetSchema(f.PlatformConfigs)
		}
	}
	if s.WorkloadSchemas {
		for i := range f.Workloads {
			f.Workloads[i].ConfigSchemas = []string{workloadSchema(f.Workloads[i].Name)}
		}
	}
	if s.AzureAppConfig {
		f.PlatformConfigs = azureAppConfig(f.PlatformConfigs, s.Environment)
	}
}

// structureConfigValues gives every config map a map value (merged key by key), a list of scalars
// (appended) and a list of maps with a name (merged element-wise by name), each different per map, so
// that composing an assignment's config merges deeply and the config template writes nested YAML.
func structureConfigValues(configs []PlatformConfig) {
	for i := range configs {
		configs[i].Data["limits"] = ConfigValue{Map: map[string]string{
			"cpu": fmt.Sprintf("%dm", 100+10*(i%20)), fmt.Sprintf("pool-%d", i%4): strconv.Itoa(i % 7),
		}}
		configs[i].Data["registries"] = ConfigValue{List: []string{fmt.Sprintf("registry-%d.azurecr.io", i%5)}}
		configs[i].Data["sidecars"] = ConfigValue{List: []string{
			fmt.Sprintf("{name: logging, image: fluent-bit:2.%d}", i%3),
			fmt.Sprintf("{name: proxy-%d, port: %d}", i%2, 8000+i%10),
		}}
	}
}

// fleetSchema is a JSON schema (draft-07) for the fleet's config maps: every key they hold, typed by its
// kind (top-level strings that parse as numbers are numbers when validated), and ENVIRONMENT required
// when the environment-wide map holds it.
func fleetSchema(configs []PlatformConfig) string {
	kinds := map[string]string{}
	for _, c := range configs {
		for key, v := range c.Data {
			kind := `["string","number"]`
			switch {
			case v.Map != nil:
				kind = `"object"`
			case v.List != nil:
				kind = `"array"`
			}
			if old, ok := kinds[key]; ok && old != kind {
				kind = `["string","number","object","array"]`
			}
			kinds[key] = kind
		}
	}
	var b strings.Builder
	b.WriteString(`{"type":"object",`)
	if _, ok := kinds["ENVIRONMENT"]; ok {
		b.WriteString(`"required":["ENVIRONMENT"],`)
	}
	b.WriteString(`"properties":{`)
	for i, key := range sortedKeys(kinds) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%q:{"type":%s}`, key, kinds[key])
	}
	b.WriteString(`}}`)
	return b.String()
}

// workloadSchema is a Workload's own config schema: ENVIRONMENT, which every shape's environment-wide map
// holds, must be a non-empty string. Each workload's text differs, as each application team writes its own.
func workloadSchema(workload string) string {
	return fmt.Sprintf(`{"$comment":"platform config that %s needs","type":"object","required":["ENVIRONMENT"],`+
		`"properties":{"ENVIRONMENT":{"type":"string","minLength":1}}}`, workload)
}

// azureAppConfig moves every config map with exactly one label into one map named
// azure-app-config-<environment> whose keys read `label.value.KEY`, as Azure App Configuration's
// Kubernetes provider writes them; maps without labels or with several stay as they are.
func azureAppConfig(configs []PlatformConfig, environment string) []PlatformConfig {
	azure := PlatformConfig{Name: "azure-app-config-" + environment, Labels: map[string]string{}, Data: map[string]ConfigValue{}, AzureAppConfig: true}
	var out []PlatformConfig
	for _, c := range configs {
		if len(c.Labels) != 1 {
			out = append(out, c)
			continue
		}
		for label, value := range c.Labels {
			for key, v := range c.Data {
				azure.Data[label+"."+value+"."+key] = v
			}
		}
	}
	if len(azure.Data) == 0 {
		return configs
	}
	return append(out, azure)
}

// templates returns the Template documents to write: none with BuiltinTemplates; the shape's, plus the
// argocd one when a cluster type needs it, with the config template Spec.ConfigTemplate chose.
func (f Fleet) templates() []struct{ name, yaml string } {
	if f.Spec.BuiltinTemplates {
		return nil
	}
	templates := fixtureTemplates
	if f.Spec.Shape == ShapeTutorial || f.Spec.Shape == ShapeUpstream || f.Spec.Shape == ShapeCostlier || f.Spec.Reconciler == "argocd" {
		templates = tutorialTemplates
	}
	out := slices.Clone(templates)
	for i := range out {
		switch {
		case out[i].name == "configmap" && f.Spec.ConfigTemplate != "":
			out[i].yaml = configTemplateYAML(f.Spec.ConfigTemplate)
		case out[i].name == "arc-flux" && f.Spec.LegacyTemplates:
			out[i].yaml = legacyArcFluxTemplate
		}
	}
	return out
}

// legacyArcFluxTemplate is the fixture's arc-flux Template in the format kalypso-scheduler read until
// March 2023 (Spec.LegacyTemplates): manifests are YAML objects whose string values are templates, with
// .Repo, .Branch and .Path for the deployment target's manifests. The provider renders it as that
// operator did and warns once that the format is deprecated.
const legacyArcFluxTemplate = `apiVersion: scheduler.kalypso.io/v1alpha1
kind: Template
metadata:
  name: arc-flux
spec:
  type: reconciler
  manifests:
    - apiVersion: source.toolkit.fluxcd.io/v1beta2
      kind: GitRepository
      metadata:
        name: "{{ .DeploymentTargetName}}"
        namespace: flux-system
      spec:
        interval: 30s
        url: "{{ .Repo}}"
        ref:
          branch: "{{ .Branch}}"
        secretRef:
          name: repo-secret
    - apiVersion: kustomize.toolkit.fluxcd.io/v1beta2
      kind: Kustomization
      metadata:
        name: "{{ .DeploymentTargetName}}"
        namespace: flux-system
      spec:
        interval: 30s
        targetNamespace: "{{ .Namespace}}"
        sourceRef:
          kind: GitRepository
          name: "{{ .DeploymentTargetName}}"
        path: "{{ .Path}}"
        prune: true
`

// configTemplateYAML is the configmap Template document of a ConfigTemplate variant. Like the fixture's,
// it has no final newline, so it can be the last document of a stream.
func configTemplateYAML(variant string) string {
	header := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: {{ .Namespace}}\n"
	var manifest, contentType string
	switch variant {
	case ConfigTemplateRange:
		manifest = header + "data:{{ if not .ConfigData }} {}{{ end }}\n{{- range $key, $value := .ConfigData }}\n" +
			`  {{ $key | quote }}: {{ if kindIs "string" $value }}{{ $value | quote }}{{ else }}{{ toYaml $value | quote }}{{ end }}` +
			"\n{{- end }}\n"
	case ConfigTemplateStringify:
		manifest = header + "data:\n{{ stringify .ConfigData | indent 2}}\n"
	case ConfigTemplateHash:
		manifest = header + "  annotations:\n    scheduler.kalypso.io/config-hash: \"{{ hash .ConfigData }}\"\ndata:\n{{ toYaml .ConfigData | indent 2}}\n"
	case ConfigTemplateSh:
		contentType = "  contentType: sh\n"
		manifest = "{{- range $key, $value := .ConfigData }}\nexport {{ $key }}=" +
			`{{ if kindIs "string" $value }}{{ $value | quote }}{{ else }}{{ toYaml $value | quote }}{{ end }}` + "\n{{- end }}\n"
	}
	var b strings.Builder
	b.WriteString("apiVersion: " + schedulerAPIVersion + "\nkind: Template\nmetadata:\n  name: configmap\nspec:\n  type: config\n")
	b.WriteString(contentType)
	b.WriteString("  manifests:\n    - |\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(manifest, "\n"), "\n") {
		b.WriteString("      " + line)
	}
	return b.String()
}
