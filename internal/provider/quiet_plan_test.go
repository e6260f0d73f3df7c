// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// quietPlanModel: an inline Workload with one target, a reconciler Template of the configuration's own,
// and the render-mode commit of the environment.
const quietPlanModel = `
terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}

variable "repo" { type = string }

resource "kalypso_cluster_type" "large" {
  name       = "large"
  reconciler = kalypso_template.kustomize.name
}

resource "kalypso_template" "kustomize" {
  name      = "kustomize"
  type      = "reconciler"
  manifests = ["kind: Kustomization # marker-template-body\nmetadata:\n  name: {{ .DeploymentTargetName | quote }}\n"]
}

resource "kalypso_workload_registration" "app" {
  name      = "app"
  workspace = "ws"
  workload = {
    deployment_targets = [
      { name = "t1", environment = "dev", manifests = { repo = "https://github.com/o/r", branch = "main", path = "./marker-target-path" } },
    ]
  }
}

resource "kalypso_scheduling_policy" "all" {
  name = "all"
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = var.repo
  branch         = "main"
  render = {
    environment = "dev"
    manifests = [
      kalypso_cluster_type.large.manifest, kalypso_template.kustomize.manifest,
      kalypso_workload_registration.app.manifest, kalypso_scheduling_policy.all.manifest,
    ]
  }
}
`

// A first plan prints the model once in the model resources and the files once in `changes` (issue 23),
// and marks as sensitive only kalypso_gitops_commit's render.manifests (issue 36): a Template's body in its
// `manifests`, its `manifest` and the rendered reconciler.yaml, an inline Workload's target in `workload` and
// `manifest` (its full name in `deployment_targets`); the commit's render.manifests is the one
// `(sensitive value)`. `terraform show -json` carries what the text leaves out, for policies.
func TestAccPlan_PrintsEachFactOnce(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(quietPlanModel), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := "file://" + filepath.ToSlash(gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"README.md": "fleet\n"}))
	tf := newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	out := tf.mustRun("plan", "-input=false", "-no-color", "-var", "repo="+repo, "-out=tfplan")

	for marker, want := range map[string]int{
		"marker-template-body":           4, // the Template's manifests and manifest, and the rendered reconciler.yaml in changes and changes_markdown
		"marker-target-path":             2, // the registration's workload and manifest (the rendered Kustomization does not use it)
		`"large/app-t1/reconciler.yaml"`: 1,
		`= "app-t1"`:                     1, // deployment_targets (the files name it in their content)
		"(sensitive value)":              1, // render.manifests
		"changes_summary":                1,
		"changes_markdown":               1,
	} {
		if got := strings.Count(out, marker); got != want {
			t.Errorf("%q appears %d times in the plan, want %d:\n%s", marker, got, want, out)
		}
	}
	for _, line := range []string{"+ manifests    = (sensitive value)", `+ create = "5"`} {
		if !strings.Contains(out, line) {
			t.Errorf("the plan lacks %q:\n%s", line, out)
		}
	}

	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				After map[string]any `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(tf.mustRun("show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	after := map[string]map[string]any{}
	for _, rc := range plan.ResourceChanges {
		after[rc.Address] = rc.Change.After
	}
	if got, _ := json.Marshal(after["kalypso_gitops_commit.dev"]["changes_counts"]); string(got) != `{"create":"5","delete":"1","update":"0"}` {
		t.Errorf("show -json changes_counts = %s", got)
	}
	if got, _ := json.Marshal(after["kalypso_template.kustomize"]["manifests"]); !strings.Contains(string(got), "marker-template-body") {
		t.Errorf("show -json template manifests = %s", got)
	}
	if got, _ := json.Marshal(after["kalypso_workload_registration.app"]["workload"]); !strings.Contains(string(got), "marker-target-path") {
		t.Errorf("show -json workload = %s", got)
	}
}
