// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// Upstream Kalypso writes these values too, but a cluster refuses them, so the engine reports them at
// plan time (issue 14). The rule: a value that a built-in template writes into a Kubernetes object
// field that the API server or Flux validates is an error, because the object can never be applied;
// the same value handed to an input template (which may not use it) is a warning.
const (
	SummaryInvalidEnvironment = "Invalid environment"
	SummaryInvalidNamespace   = "Invalid namespace"
	SummaryInvalidLabelValue  = "Invalid label value"
	SummaryInvalidRepoURL     = "Invalid manifests repo for Flux"
	SummaryInvalidConfigKey   = "Invalid platform config key"
)

// fluxGitURL is the pattern of Flux's GitRepository.spec.url (source.toolkit.fluxcd.io/v1 CRD).
var fluxGitURL = regexp.MustCompile(`^(http|https|ssh)://.*$`)

// checkEnvironment refuses an environment that cannot start a namespace name.
func checkEnvironment(environment string) model.Diagnostics {
	msgs := validation.IsDNS1123Label(environment)
	if len(msgs) == 0 {
		return nil
	}
	return model.Diagnostics{{Severity: model.SeverityError, Summary: SummaryInvalidEnvironment, Source: model.NoSource,
		Detail: fmt.Sprintf("environment %q starts every namespace (<environment>-<clusterType>-<deploymentTarget>), so it must be a DNS-1123 label: %s. Use lower-case letters, digits and '-', for example \"dev\"",
			environment, strings.Join(msgs, "; "))}}
}

// deployability checks what the assignment's templates will write. It returns nothing for values that
// no template of the assignment writes into a validated field.
func (j *assignmentJob) deployability(a *Assignment, t *DeploymentTarget, ct *model.ClusterType, config map[string]interface{}) []assignmentDiag {
	var ds []assignmentDiag
	src := j.set.Source(model.KindClusterType, ct.Metadata.Name)
	builtin := func(use string) bool {
		tmpl, ok := j.templates[use]
		return ok && tmpl == builtinTemplates[use]
	}
	add := func(sev model.Severity, summary, field, detail string) {
		// mergeAssignmentDiags names the deployment target and cluster type.
		ds = append(ds, assignmentDiag{target: t.Name, clusterType: ct.Metadata.Name, diag: model.Diagnostic{Severity: sev, Summary: summary, Source: src, Kind: model.KindClusterType, Name: ct.Metadata.Name, Field: field,
			Detail: detail}})
	}
	severity := func(isBuiltin bool) model.Severity {
		if isBuiltin {
			return model.SeverityError
		}
		return model.SeverityWarning
	}
	reconciler, nsTemplate, configType := ct.Spec.Reconciler, ct.Spec.NamespaceService, ct.Spec.ConfigType
	if configType == "" {
		configType = model.DefaultConfigType
	}

	if msgs := validation.IsDNS1123Label(a.Namespace); len(msgs) > 0 {
		writer, field := "", "spec.namespaceService"
		switch {
		case builtin(nsTemplate):
			writer = fmt.Sprintf("the built-in %q template writes it as the Namespace's name", nsTemplate)
		case builtin(reconciler):
			writer, field = fmt.Sprintf("the built-in %q template writes it as the target namespace", reconciler), "spec.reconciler"
		default:
			writer = "templates get it as .Namespace"
		}
		add(severity(builtin(nsTemplate) || builtin(reconciler)), SummaryInvalidNamespace, field,
			fmt.Sprintf("the namespace %q (<environment>-<clusterType>-<deploymentTarget>) is not a valid Kubernetes namespace (%s), and %s. "+
				"Shorten or rename the environment, the cluster type or the deployment target (lower-case letters, digits and '-', at most 63 characters in all)",
				a.Namespace, strings.Join(msgs, "; "), writer))
	}

	labels := map[string]string{}
	if builtin(reconciler) {
		labels["scheduler.kalypso.io/workload"] = t.Workload
		labels["scheduler.kalypso.io/deployment-target"] = t.Name
	}
	if builtin(nsTemplate) {
		labels["environment"] = j.environment
		labels["workspace"] = t.Workspace
		labels["workload"] = t.Workload
		labels["deploymentTarget"] = t.Name
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if msgs := validation.IsValidLabelValue(labels[k]); len(msgs) > 0 {
			field := "spec.reconciler"
			if !strings.HasPrefix(k, "scheduler.kalypso.io/") {
				field = "spec.namespaceService"
			}
			add(model.SeverityError, SummaryInvalidLabelValue, field,
				fmt.Sprintf("the built-in template writes label %s: %q, which Kubernetes refuses (%s); shorten the name or use an input template", k, labels[k], strings.Join(msgs, "; ")))
		}
	}

	if reconciler == "arc-flux" && builtin(reconciler) {
		repo := t.Manifests["repo"]
		if !fluxGitURL.MatchString(repo) {
			add(model.SeverityError, SummaryInvalidRepoURL, "spec.reconciler",
				fmt.Sprintf("the built-in \"arc-flux\" template copies manifests.repo %q into a Flux GitRepository's spec.url, which Flux accepts only as http://, https:// or ssh:// "+
					"(scp-style user@host:path and file:// are refused); write the Workload's repo as for example ssh://git@github.com/org/repo or https://github.com/org/repo", repo))
		}
	}

	if configType == "configmap" && builtin(configType) {
		keys := make([]string, 0, len(config))
		for k := range config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msgs := validation.IsConfigMapKey(k); len(msgs) > 0 {
				add(model.SeverityError, SummaryInvalidConfigKey, "spec.configType",
					fmt.Sprintf("the built-in \"configmap\" template writes platform config key %q as a ConfigMap data key, which Kubernetes refuses (%s); rename the key in the platform ConfigMaps",
						k, strings.Join(msgs, "; ")))
			}
		}
	}
	return ds
}
