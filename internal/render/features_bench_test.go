// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package render

import "testing"

// featureSizes pairs a plain fleet with the same fleet using one documented input feature (issue 34),
// plain first: the ratio of their us/assignment is the feature's cost.
var featureSizes = []string{
	"upstream-5.8k",
	// Template actions in 9 of the 30 config maps' values, rendered again (once, or twice for a tpl-style value).
	"upstream-nested-5.8k",
}

// BenchmarkRenderFeatures is BenchmarkRenderShapes on featureSizes:
//
//	go test ./internal/render -run '^$' -bench 'BenchmarkRenderFeatures' -benchtime 5x
func BenchmarkRenderFeatures(b *testing.B) {
	runPresets(b, featureSizes, func(b *testing.B, f *benchFleet) {
		cpu := benchRender(b, f)
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(f.assignments)), "us/assignment")
		b.ReportMetric(cpu*1e6/float64(len(f.assignments)), "cpu-us/assignment")
	})
}
