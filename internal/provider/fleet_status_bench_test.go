// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
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
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// fixedReports serves reports from memory: the conversion benchmark measures the provider, not a status API.
type fixedReports []rollout.Report

func (s fixedReports) Reports(context.Context, []string) ([]rollout.Report, error) { return s, nil }

// BenchmarkFleetStatusConversion measures what kalypso_fleet_status adds to the engine for the fleet of
// issue 33 (259,200 rows, 15,000 clusters): the status into framework values, into the state, and into
// the msgpack that goes to Terraform. The engine's read is done once, before the timer.
//
//	go test ./internal/provider -run '^$' -bench FleetStatusConversion -benchtime 3x -benchmem
func BenchmarkFleetStatusConversion(b *testing.B) {
	ctx := context.Background()
	bare := fleetbench.Build(b, b.TempDir())
	c := &gitrepo.Client{}
	req := fleetstatus.Request{Repo: bare, MaxClusters: 10000, Window: 30 * 24 * time.Hour, Now: fleetbench.Now}
	for _, branch := range fleetbench.Branches {
		log, err := c.Log(ctx, bare, branch, fleetbench.Reported, "")
		if err != nil {
			b.Fatal(err)
		}
		var newest []fleetbench.Commit
		for _, e := range log {
			newest = append(newest, fleetbench.Commit{SHA: e.Commit, Time: e.Time})
		}
		req.Environments = append(req.Environments, fleetstatus.Environment{Name: branch, Branch: branch, Source: fixedReports(fleetbench.Reports(branch, newest))})
	}
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
