// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

const (
	schedulerAPIVersion = "scheduler.kalypso.io/v1alpha1"
	// RegistrationAnnotation links a Workload to a WorkloadRegistration
	// whose name differs from the Workload's.
	RegistrationAnnotation = "scheduler.kalypso.io/registration"
)

// Document is one Kalypso object as YAML text.
type Document struct {
	Kind string
	Name string
	// Path is where WriteDir puts the document, relative to its directory,
	// following the layout of a Kalypso control-plane repository.
	Path string
	// YAML is a single document. It ends with a newline, except for
	// templates copied from files that have none (see templates.go).
	YAML string
}

// Manifests returns the documents' YAML, one string per object.
func (f Fleet) Manifests() []string {
	out := make([]string, len(f.Documents))
	for i, d := range f.Documents {
		out[i] = d.YAML
	}
	return out
}

// MultiDocument returns every document in one YAML stream. A separator needs
// a line of its own, so a document without a final newline gets one unless
// it is the last; Documents are ordered so that only the last lacks one.
func (f Fleet) MultiDocument() string {
	var b strings.Builder
	for i, d := range f.Documents {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.WriteString(d.YAML)
		if i < len(f.Documents)-1 && !strings.HasSuffix(d.YAML, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (f Fleet) render() []Document {
	var docs []Document
	docs = append(docs,
		Document{Kind: "BaseRepo", Name: "main", Path: "base-repo.yaml", YAML: f.baseRepoYAML()},
		Document{Kind: "GitOpsRepo", Name: f.Spec.Environment, Path: "gitops-repo.yaml", YAML: f.gitOpsRepoYAML()},
	)
	for _, ct := range f.ClusterTypes {
		docs = append(docs, Document{Kind: "ClusterType", Name: ct.Name, Path: "cluster-types/" + ct.Name + ".yaml", YAML: clusterTypeYAML(ct)})
	}
	if f.ConfigSchema != "" {
		docs = append(docs, Document{Kind: "ConfigSchema", Name: "platform-schema", Path: "configs/platform-schema.yaml",
			YAML: "apiVersion: " + schedulerAPIVersion + "\nkind: ConfigSchema\nmetadata:\n  name: platform-schema\nspec:\n  schema: " + quoted(f.ConfigSchema) + "\n"})
	}
	for _, c := range f.PlatformConfigs {
		docs = append(docs, Document{Kind: "ConfigMap", Name: c.Name, Path: "configs/" + c.Name + ".yaml", YAML: configMapYAML(c)})
	}
	for _, p := range f.Policies {
		docs = append(docs, Document{Kind: "SchedulingPolicy", Name: p.Name, Path: "scheduling/" + p.Name + ".yaml", YAML: policyYAML(p)})
	}
	for _, w := range f.Workloads {
		docs = append(docs, Document{Kind: "WorkloadRegistration", Name: w.Registration, Path: "workloads/" + w.Registration + ".yaml", YAML: registrationYAML(w)})
	}
	for _, w := range f.Workloads {
		docs = append(docs, Document{Kind: "Workload", Name: w.Name, Path: "workload-sources/" + w.Name + ".yaml", YAML: workloadYAML(w)})
	}
	// Templates go last, and the config template, which has no final
	// newline, last of all, so MultiDocument needs to add nothing to it.
	for _, t := range f.templates() {
		docs = append(docs, Document{Kind: "Template", Name: t.name, Path: "templates/" + t.name + ".yaml", YAML: t.yaml})
	}
	return docs
}

// yamlWriter writes block-style YAML by hand, so the output looks like the
// files people write and stays stable across library versions.
type yamlWriter struct{ b strings.Builder }

func (w *yamlWriter) line(indent int, format string, args ...any) {
	w.b.WriteString(strings.Repeat(" ", indent))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// quoted returns s as a double-quoted YAML scalar. strconv.Quote's escapes
// are valid YAML for the ASCII text the generator produces.
func quoted(s string) string { return strconv.Quote(s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (w *yamlWriter) labels(indent int, key string, labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	w.line(indent, "%s:", key)
	for _, k := range sortedKeys(labels) {
		w.line(indent+2, "%s: %s", k, quoted(labels[k]))
	}
}

func (w *yamlWriter) selector(indent int, s Selector) {
	if s.IsEmpty() {
		w.line(indent, "labelSelector: {}")
		return
	}
	w.line(indent, "labelSelector:")
	w.labels(indent+2, "matchLabels", s.MatchLabels)
	if len(s.MatchExpressions) > 0 {
		w.line(indent+2, "matchExpressions:")
		for _, r := range s.MatchExpressions {
			w.line(indent+4, "- key: %s", r.Key)
			w.line(indent+6, "operator: %s", r.Operator)
			if len(r.Values) > 0 {
				w.line(indent+6, "values:")
				for _, v := range r.Values {
					w.line(indent+8, "- %s", quoted(v))
				}
			}
		}
	}
}

func (f Fleet) baseRepoYAML() string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: BaseRepo")
	w.line(0, "metadata:")
	w.line(2, "name: main")
	w.line(0, "spec:")
	w.line(2, "repo: https://github.com/kalypso-fleet/control-plane")
	w.line(2, "branch: main")
	w.line(2, "path: .")
	w.line(2, "commit: %s", f.PromotedCommit)
	return w.b.String()
}

func (f Fleet) gitOpsRepoYAML() string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: GitOpsRepo")
	w.line(0, "metadata:")
	w.line(2, "name: %s", f.Spec.Environment)
	w.line(0, "spec:")
	w.line(2, "repo: https://github.com/kalypso-fleet/gitops")
	w.line(2, "branch: %s", f.Spec.Environment)
	w.line(2, "path: .")
	return w.b.String()
}

func clusterTypeYAML(ct ClusterType) string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: ClusterType")
	w.line(0, "metadata:")
	w.line(2, "name: %s", ct.Name)
	w.labels(2, "labels", ct.Labels)
	w.line(0, "spec:")
	reconciler := "arc-flux"
	if ct.Reconciler != "" {
		reconciler = ct.Reconciler
	}
	w.line(2, "reconciler: %s", reconciler)
	w.line(2, "namespaceService: default")
	w.line(2, "configType: configmap")
	return w.b.String()
}

func configMapYAML(c PlatformConfig) string {
	var w yamlWriter
	w.line(0, "apiVersion: v1")
	w.line(0, "kind: ConfigMap")
	w.line(0, "metadata:")
	w.line(2, "name: %s", c.Name)
	labels := map[string]string{"platform-config": "true"}
	if c.AzureAppConfig {
		labels = map[string]string{}
	}
	for k, v := range c.Labels {
		labels[k] = v
	}
	w.labels(2, "labels", labels)
	w.line(0, "data:")
	for _, k := range sortedKeys(c.Data) {
		v := c.Data[k]
		switch {
		case v.Map != nil:
			// A literal block: the scheduler parses the text back into a map.
			w.line(2, "%s: |", k)
			for _, mk := range sortedKeys(v.Map) {
				w.line(4, "%s: %s", mk, v.Map[mk])
			}
		case v.List != nil:
			w.line(2, "%s: |", k)
			for _, item := range v.List {
				w.line(4, "- %s", item)
			}
		default:
			w.line(2, "%s: %s", k, quoted(v.Scalar))
		}
	}
	return w.b.String()
}

func policyYAML(p SchedulingPolicy) string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: SchedulingPolicy")
	w.line(0, "metadata:")
	w.line(2, "name: %s", p.Name)
	w.line(0, "spec:")
	w.line(2, "deploymentTargetSelector:")
	if p.Workspace != "" {
		w.line(4, "workspace: %s", p.Workspace)
	}
	w.selector(4, p.DeploymentTargetSelector)
	w.line(2, "clusterTypeSelector:")
	w.selector(4, p.ClusterTypeSelector)
	return w.b.String()
}

func registrationYAML(wl Workload) string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: WorkloadRegistration")
	w.line(0, "metadata:")
	w.line(2, "name: %s", wl.Registration)
	w.labels(2, "labels", map[string]string{"type": wl.Labels["type"]})
	w.line(0, "spec:")
	w.line(2, "workload:")
	w.line(4, "repo: https://github.com/kalypso-fleet/%s-src", wl.Name)
	w.line(4, "branch: main")
	w.line(4, "path: ./workload")
	w.line(2, "workspace: %s", wl.Workspace)
	return w.b.String()
}

func workloadYAML(wl Workload) string {
	var w yamlWriter
	w.line(0, "apiVersion: %s", schedulerAPIVersion)
	w.line(0, "kind: Workload")
	w.line(0, "metadata:")
	w.line(2, "name: %s", wl.Name)
	if wl.Registration != wl.Name {
		w.line(2, "annotations:")
		w.line(4, "%s: %s", RegistrationAnnotation, wl.Registration)
	}
	w.labels(2, "labels", wl.Labels)
	w.line(0, "spec:")
	w.line(2, "deploymentTargets:")
	for _, t := range wl.DeploymentTargets {
		w.line(4, "- name: %s", t.Name)
		w.labels(6, "labels", t.Labels)
		w.line(6, "environment: %s", t.Environment)
		w.line(6, "manifests:")
		w.line(8, "repo: %s", t.Manifests.Repo)
		w.line(8, "branch: %s", t.Manifests.Branch)
		w.line(8, "path: %s", t.Manifests.Path)
	}
	if len(wl.ConfigSchemas) > 0 {
		w.line(2, "configSchemas:")
		for _, schema := range wl.ConfigSchemas {
			w.line(4, "- %s", quoted(schema))
		}
	}
	return w.b.String()
}
