// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kalypso/terraform-provider-kalypso/internal/render"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleet"
)

// BenchmarkRenderResultEncoding measures what the provider adds to the engine for one environment_render
// call: converting the result into framework values, then into the msgpack that goes to Terraform.
//
//	go test ./internal/provider -run '^$' -bench RenderResultEncoding -benchtime 1x -benchmem
func BenchmarkRenderResultEncoding(b *testing.B) {
	for _, size := range []string{"1k", "10k", "100k"} {
		b.Run(size, func(b *testing.B) {
			spec, err := fleet.Preset(size)
			if err != nil {
				b.Fatal(err)
			}
			f, err := fleet.Generate(spec)
			if err != nil {
				b.Fatal(err)
			}
			res, diags := render.NewEngine().Render("dev", f.Manifests(), render.Options{})
			if diags.HasError() {
				b.Fatal(diags)
			}
			ctx := context.Background()
			objType := types.ObjectType{AttrTypes: renderOutputAttrTypes}
			b.ReportAllocs()
			b.ResetTimer()
			var bytes int
			for i := 0; i < b.N; i++ {
				obj, d := types.ObjectValue(renderOutputAttrTypes, toRenderOutputs(res, nil).attributes())
				if d.HasError() {
					b.Fatal(d)
				}
				tfValue, err := obj.ToTerraformValue(ctx)
				if err != nil {
					b.Fatal(err)
				}
				dv, err := tfprotov6.NewDynamicValue(objType.TerraformType(ctx), tfValue)
				if err != nil {
					b.Fatal(err)
				}
				bytes = len(dv.MsgPack)
			}
			b.ReportMetric(float64(bytes)/(1<<20), "msgpack-MiB")
		})
	}
}
