// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// tutorialAsResources is a fixture case written as kalypso_* resources. The Workloads live in real
// local bare Git repositories, reached through git_url_rewrites from their upstream GitHub URLs.
type tutorialAsResources struct {
	Case *fixtures.Case
	Set  *model.Set
	// Repos maps a registration name to the bare repository holding its Workload.
	Repos map[string]string
	// WorkloadFiles maps a registration name to the path of its Workload file in its repository.
	WorkloadFiles map[string]string
	// WorkloadTexts maps a registration name to the Workload file as committed.
	WorkloadTexts map[string]string
	rewrite       string
	root          string
}

const tutorialGitHubPrefix = "https://github.com/microsoft/"

// newTutorialAsResources loads a fixture and pushes each Workload to the repository its registration names.
func newTutorialAsResources(t *testing.T, name string) *tutorialAsResources {
	t.Helper()
	c := fixtures.Load(t, name)
	set, diags := model.Parse(c.Manifests())
	if diags.HasError() {
		t.Fatalf("fixture %s does not parse: %v", name, diags)
	}
	root := t.TempDir()
	tut := &tutorialAsResources{Case: c, Set: set, Repos: map[string]string{}, WorkloadFiles: map[string]string{}, WorkloadTexts: map[string]string{},
		rewrite: "file://" + filepath.ToSlash(root) + "/", root: root}
	regs := map[string]*model.WorkloadRegistration{}
	for _, r := range set.WorkloadRegistrations {
		regs[r.Metadata.Name] = r
	}
	for _, p := range c.InputPaths() {
		if !strings.HasPrefix(p, "workload-sources/") {
			continue
		}
		ws, _ := model.Parse([]string{c.Inputs[p]})
		if len(ws.Workloads) != 1 {
			t.Fatalf("%s: want one Workload", p)
		}
		w := ws.Workloads[0]
		regName := w.Metadata.Name
		if a := w.Metadata.Annotations[model.RegistrationAnnotation]; a != "" {
			regName = a
		}
		reg := regs[regName]
		if reg == nil || !strings.HasPrefix(reg.Spec.Workload.Repo, tutorialGitHubPrefix) {
			t.Fatalf("%s: no registration %q with a %s repository", p, regName, tutorialGitHubPrefix)
		}
		repoName := strings.TrimPrefix(reg.Spec.Workload.Repo, tutorialGitHubPrefix)
		file := path.Join(path.Clean(reg.Spec.Workload.Path), path.Base(p))
		tut.Repos[regName] = gitserver.NewSeededRepo(t, root, repoName, reg.Spec.Workload.Branch, map[string]string{
			file:        c.Inputs[p],
			"README.md": "application source",
		})
		tut.WorkloadFiles[regName] = file
		tut.WorkloadTexts[regName] = c.Inputs[p]
	}
	return tut
}

// ProviderBlock configures the provider to read the tutorial's GitHub URLs from the local repositories.
func (tut *tutorialAsResources) ProviderBlock() string {
	return fmt.Sprintf("provider \"kalypso\" {\n  git_url_rewrites = { %s = %s }\n}\n", hclString(tutorialGitHubPrefix), hclString(tut.rewrite))
}

// Config writes every model object as a resource (skipping the policies named in skip) and renders
// the environment with the function from the resources' manifests.
func (tut *tutorialAsResources) Config(skip ...string) string {
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	var b strings.Builder
	var refs []string
	b.WriteString(tut.ProviderBlock())
	add := func(typ, name, body string) {
		fmt.Fprintf(&b, "\nresource %q %q {\n  name = %s\n%s}\n", typ, name, hclString(name), body)
		refs = append(refs, fmt.Sprintf("%s.%s.manifest", typ, name))
	}
	for _, ct := range tut.Set.ClusterTypes {
		add("kalypso_cluster_type", ct.Metadata.Name, fmt.Sprintf("  labels = %s\n  reconciler = %s\n  namespace_service = %s\n  config_type = %s\n",
			hclMap(ct.Metadata.Labels), hclString(ct.Spec.Reconciler), hclString(ct.Spec.NamespaceService), hclString(ct.Spec.ConfigType)))
	}
	for _, p := range tut.Set.SchedulingPolicies {
		if skipped[p.Metadata.Name] {
			continue
		}
		dt := hclSelector(p.Spec.DeploymentTargetSelector.LabelSelector)
		if ws := p.Spec.DeploymentTargetSelector.Workspace; ws != "" {
			dt = strings.Replace(dt, "{\n", fmt.Sprintf("{\n    workspace = %s\n", hclString(ws)), 1)
		}
		add("kalypso_scheduling_policy", p.Metadata.Name, fmt.Sprintf("  deployment_target_selector = %s\n  cluster_type_selector = %s\n",
			dt, hclSelector(p.Spec.ClusterTypeSelector.LabelSelector)))
	}
	for _, tpl := range tut.Set.Templates {
		body := fmt.Sprintf("  type = %s\n  manifests = %s\n", hclString(tpl.Spec.Type), hclList(tpl.Spec.Manifests))
		if tpl.Spec.ContentType != "" {
			body += fmt.Sprintf("  content_type = %s\n", hclString(tpl.Spec.ContentType))
		}
		add("kalypso_template", tpl.Metadata.Name, body)
	}
	for _, cm := range tut.Set.ConfigMaps {
		add("kalypso_platform_config", cm.Metadata.Name, fmt.Sprintf("  labels = %s\n  data = %s\n", hclMap(cm.Metadata.Labels), hclMap(cm.Data)))
	}
	for _, cs := range tut.Set.ConfigSchemas {
		add("kalypso_config_schema", cs.Metadata.Name, fmt.Sprintf("  labels = %s\n  schema = %s\n", hclMap(cs.Metadata.Labels), hclString(cs.Spec.Schema)))
	}
	for _, r := range tut.Set.WorkloadRegistrations {
		src := r.Spec.Workload
		add("kalypso_workload_registration", r.Metadata.Name, fmt.Sprintf("  workspace = %s\n  labels = %s\n  source = {\n    repo = %s\n    branch = %s\n    path = %s\n  }\n",
			hclString(r.Spec.Workspace), hclMap(r.Metadata.Labels), hclString(src.Repo), hclString(src.Branch), hclString(src.Path)))
	}
	fmt.Fprintf(&b, `
locals {
  render = provider::kalypso::environment_render(%s, [
    %s,
  ])
}

output "files" {
  value = local.render.files
}
`, hclString(tut.Case.Environment), strings.Join(refs, ",\n    "))
	return b.String()
}

func hclSelector(sel *metav1.LabelSelector) string {
	var b strings.Builder
	b.WriteString("{\n")
	if sel != nil {
		if len(sel.MatchLabels) > 0 {
			fmt.Fprintf(&b, "    match_labels = %s\n", strings.ReplaceAll(hclMap(sel.MatchLabels), "\n", "\n  "))
		}
		if len(sel.MatchExpressions) > 0 {
			b.WriteString("    match_expressions = [\n")
			for _, e := range sel.MatchExpressions {
				fmt.Fprintf(&b, "      { key = %s, operator = %s, values = %s },\n", hclString(e.Key), hclString(string(e.Operator)), hclList(e.Values))
			}
			b.WriteString("    ]\n")
		}
	}
	b.WriteString("  }")
	return b.String()
}

// withoutPrefix returns the tree without the files below prefix.
func withoutPrefix(files map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		if !strings.HasPrefix(p, prefix) {
			out[p] = c
		}
	}
	return out
}

// The whole public tutorial, written as resources with the Workloads read from Git via `source`,
// renders byte-identical files through the function, known at plan time.
func TestAccWorkloadRegistrationResource_TutorialAsResourcesMatchesUpstream(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures.TutorialCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tut := newTutorialAsResources(t, name)
			if len(tut.Repos) == 0 {
				t.Fatal("the fixture has no Workload sources")
			}
			var regChecks []statecheck.StateCheck
			for reg, repo := range tut.Repos {
				regChecks = append(regChecks, statecheck.ExpectKnownValue("kalypso_workload_registration."+reg,
					tfjsonpath.New("source_commit"), knownvalue.StringExact(gitserver.Head(t, repo, "main"))))
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config: tut.Config(),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectKnownOutputValue("files", filesCheck(tut.Case.Expected)),
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: append(regChecks, statecheck.ExpectKnownOutputValue("files", filesCheck(tut.Case.Expected))),
				}},
			})
		})
	}
}
