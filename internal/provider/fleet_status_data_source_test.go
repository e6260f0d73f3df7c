// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleethistory"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
)

// fleetRig is the scripted history of promotions (three environment branches, a control plane) with the
// clusters' statuses on the GitHub REST mock.
type fleetRig struct {
	s  *fleethistory.Script
	gh *mockgithub.Server
}

func newFleetRig(t *testing.T) fleetRig {
	t.Helper()
	s := fleethistory.Build(t, t.TempDir())
	gh := mockgithub.Start(t, rolloutToken)
	for sha, sts := range s.Statuses {
		for i := len(sts) - 1; i >= 0; i-- { // oldest first, as they were posted
			st := sts[i]
			gh.AddStatus("org/gitops", sha, mockgithub.Status{State: st.State, Context: st.Context, Description: st.Description, UpdatedAt: st.UpdatedAt, Creator: st.Creator})
		}
	}
	return fleetRig{s: s, gh: gh}
}

// config reads the three environments; repo and devBranch vary for the failure cases.
func (r fleetRig) config(repo, devBranch string) string {
	return fmt.Sprintf(`
provider "kalypso" {
  github_base_url     = %[1]q
  git_token           = %[2]q
  allow_loopback_http = true # mockgithub is plain http on 127.0.0.1
}

locals {
  statuses = {
    repository       = %[6]q
    context_patterns = [%[5]q]
  }
}

data "kalypso_fleet_status" "all" {
  repository_url = %[3]q
  environments = [
    { name = "dev", branch = %[7]q, github_statuses = local.statuses },
    { name = "stage", github_statuses = local.statuses },
    { name = "prod", github_statuses = local.statuses, clusters = { large = ["prod-large-1"], small = ["prod-small-1"] } },
  ]
  control_plane  = { repo = %[4]q }
  metrics_window = "168h"
  as_of          = "2026-01-09T09:00:00Z"
  render_html    = true
}
`, r.gh.BaseURL(), rolloutToken, "file://"+filepath.ToSlash(repo), "file://"+filepath.ToSlash(r.s.ControlPlane), fleethistory.ContextPattern, "org/gitops", devBranch)
}

func fleetRow(env, ct, dt, desired, promoted, version, state string, succeeded, clusters int64, changedAt string) knownvalue.Check {
	return knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"environment": knownvalue.StringExact(env), "cluster_type": knownvalue.StringExact(ct), "deployment_target": knownvalue.StringExact(dt),
		"desired_commit": knownvalue.StringExact(desired), "promoted_commit": knownvalue.StringExact(promoted), "version": knownvalue.StringExact(version),
		"state": knownvalue.StringExact(state), "succeeded": knownvalue.Int64Exact(succeeded), "clusters": knownvalue.Int64Exact(clusters),
		"changed_at": knownvalue.StringExact(changedAt),
	})
}

// The fleet status of the scripted history, read through the terraform CLI with the statuses on the
// GitHub REST mock: every row, the drift, both comparisons, dev's DORA figures and the Markdown summary;
// the plan after it is empty.
func TestAccFleetStatus_scriptedHistory_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newFleetRig(t)
	c := r.s.Commits
	ds := "data.kalypso_fleet_status.all"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: r.config(r.s.GitOps, "dev"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("rows"), knownvalue.ListExact([]knownvalue.Check{
					fleetRow("dev", "large", "hello", c["D5"], c["C4"], "v1.2.1", "progressing", 0, 1, "2026-01-08T10:00:00Z"),
					fleetRow("dev", "small", "canary", c["D1"], c["C1"], "v0.1.0", "succeeded", 2, 2, "2026-01-05T10:00:00Z"),
					fleetRow("dev", "small", "hello", c["D5"], c["C4"], "v1.2.1", "progressing", 1, 2, "2026-01-08T10:00:00Z"),
					fleetRow("dev", "small", "orders", c["D1"], c["C1"], "v1.0.0", "succeeded", 2, 2, "2026-01-05T10:00:00Z"),
					fleetRow("stage", "large", "hello", c["S1"], c["C1"], "v1.0.0", "succeeded", 1, 1, "2026-01-06T12:00:00Z"),
					fleetRow("stage", "small", "hello", c["S2"], c["C2"], "v1.1.0", "succeeded", 1, 1, "2026-01-08T15:00:00Z"),
					fleetRow("stage", "small", "orders", c["S1"], c["C1"], "v1.0.0", "succeeded", 1, 1, "2026-01-06T12:00:00Z"),
					fleetRow("prod", "large", "hello", c["P1"], c["C1"], "v1.0.0", "unknown", 0, 1, "2026-01-07T12:00:00Z"),
					fleetRow("prod", "small", "hello", c["P1"], c["C1"], "v1.0.0", "succeeded", 1, 1, "2026-01-07T12:00:00Z"),
					fleetRow("prod", "small", "orders", c["P1"], c["C1"], "v1.0.0", "succeeded", 1, 1, "2026-01-07T12:00:00Z"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("rows").AtSliceIndex(1).AtMapKey("age_seconds"), knownvalue.Int64Exact(95*3600)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("rows").AtSliceIndex(3).AtMapKey("version_from"), knownvalue.StringExact("argocd")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("drift_count"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("clusters").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"environment": knownvalue.StringExact("dev"), "name": knownvalue.StringExact("dev-large-1"), "id": knownvalue.StringExact("dev-large-1@flux"),
					"cluster_type": knownvalue.StringExact("large"), "commit": knownvalue.StringExact(c["D4"]), "folder_commit": knownvalue.StringExact(c["D5"]),
					"drift": knownvalue.Bool(true)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("comparisons"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"from": knownvalue.StringExact("dev"), "to": knownvalue.StringExact("stage"), "same": knownvalue.Int64Exact(1),
						"differing": knownvalue.ListExact([]knownvalue.Check{
							fleetDiff("large", "hello", "", "v1.2.1", "v1.0.0", "reconciler.yaml", "changed"),
							fleetDiff("small", "canary", "from", "v0.1.0", "", "namespace.yaml", "removed", "reconciler.yaml", "removed"),
							fleetDiff("small", "hello", "", "v1.2.1", "v1.1.0", "reconciler.yaml", "changed"),
						})}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"from": knownvalue.StringExact("stage"), "to": knownvalue.StringExact("prod"), "same": knownvalue.Int64Exact(2),
						"differing": knownvalue.ListExact([]knownvalue.Check{fleetDiff("small", "hello", "", "v1.1.0", "v1.0.0", "reconciler.yaml", "changed")})}),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("metrics").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"environment": knownvalue.StringExact("dev"), "window_start": knownvalue.StringExact("2026-01-02T09:00:00Z"), "window_end": knownvalue.StringExact("2026-01-09T09:00:00Z"),
					"deployments": knownvalue.Int64Exact(5), "deployments_per_day": knownvalue.Float64Exact(5.0 / 7),
					"lead_times": knownvalue.Int64Exact(3), "lead_time_median": knownvalue.StringExact("1h30m0s"),
					"failed": knownvalue.Int64Exact(1), "change_failure_rate": knownvalue.Float64Exact(0.2),
					"restores": knownvalue.Int64Exact(1), "time_to_restore_median": knownvalue.StringExact("4h10m0s"),
					"dora_keys": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("deployment_frequency"), knownvalue.StringExact("lead_time_for_changes"),
						knownvalue.StringExact("change_failure_rate"), knownvalue.StringExact("time_to_restore")}),
					"notes": knownvalue.ListExact([]knownvalue.Check{}),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("metrics").AtSliceIndex(2).AtMapKey("lead_time_median"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("environment_status").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact("dev"), "head_commit": knownvalue.StringExact(c["D5"]), "promoted_commit": knownvalue.StringExact(c["C4"]),
					"state": knownvalue.StringExact("progressing"), "drift": knownvalue.Int64Exact(1)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("markdown"), knownvalue.StringRegexp(regexp.MustCompile(
					`(?s)^# Fleet status\n\n3 environments, 10 deployment targets, 7 clusters, 1 drifting; measured at 2026-01-09T09:00:00Z\.\n.*`+
						regexp.QuoteMeta("- dev / large / dev-large-1: reports `"+c["D4"][:7]+"` (progressing), the folder is at `"+c["D5"][:7]+"`")))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("html"), knownvalue.StringRegexp(regexp.MustCompile(
					`(?s)^<!DOCTYPE html>.*<td class="cell state-progressing" data-env="dev" data-cluster-type="large" data-state="progressing" data-targets="1">.*<details id="workload-hello"`))),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}

func fleetDiff(ct, dt, only, from, to string, files ...string) knownvalue.Check {
	var fs []knownvalue.Check
	for i := 0; i+1 < len(files); i += 2 {
		fs = append(fs, knownvalue.ObjectExact(map[string]knownvalue.Check{"path": knownvalue.StringExact(files[i]), "change": knownvalue.StringExact(files[i+1])}))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"cluster_type": knownvalue.StringExact(ct), "deployment_target": knownvalue.StringExact(dt), "only": knownvalue.StringExact(only),
		"from_version": knownvalue.StringExact(from), "to_version": knownvalue.StringExact(to), "files": knownvalue.ListExact(fs),
	})
}

// Bad input fails the read with a diagnostic at the attribute to fix, and no status: an unknown branch, a
// repository whose head has no Promoted_Commit_Id, a report source that fails.
func TestAccFleetStatus_badInput_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newFleetRig(t)
	re := func(parts ...string) *regexp.Regexp {
		for i, p := range parts {
			parts[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
		}
		return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      r.config(r.s.GitOps, "develop"),
				ExpectError: re(`Cannot read the fleet status of dev`, `branch "develop"`, `branch not found`, `Check environments[0].branch`),
			},
			{
				Config:      r.config(r.s.NoPromoted, "dev"),
				ExpectError: re(`Cannot read the fleet status of dev`, `has no .github/tracking/Promoted_Commit_Id`, `promoted_commit_id set`, `no status was read`),
			},
			{
				// The status API refuses the token: the source fails.
				Config:      strings.Replace(r.config(r.s.GitOps, "dev"), rolloutToken, "ghp_REVOKED0123456789abcdef0123456789", 1),
				ExpectError: re(`Cannot read the rollout of dev`, `the report source failed`, `401 Bad credentials`, `the token may read commit statuses`),
			},
		},
	})
}

// Each failure is reported at the attribute to fix, in the environment it belongs to.
func TestFleetStatusErrorPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err   error
		want  string
		azure bool // environment 0 reads Azure Resource Graph, the source that has a cluster limit of its own
	}{
		{&fleetstatus.EnvError{Index: 1, Env: "stage", Err: fmt.Errorf("%w: the head", fleetstatus.ErrNoPromoted)}, "environments[1].branch", false},
		{&fleetstatus.EnvError{Index: 1, Env: "stage", Err: &gitrepo.Error{Op: "read", Repo: "r", Branch: "stage", Err: gitrepo.ErrBranchNotFound}}, "environments[1].branch", false},
		{&fleetstatus.EnvError{Index: 0, Env: "dev", Err: fmt.Errorf("%w: %w", fleetstatus.ErrSource, githubpr.ErrNotFound)}, "environments[0].github_statuses", false},
		{&fleetstatus.EnvError{Index: 0, Env: "dev", Err: fmt.Errorf("%w: cluster", rollout.ErrAmbiguousCluster)}, "environments[0].clusters", false},
		{&fleetstatus.EnvError{Index: 0, Env: "dev", Err: fmt.Errorf("%w: 5000", rollout.ErrTooManyClusters)}, "max_clusters", true},
		{&fleetstatus.EnvError{Index: -1, Env: "control plane", Err: &gitrepo.Error{Op: "read", Repo: "r", Branch: "main", Err: gitrepo.ErrRepositoryNotFound}}, "control_plane.repo", false},
		{fmt.Errorf("%w: comparison dev vs qa names environment", fleetstatus.ErrInput), "compare", false},
	} {
		sources := []*rolloutSourceKind{githubStatusesSource, githubStatusesSource}
		if tc.azure {
			sources[0] = azureResourceGraphSource
		}
		diags := fleetStatusError(tc.err, sources)
		if len(diags) != 1 {
			t.Fatalf("%v: %d diagnostics", tc.err, len(diags))
		}
		wp, ok := diags[0].(diag.DiagnosticWithPath)
		if !ok || wp.Path().String() != tc.want {
			t.Errorf("%v: at %v, want %s", tc.err, diags[0], tc.want)
		}
	}
}

// max_items cuts rows, clusters and each comparison's differing folders, says so in truncated, and
// leaves the counts and the Markdown summary whole.
func TestAccFleetStatus_maxItems_MockGitHubAPI(t *testing.T) {
	t.Parallel()
	r := newFleetRig(t)
	ds := "data.kalypso_fleet_status.all"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: strings.Replace(r.config(r.s.GitOps, "dev"), "render_html    = true", "render_html = false\n  max_items = 2", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("rows"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("rows").AtSliceIndex(1).AtMapKey("deployment_target"), knownvalue.StringExact("canary")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("clusters"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("comparisons").AtSliceIndex(0).AtMapKey("differing"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("comparisons").AtSliceIndex(0).AtMapKey("same"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("truncated"), knownvalue.StringExact("Cut to 2 items per list: rows: 2 of 10; clusters: 2 of 7; dev vs stage differing: 2 of 3.")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("environment_status").AtSliceIndex(0).AtMapKey("rows"), knownvalue.Int64Exact(4)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("markdown"), knownvalue.StringRegexp(regexp.MustCompile(`prod.*small.*orders`))),
			},
		}},
	})
}
