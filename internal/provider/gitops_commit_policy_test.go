// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

// The docs' OPA policy (examples/policies/gitops_commit.rego), evaluated by the real opa CLI on real
// plans of kalypso_gitops_commit (terraform show -json). CI installs opa and sets KALYPSO_REQUIRE_OPA.

// opaBinary is the opa CLI on PATH or in GOPATH/bin (`go install github.com/open-policy-agent/opa@v1.22.3`), or "".
func opaBinary() string {
	if p, err := exec.LookPath("opa"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "bin", "opa")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// opaOrSkip is opaBinary, skipping the test when there is none unless KALYPSO_REQUIRE_OPA is set.
func opaOrSkip(t *testing.T) string {
	t.Helper()
	opa := opaBinary()
	if opa == "" && os.Getenv("KALYPSO_REQUIRE_OPA") != "" {
		t.Fatal("KALYPSO_REQUIRE_OPA is set but no opa binary was found (go install github.com/open-policy-agent/opa@v1.22.3)")
	}
	if opa == "" {
		t.Skip("no opa binary: the policy is not evaluated (go install github.com/open-policy-agent/opa@v1.22.3)")
	}
	return opa
}

// policyDenies evaluates the docs' policy on the saved plan planFile and returns its denials, sorted.
func (r *lifecycleRig) policyDenies(opa, planFile string) []string {
	r.t.Helper()
	js := r.tf.mustRun("show", "-json", planFile)
	in := filepath.Join(r.work, planFile+".json")
	if err := os.WriteFile(in, []byte(js), 0o600); err != nil {
		r.t.Fatal(err)
	}
	out, err := exec.Command(opa, "eval", "--format=json", "-d", filepath.Join("..", "..", "examples", "policies", "gitops_commit.rego"), "-i", in, "data.kalypso.gitops.deny").CombinedOutput()
	if err != nil {
		r.t.Fatalf("opa eval: %v\n%s", err, out)
	}
	var res struct {
		Result []struct {
			Expressions []struct{ Value []string } `json:"expressions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Result) != 1 || len(res.Result[0].Expressions) != 1 {
		r.t.Fatalf("opa eval output: %v\n%s", err, out)
	}
	got := res.Result[0].Expressions[0].Value
	sort.Strings(got)
	return got
}

// TestAccGitopsCommit_DeletesCarryContentForPolicy: a delete's diff in `terraform show -json` holds the
// removed file's content and changes_counts the counts, so examples/policies/gitops_commit.rego denies a
// plan that deletes a reconciler deploying into kube-system, one that deletes too many files, one that
// lists fewer deletions than it counts, and a destroy.
func TestAccGitopsCommit_DeletesCarryContentForPolicy(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, gitopsOutside)
	reconciler := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: platform\n  namespace: flux-system\nspec:\n  targetNamespace: kube-system\n"
	files := map[string]string{"drone/kube-system/reconciler.yaml": reconciler, "drone/app/namespace.yaml": "kind: Namespace\n"}
	for i := 0; i < 11; i++ {
		files[fmt.Sprintf("large/t%02d/namespace.yaml", i)] = "kind: Namespace\n"
	}
	extra := "  deletion_protection = false\n  max_delete_percent = 100"
	r.write(lifecycleResource("file://"+r.repo, files, extra))
	r.must("apply", "-auto-approve")

	r.write(lifecycleResource("file://"+r.repo, map[string]string{"drone/app/namespace.yaml": "kind: Namespace\n"}, extra))
	r.must("plan", "-out=remove.tfplan")
	planJSON := r.tf.mustRun("show", "-json", "remove.tfplan")
	var plan struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					Changes map[string]struct{ Action, Diff string } `json:"changes"`
					Counts  map[string]string                        `json:"changes_counts"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(planJSON), &plan); err != nil || len(plan.ResourceChanges) != 1 {
		t.Fatalf("show -json: %v\n%s", err, planJSON)
	}
	after := plan.ResourceChanges[0].Change.After
	if c := after.Changes["clusters/drone/kube-system/reconciler.yaml"]; c.Action != "delete" || c.Diff != reconciler {
		t.Errorf("the delete of the kube-system reconciler shows %+v, want its content", c)
	}
	if !reflect.DeepEqual(after.Counts, map[string]string{"create": "0", "update": "0", "delete": "12"}) {
		t.Errorf("changes_counts %v", after.Counts)
	}

	opa := opaOrSkip(t)
	want := []string{
		"kalypso_gitops_commit.test deletes 12 files, more than 10",
		"kalypso_gitops_commit.test deletes clusters/drone/kube-system/reconciler.yaml, which holds objects in namespace kube-system",
	}
	if got := r.policyDenies(opa, "remove.tfplan"); !reflect.DeepEqual(got, want) {
		t.Errorf("policy on the removal plan denies %q, want %q", got, want)
	}
	r.must("plan", "-destroy", "-out=destroy.tfplan")
	if got := r.policyDenies(opa, "destroy.tfplan"); !reflect.DeepEqual(got, []string{"kalypso_gitops_commit.test is destroyed, which deletes every file under its path"}) {
		t.Errorf("policy on the destroy plan denies %q", got)
	}
	// An update that deletes nothing passes.
	r.write(lifecycleResource("file://"+r.repo, fixtures.Merge(files, map[string]string{"drone/app/namespace.yaml": "kind: Namespace\nmetadata: {}\n"}), extra))
	r.must("plan", "-out=update.tfplan")
	if got := r.policyDenies(opa, "update.tfplan"); len(got) != 0 {
		t.Errorf("policy on an update denies %q", got)
	}
	// With max_changes below the number of deletions, the deletions past it are counted, not listed:
	// the policy cannot read their content and refuses the plan.
	r.write(lifecycleResource("file://"+r.repo, map[string]string{"drone/app/namespace.yaml": "kind: Namespace\n"}, extra+"\n  max_changes = 3"))
	r.must("plan", "-out=cut.tfplan")
	got := r.policyDenies(opa, "cut.tfplan")
	if len(got) == 0 || got[0] != "kalypso_gitops_commit.test deletes 12 files but lists 3 of them; raise max_changes so that every deletion is checked" {
		t.Errorf("policy on a removal listed in part denies %q", got)
	}
}

// Flux-shaped files for the policy: an ordinary assignment (its reconcilers in flux-system deploy into
// dev-drone-app), a platform reconciler deploying into kube-system, a ConfigMap in kube-system, Flux's
// own controller in flux-system, and a Namespace.
const (
	policyAppReconciler = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: app
  namespace: flux-system
spec:
  interval: 30s
  url: https://github.com/org/app-gitops
  ref:
    branch: dev
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app
  namespace: flux-system
spec:
  interval: 30s
  targetNamespace: dev-drone-app
  sourceRef:
    kind: GitRepository
    name: app
  path: ./dev
  prune: true
`
	policyAppNamespace = `apiVersion: v1
kind: Namespace
metadata:
  name: dev-drone-app
  labels:
    environment: dev
`
	policyPlatformReconciler = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: platform
  namespace: flux-system
spec:
  interval: 10m
  targetNamespace: kube-system
  sourceRef:
    kind: GitRepository
    name: platform
  path: ./kube-system
  prune: true
`
	policySystemConfig = `apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  log.override: |
    log
`
	policyFluxController = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: kustomize-controller
  namespace: flux-system
spec:
  replicas: 1
`
	policySystemNamespace = `apiVersion: v1
kind: Namespace
metadata:
  name: kube-system
  labels:
    kubernetes.io/metadata.name: kube-system
`
)

func policyFluxFiles() map[string]string {
	return map[string]string{
		"drone/app/reconciler.yaml":      policyAppReconciler,
		"drone/app/namespace.yaml":       policyAppNamespace,
		"drone/platform/reconciler.yaml": policyPlatformReconciler,
		"drone/system/config.yaml":       policySystemConfig,
		"drone/flux/controller.yaml":     policyFluxController,
		"drone/system/namespace.yaml":    policySystemNamespace,
	}
}

// without is files without the named ones.
func without(files map[string]string, names ...string) map[string]string {
	out := fixtures.Merge(files)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// TestAccGitopsCommit_PolicyFitsFlux: the docs' policy on the plans a Flux fleet makes. Removing an
// ordinary assignment (its GitRepository and Kustomization live in flux-system) passes; deleting what
// is in kube-system or flux-system by the objects' own namespace (a ConfigMap in kube-system, Flux's own
// controller, a Kustomization that deploys into kube-system) is denied; updates are read: a ConfigMap
// moved out of kube-system, a renamed kube-system Namespace and a Kustomization retargeted away from
// kube-system are denied, an ordinary update passes; a destroy with retain_on_destroy = true passes; a
// path move passes when its listed changes are complete.
func TestAccGitopsCommit_PolicyFitsFlux(t *testing.T) {
	t.Parallel()
	opa := opaOrSkip(t)
	r := newLifecycleRig(t, gitopsOutside)
	url := "file://" + r.repo
	extra := "  deletion_protection = false\n  max_delete_percent = 100"
	files := policyFluxFiles()
	r.write(lifecycleResource(url, files, extra))
	r.must("apply", "-auto-approve")

	const rc = "kalypso_gitops_commit.test"
	cases := []struct {
		name  string
		files map[string]string
		extra string
		want  []string
	}{
		{"an ordinary assignment removed", without(files, "drone/app/reconciler.yaml", "drone/app/namespace.yaml"), extra, nil},
		{"a reconciler deploying into kube-system deleted", without(files, "drone/platform/reconciler.yaml"), extra,
			[]string{rc + " deletes clusters/drone/platform/reconciler.yaml, which holds objects in namespace kube-system"}},
		{"a ConfigMap in kube-system and Flux's controller deleted", without(files, "drone/system/config.yaml", "drone/flux/controller.yaml"), extra, []string{
			rc + " deletes clusters/drone/flux/controller.yaml, which holds objects in namespace flux-system",
			rc + " deletes clusters/drone/system/config.yaml, which holds objects in namespace kube-system",
		}},
		{"a ConfigMap moved out of kube-system", fixtures.Merge(files, map[string]string{
			"drone/system/config.yaml": strings.Replace(policySystemConfig, "namespace: kube-system", "namespace: default", 1)}), extra,
			[]string{rc + " updates clusters/drone/system/config.yaml, which moves an object out of namespace kube-system"}},
		{"the kube-system Namespace renamed", fixtures.Merge(files, map[string]string{
			"drone/system/namespace.yaml": strings.Replace(policySystemNamespace, "  name: kube-system", "  name: platform-system", 1)}), extra,
			[]string{rc + " updates clusters/drone/system/namespace.yaml, which renames a Namespace away from namespace kube-system"}},
		{"a Kustomization retargeted away from kube-system", fixtures.Merge(files, map[string]string{
			"drone/platform/reconciler.yaml": strings.Replace(policyPlatformReconciler, "targetNamespace: kube-system", "targetNamespace: platform", 1)}), extra,
			[]string{rc + " updates clusters/drone/platform/reconciler.yaml, which retargets what a reconciler deploys away from namespace kube-system"}},
		{"an ordinary update of reconcilers in flux-system", fixtures.Merge(files, map[string]string{
			"drone/app/reconciler.yaml":      strings.ReplaceAll(policyAppReconciler, "interval: 30s", "interval: 1m"),
			"drone/platform/reconciler.yaml": strings.Replace(policyPlatformReconciler, "interval: 10m", "interval: 5m", 1),
			"drone/app/namespace.yaml":       strings.Replace(policyAppNamespace, "environment: dev", "environment: dev-2", 1)}), extra, nil},
		{"an assignment moved to another reconciler", fixtures.Merge(files, map[string]string{
			"drone/app/reconciler.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\n  namespace: argocd\nspec:\n  destination:\n    namespace: dev-drone-app\n"}), extra, nil},
	}
	for i, tc := range cases {
		r.write(lifecycleResource(url, tc.files, tc.extra))
		planFile := fmt.Sprintf("case%d.tfplan", i)
		r.must("plan", "-out="+planFile)
		if got := r.policyDenies(opa, planFile); !reflect.DeepEqual(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("%s: the policy denies %q, want %q", tc.name, got, tc.want)
		}
	}

	// A path move of every file (more than max_deletes with the ownership record) passes when the plan
	// lists every deletion: each deleted file is created again under the new path with the same content.
	moved := fixtures.Merge(files)
	for i := 0; i < 10; i++ {
		moved[fmt.Sprintf("large/t%02d/namespace.yaml", i)] = "kind: Namespace\n"
	}
	r.write(lifecycleResource(url, moved, extra))
	r.must("apply", "-auto-approve")
	r.write(moveResource(url, "main", "envs/dev", moved, extra))
	r.must("plan", "-out=move.tfplan")
	got := r.policyDenies(opa, "move.tfplan")
	listed, counted := r.plannedDeletions("move.tfplan")
	switch {
	case listed == counted && len(got) != 0:
		t.Errorf("a path move that lists all its %d deletions is denied: %q", counted, got)
	case listed < counted && !reflect.DeepEqual(got, []string{fmt.Sprintf("%s deletes %d files but lists %d of them; raise max_changes so that every deletion is checked", rc, counted, listed)}):
		// Until a move lists the old location's ownership record, the plan is incomplete, and only that is denied.
		t.Errorf("a path move that lists %d of its %d deletions: the policy denies %q", listed, counted, got)
	}

	// Retained, a destroy deletes nothing and passes; otherwise it is denied.
	r.write(moveResource(url, "main", "clusters", moved, extra+"\n  retain_on_destroy = true"))
	r.must("apply", "-auto-approve")
	r.must("plan", "-destroy", "-out=retained.tfplan")
	if got := r.policyDenies(opa, "retained.tfplan"); len(got) != 0 {
		t.Errorf("a retained destroy is denied: %q", got)
	}
}

// plannedDeletions counts the deletions a saved plan of kalypso_gitops_commit.test lists in changes and
// counts in changes_counts.
func (r *lifecycleRig) plannedDeletions(planFile string) (listed, counted int) {
	r.t.Helper()
	var plan struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					Changes map[string]struct{ Action string } `json:"changes"`
					Counts  map[string]string                  `json:"changes_counts"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(r.tf.mustRun("show", "-json", planFile)), &plan); err != nil || len(plan.ResourceChanges) != 1 {
		r.t.Fatalf("show -json %s: %v", planFile, err)
	}
	after := plan.ResourceChanges[0].Change.After
	for _, c := range after.Changes {
		if c.Action == "delete" {
			listed++
		}
	}
	if _, err := fmt.Sscan(after.Counts["delete"], &counted); err != nil {
		r.t.Fatalf("changes_counts.delete %q: %v", after.Counts["delete"], err)
	}
	return listed, counted
}
