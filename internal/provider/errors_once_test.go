// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// errorsOnceModel: three cluster types, one workload with two Dev targets, a policy for all, and a
// platform ConfigMap; the render-mode commit renders them. Each case breaks one thing.
const errorsOnceModel = `
terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}

variable "repo" { type = string }
variable "reconciler" {
  type    = string
  default = "arc-flux"
}
variable "replicas" {
  type    = string
  default = "3"
}

resource "kalypso_cluster_type" "ct" {
  for_each   = toset(["a", "b", "c"])
  name       = each.key
  reconciler = var.reconciler
}

resource "kalypso_workload_registration" "app" {
  name      = "app"
  workspace = "ws"
  workload = {
    deployment_targets = [
      { name = "t1", environment = "dev", manifests = { repo = "https://github.com/o/r", branch = "main", path = "./t1" } },
      { name = "t2", environment = "dev", manifests = { repo = "https://github.com/o/r", branch = "main", path = "./t2" } },
    ]
  }
}

resource "kalypso_scheduling_policy" "all" {
  name = "all"
}

resource "kalypso_platform_config" "base" {
  name = "base"
  data = { REPLICAS = var.replicas }
}

resource "kalypso_config_schema" "limits" {
  name   = "limits"
  schema = jsonencode({ type = "object", properties = { REPLICAS = { type = "integer", maximum = 5 } } })
}

resource "kalypso_gitops_commit" "dev" {
  repository_url = var.repo
  branch         = "main"
  render = {
    environment = "dev"
    manifests = concat(
      [for c in kalypso_cluster_type.ct : c.manifest],
      [kalypso_workload_registration.app.manifest, kalypso_scheduling_policy.all.manifest],
      [kalypso_platform_config.base.manifest, kalypso_config_schema.limits.manifest],
    )
  }
}
`

// Each of these errors is reported once, on the object or attribute that holds the bad value, in a
// real terraform plan: a reconciler mistyped on three cluster types (one Missing template error naming
// the three), a platform config value its schema rejects (one error about ConfigMap "base", which
// suggests the config_validation attribute the resource has), and a Git host that refuses connections
// (one error on repository_url).
func TestAccGitopsCommit_ErrorsNameTheirObjectOnce(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(errorsOnceModel), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := "file://" + filepath.ToSlash(gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"README.md": "fleet\n"}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := fmt.Sprintf("https://%s/fleet.git", l.Addr())
	_ = l.Close() // nothing listens there any more: the connection is refused

	tf := newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	if out := tf.mustRun("plan", "-input=false", "-no-color", "-var", "repo="+repo); !strings.Contains(out, "kalypso_gitops_commit.dev will be created") {
		t.Fatalf("the unbroken model does not plan:\n%s", out)
	}

	for _, tc := range []struct {
		name string
		vars []string
		// want matches the one error; every diagnostic of the plan must be it.
		want string
	}{
		{"reconciler typo on three cluster types", []string{"reconciler=arc-flx"},
			`Error: Missing template \(ClusterType "a"\)[\s\S]*Field: spec\.reconciler[\s\S]*template "arc-flx" is not in the input[\s\S]*cluster\s+types\s+"a",\s+"b",\s+"c"`},
		{"schema violation", []string{"replicas=10"},
			`Error: Platform config violates schema \(ConfigMap "base"\)[\s\S]*Field: data\.REPLICAS[\s\S]*Fix REPLICAS in ConfigMap "base"[\s\S]*render\.config_validation = "warn"`},
		{"unreachable host", []string{"repo=" + refused},
			`Error: [^\n]*\n\n  with kalypso_gitops_commit\.dev,\n  on main\.tf line \d+, in resource "kalypso_gitops_commit" "dev":\n\s*\d+:\s*repository_url = var\.repo[\s\S]*check\s+repository_url\s+\(its\s+host\s+and\s+port`},
	} {
		args := []string{"plan", "-input=false", "-no-color", "-var", "repo=" + repo}
		for _, v := range tc.vars {
			args = append(args, "-var", v)
		}
		out, code := tf.run(args...)
		if code == 0 {
			t.Errorf("%s: the plan succeeded:\n%s", tc.name, out)
			continue
		}
		if n := strings.Count(out, "Error: "); n != 1 {
			t.Errorf("%s: %d errors, want 1:\n%s", tc.name, n, out)
		}
		if !regexp.MustCompile(tc.want).MatchString(out) {
			t.Errorf("%s: the error does not match %s:\n%s", tc.name, tc.want, out)
		}
	}
}

// errorsOnceFunctionModel is errorsOnceModel's fleet rendered by the provider function, with one
// Template of the configuration's own next to the built-in ones.
const errorsOnceFunctionModel = `
terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}

variable "reconciler" { type = string }

resource "kalypso_cluster_type" "ct" {
  for_each   = toset(["a", "b", "c"])
  name       = each.key
  reconciler = var.reconciler
}

resource "kalypso_template" "flux_v1" {
  name      = "flux-v1"
  type      = "reconciler"
  manifests = ["kind: Kustomization\n"]
}

resource "kalypso_workload_registration" "app" {
  name      = "app"
  workspace = "ws"
  workload = {
    deployment_targets = [
      { name = "t1", environment = "dev", manifests = { repo = "https://github.com/o/r", branch = "main", path = "./t1" } },
    ]
  }
}

resource "kalypso_scheduling_policy" "all" {
  name = "all"
}

output "assignments" {
  value = length(provider::kalypso::environment_render("dev", concat(
    [for c in kalypso_cluster_type.ct : c.manifest],
    [kalypso_template.flux_v1.manifest, kalypso_workload_registration.app.manifest, kalypso_scheduling_policy.all.manifest],
  )).assignments)
}
`

// Terraform shows a function's error at the call, so through provider::kalypso::environment_render a
// reconciler mistyped on three cluster types is one error whose text names the cluster type, its
// manifests element, the kalypso_cluster_type attribute `reconciler`, the reconciler templates it
// accepts (the configuration's own and the built-in ones) and the likely one, in a real terraform plan.
func TestAccEnvironmentRenderFunction_ReconcilerTypoNamesTheClusterTypeOnce(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(errorsOnceFunctionModel), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLI(t, work)
	tf.mustRun("init", "-input=false", "-no-color")
	if out := tf.mustRun("plan", "-input=false", "-no-color", "-var", "reconciler=flux-v1"); !strings.Contains(out, "assignments = 3") {
		t.Fatalf("the unbroken model does not plan 3 assignments:\n%s", out)
	}
	out, code := tf.run("plan", "-input=false", "-no-color", "-var", "reconciler=arc-flx")
	if code == 0 {
		t.Fatalf("the plan succeeded:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("%d errors, want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "Missing template"); n != 1 {
		t.Errorf("Missing template %d times, want once:\n%s", n, out)
	}
	// Terraform wraps the text at 78 columns.
	text := strings.Join(strings.Fields(out), " ")
	want := `Missing template: ClusterType "a" (manifests[0], document 0 (line 1)), spec.reconciler (` + "`reconciler`" + ` of kalypso_cluster_type): ` +
		`3 assignments ("a/app-t1", "b/app-t1", "c/app-t1"): template "arc-flx" is not in the input and is not built in; ` +
		`the reconciler templates are ` + reconcilerTemplateNames("flux-v1") + ` (did you mean "arc-flux"?). Add a Template named "arc-flx" of type reconciler, ` +
		`or change spec.reconciler to one of them (spec.reconciler of cluster types "a", "b", "c")`
	if !strings.Contains(text, want) {
		t.Errorf("the error does not say\n%s\n%s", want, out)
	}
}

// reconcilerTemplateNames is how the "Missing template" error lists the reconciler templates: the
// built-in ones (render's registry) and those of the configuration (inputs), sorted and quoted.
func reconcilerTemplateNames(inputs ...string) string {
	names := slices.Clone(inputs)
	for _, b := range render.BuiltinReconcilers() {
		names = append(names, b.Name)
	}
	sort.Strings(names)
	return `"` + strings.Join(names, `", "`) + `"`
}
