// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package render

import (
	"fmt"
	"syscall"
	"testing"
)

// cpuSeconds is the process's CPU time (user and system): on a shared machine it moves much less than
// wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkYAMLCheckerInvalid checks the output of the tutorial's arc-flux template for many
// assignments whose names differ, as a render does: all but the first of each shape are memo hits.
func BenchmarkYAMLCheckerInvalid(b *testing.B) {
	const manifest = "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: GitRepository\nmetadata:\n  name: \"%[1]s\"\n  namespace: flux-system\n" +
		"spec:\n  interval: 30s\n  url: \"https://github.com/kalypso-fleet/%[2]s-gitops\"\n  ref:\n    branch: \"dev\"\n  secretRef:\n      name: repo-secret    \n" +
		"---\napiVersion: kustomize.toolkit.fluxcd.io/v1beta2\nkind: Kustomization\nmetadata:\n  name: \"%[1]s\"\n  namespace: flux-system\n" +
		"spec:\n  interval: 30s\n  targetNamespace: \"dev-%[3]s-%[1]s\"\n  sourceRef:\n    kind: GitRepository\n    name: \"%[1]s\"\n  path: \"./%[1]s\" \n  prune: true\n"
	type job struct {
		text  string
		names []string
	}
	var jobs []job
	for ct := 0; ct < 30; ct++ {
		for w := 0; w < 30; w++ {
			workload := fmt.Sprintf("hello-world-app-%03d", w)
			target := workload + "-functional-test"
			cluster := fmt.Sprintf("command-center-central-us-%03d", ct)
			jobs = append(jobs, job{fmt.Sprintf(manifest, target, workload, cluster), []string{target, cluster, workload}})
		}
	}
	b.ResetTimer()
	c0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		c := &yamlChecker{}
		for _, j := range jobs {
			names := newMaskNames(j.names) // once per assignment, as checkYAML does
			if err := c.invalidMasked(j.text, &names); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(jobs)), "ns/text")
	b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N*len(jobs)), "cpu-ns/text")
}
