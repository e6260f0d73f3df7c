// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleetbench"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockgithub"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// BenchmarkFleetStatusConversion measures what kalypso_fleet_status adds to the engine for the fleet of
// issue 33 (259,200 rows, 15,000 clusters): the status into framework values, into the state, and into
// the msgpack that goes to Terraform. The engine's read is done once, before the timer.
//
//	go test ./internal/provider -run '^$' -bench FleetStatusConversion -benchtime 3x -benchmem
func BenchmarkFleetStatusConversion(b *testing.B) {
	ctx := context.Background()
	bare := fleetbench.Build(b, b.TempDir())
	c := &gitrepo.Client{}
	req := fleetbench.Request(b, c, bare)
	st, err := fleetstatus.Read(ctx, c, req)
	if err != nil {
		b.Fatal(err)
	}
	var sch datasource.SchemaResponse
	(&FleetStatusDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &sch)
	typ := sch.Schema.Type().TerraformType(ctx)
	// The configuration: every attribute null but the repository, as Read gets it from Terraform.
	attrs := map[string]tftypes.Value{}
	for name, t := range typ.(tftypes.Object).AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	attrs["repository_url"] = tftypes.NewValue(tftypes.String, bare)
	var config FleetStatusModel
	if diags := (tfsdk.Config{Schema: sch.Schema, Raw: tftypes.NewValue(typ, attrs)}).Get(ctx, &config); diags.HasError() {
		b.Fatal(diags)
	}
	// default: what a read keeps (max_items unset); all: every row, as with max_items = 1000000.
	for _, bound := range []struct {
		name string
		max  int
	}{{"default", fleetstatus.DefaultMaxItems}, {"all", 1000000}} {
		b.Run(bound.name, func(b *testing.B) {
			b.ReportAllocs()
			cpuBefore := proccpu.Seconds()
			var size, rows int
			for range b.N {
				data := config
				kept, cut := st.Bounded(bound.max)
				data.Truncated = types.StringValue(cut)
				data.fill(kept)
				data.Markdown = types.StringValue(st.Markdown(0))
				state := tfsdk.State{Schema: sch.Schema, Raw: tftypes.NewValue(typ, nil)}
				if diags := setFleetState(ctx, &state, &data, kept); diags.HasError() {
					b.Fatal(diags)
				}
				dv, err := tfprotov6.NewDynamicValue(typ, state.Raw)
				if err != nil {
					b.Fatal(err)
				}
				size, rows = len(dv.MsgPack), len(kept.Rows)
			}
			b.StopTimer()
			b.ReportMetric((proccpu.Seconds()-cpuBefore)/float64(b.N), "cpu-s/op")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(size)/(1<<20), "msgpack-MiB")
			b.ReportMetric(float64(rows), "rows")
		})
	}
}

// BenchmarkFleetStatusPlan times a real `terraform plan` (under /usr/bin/time -v) of a configuration that
// reads the fleet of issue 33 with kalypso_fleet_status: the provider built with `go build` and served
// through dev_overrides, the three environments on a local bare repository, 15,000 clusters' statuses on
// the GitHub REST mock (tens of thousands of statuses, 50 pages per commit reported). cpu-s/op is
// terraform's and the provider's user+system time, peak-rss-MiB the larger of their peaks; the provider
// runs under its own /usr/bin/time (a wrapper named in dev_overrides), so provider-cpu-s/op and
// provider-rss-MiB are its share. The mock's own CPU (this process) is not counted.
// default keeps max_items unset (fleetstatus.DefaultMaxItems per list), 10000 sets it to 10,000, all keeps
// every row (max_items = 1000000). KALYPSO_FLEET_PLAN_PROVIDER names a provider binary to time instead of
// this tree's (an older build, for a before-and-after run in one session; it must accept the configuration).
//
//	go test ./internal/provider -run '^$' -bench 'FleetStatusPlan/default' -benchtime 1x
func BenchmarkFleetStatusPlan(b *testing.B) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		b.Skip("no terraform on PATH")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("no /usr/bin/time")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "bin")
	provider := filepath.Join(bin, "real", "terraform-provider-kalypso")
	if given := os.Getenv("KALYPSO_FLEET_PLAN_PROVIDER"); given != "" {
		provider = given
	} else {
		build := exec.Command("go", "build", "-o", provider, ".")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	providerTime := filepath.Join(dir, "provider-time.txt")
	wrapper := "#!/bin/sh\nexec /usr/bin/time -o " + strconv.Quote(providerTime) + " -v " + strconv.Quote(provider) + " \"$@\"\n"
	if err := os.MkdirAll(bin, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "terraform-provider-kalypso"), []byte(wrapper), 0o700); err != nil {
		b.Fatal(err)
	}
	bare := fleetbench.Build(b, b.TempDir())
	gh := mockgithub.Start(b, rolloutToken)
	for _, reports := range fleetbench.ReportsOf(b, &gitrepo.Client{}, bare) {
		for _, r := range reports {
			state := "success"
			if r.State != rollout.Succeeded {
				state = "pending"
			}
			gh.AddStatus("org/gitops", r.Commit, mockgithub.Status{State: state, Context: "kalypso/" + r.ClusterType + "/" + r.Cluster, UpdatedAt: r.Time})
		}
	}
	rc := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/kalypso/kalypso" = %q
  }
  direct {}
}
`, bin)
	if err := os.WriteFile(filepath.Join(dir, "terraformrc"), []byte(rc), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bound := range []struct{ name, maxItems string }{{"default", ""}, {"10000", "max_items = 10000"}, {"all", "max_items = 1000000"}} {
		b.Run(bound.name, func(b *testing.B) {
			work := filepath.Join(dir, bound.name)
			if err := os.MkdirAll(work, 0o700); err != nil {
				b.Fatal(err)
			}
			config := fmt.Sprintf(`terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}

provider "kalypso" {
  github_base_url     = %[1]q
  git_token           = %[2]q
  allow_loopback_http = true
}

locals {
  statuses = { repository = "org/gitops", context_patterns = ["kalypso/(?P<cluster_type>[^/]+)/(?P<cluster>[^/]+)"] }
}

data "kalypso_fleet_status" "fleet" {
  repository_url = %[3]q
  environments = [for e in ["dev", "stage", "prod"] : { name = e, github_statuses = local.statuses }]
  max_clusters   = 10000
  as_of          = %[4]q
  %[5]s
}

output "rows" { value = length(data.kalypso_fleet_status.fleet.rows) }
output "rows_total" { value = sum(data.kalypso_fleet_status.fleet.environment_status[*].rows) }
`, gh.BaseURL(), rolloutToken, "file://"+filepath.ToSlash(bare), fleetbench.Now.Format(time.RFC3339), bound.maxItems)
			if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
				b.Fatal(err)
			}
			var cpu, rss, providerCPU, providerRSS float64
			for range b.N {
				cmd := exec.Command("/usr/bin/time", "-v", tf, "plan", "-input=false", "-no-color", "-lock=false")
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					b.Fatalf("terraform plan: %v\n%s\n%s", err, stdout.String(), stderr.String())
				}
				if !strings.Contains(stdout.String(), fmt.Sprintf("rows_total = %d", fleetbench.Rows)) {
					b.Fatalf("the plan does not show %d rows:\n%s", fleetbench.Rows, stdout.String())
				}
				user, sys, peak := timeFigure(stderr.String(), "User time (seconds)"), timeFigure(stderr.String(), "System time (seconds)"),
					timeFigure(stderr.String(), "Maximum resident set size (kbytes)")
				cpu += user + sys
				rss = max(rss, peak/1024)
				report, err := os.ReadFile(providerTime)
				if err != nil {
					b.Fatal(err)
				}
				providerCPU += timeFigure(string(report), "User time (seconds)") + timeFigure(string(report), "System time (seconds)")
				providerRSS = max(providerRSS, timeFigure(string(report), "Maximum resident set size (kbytes)")/1024)
				b.Logf("plan output:\n%s\n/usr/bin/time -v terraform plan:\n%s\nthe provider's:\n%s", lastLines(stdout.String(), 8), stderr.String(), report)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			b.ReportMetric(rss, "peak-rss-MiB")
			b.ReportMetric(providerCPU/float64(b.N), "provider-cpu-s/op")
			b.ReportMetric(providerRSS, "provider-rss-MiB")
		})
	}
}

// timeFigure is the number after "name: " in /usr/bin/time -v's report (0 when absent).
func timeFigure(report, name string) float64 {
	for _, line := range strings.Split(report, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+": "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
