// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/crdschema"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// modelResourceTypes lists the provider's resource types that write a Kalypso object as `manifest`:
// every resource but kalypso_gitops_commit, read from the provider so that a new type is not missed.
func modelResourceTypes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range New("test", testCaches)().Resources(context.Background()) {
		var resp fwresource.MetadataResponse
		f().Metadata(context.Background(), fwresource.MetadataRequest{ProviderTypeName: "kalypso"}, &resp)
		if resp.TypeName != "kalypso_gitops_commit" {
			out = append(out, resp.TypeName)
		}
	}
	sort.Strings(out)
	return out
}

// manifestsMatchCRDs validates the planned `manifest` of every model resource against upstream's CRDs
// (core ConfigMap for platform config), and fails unless every type in types was checked.
type manifestsMatchCRDs struct {
	crds  *crdschema.Set
	types []string
}

func (c manifestsMatchCRDs) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	seen := map[string]int{}
	var errs []string
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change == nil || !strings.HasPrefix(rc.Type, "kalypso_") || rc.Type == "kalypso_gitops_commit" {
			continue
		}
		after, _ := rc.Change.After.(map[string]interface{})
		manifest, ok := after["manifest"].(string)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: manifest is not a known string in the plan", rc.Address))
			continue
		}
		docs, err := crdschema.Documents(manifest)
		if err != nil || len(docs) == 0 {
			errs = append(errs, fmt.Sprintf("%s: manifest does not split into documents: %v", rc.Address, err))
		}
		for i, d := range docs {
			if err := c.crds.Validate(d); err != nil {
				errs = append(errs, fmt.Sprintf("%s: manifest document %d is not accepted by upstream's CRD: %v\n%s", rc.Address, i, err, d))
			}
		}
		seen[rc.Type]++
	}
	for _, typ := range c.types {
		if seen[typ] == 0 {
			errs = append(errs, fmt.Sprintf("the plan holds no %s: add one to the test configuration", typ))
		}
	}
	if len(errs) > 0 {
		resp.Error = fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
}

// Every model resource type, with the tutorial's real objects plus the shapes that exercise optional
// fields (absent, empty and workspace-only selectors, defaults, azure maps, tab-indented JSON schema,
// inline workloads), plans a manifest that upstream's CRD accepts: a control plane written from the
// resources can be applied to a cluster running the upstream operator.
func TestAccModelResourceManifestsMatchUpstreamCRDs(t *testing.T) {
	t.Parallel()
	crds := crdschema.Default(t)
	tut := newTutorialAsResources(t, "tutorial-dev")
	config := tut.Config() + `
resource "kalypso_scheduling_policy" "everything" {
  name = "everything"
}

resource "kalypso_scheduling_policy" "empty_selectors" {
  name                       = "empty-selectors"
  deployment_target_selector = {}
  cluster_type_selector      = { match_labels = {} }
}

resource "kalypso_scheduling_policy" "workspace_only" {
  name                       = "workspace-only"
  deployment_target_selector = { workspace = "kaizen-app-team" }
}

resource "kalypso_scheduling_policy" "expressions" {
  name = "edge-policy"
  deployment_target_selector = {
    workspace    = "kaizen-app-team"
    match_labels = { edge = "true" }
  }
  cluster_type_selector = {
    match_expressions = [
      { key = "size", operator = "In", values = ["large", "medium"] },
      { key = "restricted", operator = "DoesNotExist" },
    ]
  }
}

resource "kalypso_cluster_type" "defaults" {
  name = "drone"
}

resource "kalypso_template" "env_sh" {
  name         = "env-sh"
  type         = "config"
  content_type = "sh"
  manifests    = ["export REGION=\"{{ .ConfigData.REGION }}\"\n", "export SIZE={{ .Labels.size }}\n"]
}

resource "kalypso_platform_config" "azure" {
  name = "azure-app-config-dev"
  data = {
    "cluster-type.large.REPLICAS" = "3"
    "region.west-us.DATABASE_URL" = "mysql://west:8806/db"
    HOSTS                         = "- a.example.com\n- b.example.com\n"
  }
}

resource "kalypso_platform_config" "unlabelled" {
  name = "defaults"
  data = { GREETING = "hello" }
}

resource "kalypso_config_schema" "tabbed_json" {
  name   = "replicas"
  schema = "\n\t{\n\t\t\"type\": \"object\",\n\t\t\"required\": [\"REPLICAS\"]\n\t}\n"
}

resource "kalypso_config_schema" "yaml" {
  name   = "region"
  labels = { "cluster-type" = "large" }
  schema = "type: object\nproperties:\n  REGION:\n    type: string\n"
}

resource "kalypso_workload_registration" "inline" {
  name      = "billing"
  workspace = "payments-team"
  labels    = { tier = "backend" }
  workload = {
    labels = { family = "payments" }
    deployment_targets = [
      {
        name        = "qa"
        environment = "dev"
        labels      = { purpose = "functional-test", edge = "false" }
        manifests   = { repo = "https://github.com/example/billing-gitops", branch = "dev", path = "./qa" }
      },
      {
        name        = "prod"
        environment = "prod"
        manifests   = { repo = "https://github.com/example/billing-gitops", branch = "prod", path = "." }
      },
    ]
  }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{manifestsMatchCRDs{crds: crds, types: modelResourceTypes(t)}},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// What examples/control-plane-reverse commits (a control plane written from the model resources) is
// readable by upstream: every Kalypso document in both branches validates against upstream's CRDs, and
// ConfigMaps against core ConfigMap. The files are checked in the plan and again as pushed, and the
// reconciler files the example renders from them against Flux's CRDs.
func TestAccControlPlaneReverseExampleWritesUpstreamReadableFiles(t *testing.T) {
	t.Parallel()
	crds := crdschema.Default(t)
	config, bare := controlPlaneReverseExample(t)

	validate := func(where string, files map[string]string) []string {
		var errs []string
		if len(files) == 0 {
			errs = append(errs, where+": no files")
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			// Only YAML files are Kubernetes documents (kalypso_gitops_commit also writes a marker file).
			if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
				continue
			}
			docs, err := crdschema.Documents(files[name])
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s %s: %v", where, name, err))
			}
			for i, d := range docs {
				if err := crds.Validate(d); err != nil {
					errs = append(errs, fmt.Sprintf("%s %s, document %d: %v", where, name, i, err))
				}
			}
		}
		return errs
	}
	planned := plancheckFunc(func(req plancheck.CheckPlanRequest) error {
		var errs []string
		commits := 0
		for _, rc := range req.Plan.ResourceChanges {
			if rc.Type != "kalypso_gitops_commit" || rc.Change == nil {
				continue
			}
			commits++
			after, _ := rc.Change.After.(map[string]interface{})
			raw, _ := after["files"].(map[string]interface{})
			files := map[string]string{}
			for k, v := range raw {
				s, ok := v.(string)
				if !ok {
					errs = append(errs, fmt.Sprintf("%s: files[%q] is not known in the plan", rc.Address, k))
				}
				files[k] = s
			}
			errs = append(errs, validate(rc.Address+" (planned)", files)...)
		}
		if commits != 2 {
			errs = append(errs, fmt.Sprintf("the plan holds %d kalypso_gitops_commit, want 2 (main and dev)", commits))
		}
		if len(errs) > 0 {
			return fmt.Errorf("%s", strings.Join(errs, "\n"))
		}
		return nil
	})
	pushed := stateCheckFunc(func(req statecheck.CheckStateRequest) error {
		var errs []string
		for _, branch := range []string{"main", "dev"} {
			errs = append(errs, validate("pushed "+branch, gitserver.Files(t, bare, branch))...)
		}
		// The GitOps tree the example renders from it holds a Flux GitRepository that Flux accepts.
		rendered := map[string]string{}
		if out := req.State.Values.Outputs["files"]; out != nil {
			raw, _ := out.Value.(map[string]interface{})
			for k, v := range raw {
				if s, ok := v.(string); ok && strings.HasSuffix(k, "/reconciler.yaml") {
					rendered[k] = s
				}
			}
		}
		errs = append(errs, validate("rendered", rendered)...)
		if len(errs) > 0 {
			return fmt.Errorf("%s", strings.Join(errs, "\n"))
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config:            config,
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planned}},
			ConfigStateChecks: []statecheck.StateCheck{pushed},
		}},
	})
}

// stateCheckFunc adapts a function to statecheck.StateCheck.
type stateCheckFunc func(req statecheck.CheckStateRequest) error

func (f stateCheckFunc) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f(req)
}

// plancheckFunc adapts a function to plancheck.PlanCheck.
type plancheckFunc func(req plancheck.CheckPlanRequest) error

func (f plancheckFunc) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f(req)
}
