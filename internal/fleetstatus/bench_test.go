// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

import (
	"context"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleetbench"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/proccpu"
)

// BenchmarkFleetStatus measures one read of the whole fleet from a local bare repository (what a plan of
// kalypso_fleet_status does besides the status requests), with the Markdown summary; HTML adds the page.
func BenchmarkFleetStatus(b *testing.B) {
	bare := fleetbench.Build(b, b.TempDir())
	c := &gitrepo.Client{}
	ctx := context.Background()
	req := fleetbench.Request(b, c, bare)
	for _, page := range []bool{false, true} {
		name := "markdown"
		if page {
			name = "markdown+html"
		}
		b.Run(name, func(b *testing.B) {
			var rows int
			cpuBefore := proccpu.Seconds()
			for range b.N {
				st, err := fleetstatus.Read(ctx, c, req)
				if err != nil {
					b.Fatal(err)
				}
				if md := st.Markdown(0); len(md) > fleetstatus.MarkdownLimit {
					b.Fatalf("markdown of %d bytes", len(md))
				}
				if page {
					if _, err := st.HTML(); err != nil {
						b.Fatal(err)
					}
				}
				rows = len(st.Rows)
				if rows != fleetbench.Rows || len(st.Clusters) != 3*fleetbench.Clusters {
					b.Fatalf("%d rows, %d clusters", rows, len(st.Clusters))
				}
			}
			b.StopTimer()
			// CPU time beside wall time: on a machine shared with other jobs the wall time says little.
			b.ReportMetric((proccpu.Seconds()-cpuBefore)/float64(b.N), "cpu-s/op")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
