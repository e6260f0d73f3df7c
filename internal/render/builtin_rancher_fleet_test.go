// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/crdschema"
)

// The rancher-fleet template writes one GitRepo that Fleet's real CRD (testdata/crds/fleet, from the
// github.com/rancher/fleet module) accepts, with the deployment target's repo, branch and path and the
// assignment's namespace; an scp-style repo, which Flux refuses, is a Git URL Fleet reads, so it renders
// without a diagnostic.
func TestRancherFleetRendersAGitRepoTheFleetCRDAccepts(t *testing.T) {
	t.Parallel()
	docs := []string{
		clusterTypeDoc("edge", map[string]string{"size": "edge"}, "rancher-fleet", "default", "configmap"),
		registrationDoc("app", "ws"),
		workloadDoc("app", "", nil, targetSpec{name: "t", env: "dev"}),
		policyDoc("p", "", "", ""),
	}
	docs[2] = strings.Replace(docs[2], "repo: https://example.com/app\n", "repo: git@github.com:org/app-gitops.git\n", 1)
	res, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	got := res.Files["edge/app-t/reconciler.yaml"]
	want := `apiVersion: fleet.cattle.io/v1alpha1
kind: GitRepo
metadata:
  name: "app-t"
  namespace: fleet-local
  labels:
    scheduler.kalypso.io/workload: "app"
    scheduler.kalypso.io/deployment-target: "app-t"
spec:
  repo: "git@github.com:org/app-gitops.git"
  branch: "dev"
  paths:
    - "./t"
  targetNamespace: "dev-edge-app-t"
  pollingInterval: 1m
`
	if got != want {
		t.Fatalf("reconciler.yaml:\n%s\nwant:\n%s", got, want)
	}
	if err := crdschema.Default(t).Validate(got); err != nil {
		t.Errorf("Fleet's GitRepo CRD refuses it: %v", err)
	}
}
