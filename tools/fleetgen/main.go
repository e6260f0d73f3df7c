// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Command fleetgen writes a deterministic synthetic Kalypso fleet for
// benchmarks: control-plane YAML (-format yaml) or the variables file of the
// plain-HCL baseline (-format tfvars). It prints the fleet's size and the
// assignment count a correct scheduler must produce.
//
//	go run ./tools/fleetgen -size 10k -out /tmp/fleet-10k
//	go run ./tools/fleetgen -size 10k -format tfvars -out /tmp/fleet-10k
//	go run ./tools/fleetgen -size quarter-5.7k -out /tmp/fleet-q -one-more-policy /tmp/one-more.yaml
//	go run ./tools/fleetgen -size costlier-86k -out /tmp/fleet-c -one-more-policy /tmp/p.yaml -one-more-cluster-type /tmp/ct.yaml
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleet"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fleetgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("fleetgen", flag.ContinueOnError)
	size := flags.String("size", "1k", "preset: "+strings.Join(fleet.PresetNames(), ", "))
	out := flags.String("out", "", "output directory (required)")
	format := flags.String("format", "yaml", "yaml: control-plane files; tfvars: "+fleet.TFVarsFileName+" for benchmarks/hcl-baseline; both")
	seed := flags.Uint64("seed", fleet.DefaultSeed, "random seed")
	environment := flags.String("environment", "dev", "environment of every deployment target")
	// Zero keeps the preset's value.
	clusterTypes := flags.Int("cluster-types", 0, "override the preset's cluster type count")
	workloads := flags.Int("workloads", 0, "override the preset's workload count")
	targets := flags.Int("targets-per-workload", 0, "override the preset's deployment targets per workload")
	policies := flags.Int("policies", 0, "override the preset's scheduling policy count")
	configMaps := flags.Int("config-maps", -1, "override the preset's platform config map count")
	breadth := flags.Float64("breadth", 0, "override the preset's selector breadth, in (0, 1]")
	templatedConfigs := flags.Float64("templated-configs", -1, "override the preset's share of config maps whose values hold template actions, in [0, 1]")
	features := flags.String("features", "", "comma-separated input features to turn on: "+strings.Join(fleet.FeatureNames(), ", "))
	oneMore := flags.String("one-more-policy", "", "also write, to this file, a SchedulingPolicy that adds exactly one assignment (the delivery benchmarks' model change)")
	addOneMore := flags.Bool("add-one-more-policy", false, "add that policy to the fleet itself (YAML and tfvars)")
	oneMoreCT := flags.String("one-more-cluster-type", "", "also write, to this file, a ClusterType that copies an existing one's labels (with -one-more-policy: issue 22's change, one cluster type and one policy)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	if *format != "yaml" && *format != "tfvars" && *format != "both" {
		return fmt.Errorf("-format must be yaml, tfvars or both, got %q", *format)
	}

	spec, err := fleet.Preset(*size)
	if err != nil {
		return err
	}
	spec.Seed, spec.Environment = *seed, *environment
	override := func(dst *int, v, unset int) {
		if v != unset {
			*dst = v
		}
	}
	override(&spec.ClusterTypes, *clusterTypes, 0)
	override(&spec.Workloads, *workloads, 0)
	override(&spec.TargetsPerWorkload, *targets, 0)
	override(&spec.Policies, *policies, 0)
	override(&spec.ConfigMaps, *configMaps, -1)
	if *templatedConfigs >= 0 {
		spec.TemplatedConfigs = *templatedConfigs
	}
	if *breadth != 0 {
		spec.Breadth = *breadth
	}
	if *features != "" {
		if spec, err = fleet.WithFeatures(spec, strings.Split(*features, ",")...); err != nil {
			return err
		}
	}

	f, err := fleet.Generate(spec)
	if err != nil {
		return err
	}
	if *addOneMore {
		if f, err = f.WithOneMoreAssignment(); err != nil {
			return err
		}
	}
	if *format == "yaml" || *format == "both" {
		if err := f.WriteDir(*out); err != nil {
			return err
		}
	}
	if *format == "tfvars" || *format == "both" {
		if err := f.WriteTFVars(*out); err != nil {
			return err
		}
	}
	if *oneMore != "" {
		doc, err := f.OneMoreAssignment()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*oneMore, []byte(doc.YAML), 0o644); err != nil {
			return err
		}
	}
	added := 0
	if *oneMoreCT != "" {
		doc, n, err := f.OneMoreClusterType()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*oneMoreCT, []byte(doc.YAML), 0o644); err != nil {
			return err
		}
		added = n
	}
	fmt.Fprintf(stdout, "fleet %s (seed %d, environment %s, breadth %g) written to %s\n", *size, spec.Seed, spec.Environment, spec.Breadth, *out)
	fmt.Fprintf(stdout, "  cluster types:                  %d\n", len(f.ClusterTypes))
	fmt.Fprintf(stdout, "  workloads:                      %d\n", len(f.Workloads))
	fmt.Fprintf(stdout, "  deployment targets:             %d\n", f.Expected.DeploymentTargets)
	fmt.Fprintf(stdout, "  scheduling policies:            %d\n", len(f.Policies))
	fmt.Fprintf(stdout, "  platform config maps:           %d\n", len(f.PlatformConfigs))
	fmt.Fprintf(stdout, "  documents:                      %d\n", len(f.Documents))
	fmt.Fprintf(stdout, "  expected assignments:           %d\n", f.Expected.Assignments)
	fmt.Fprintf(stdout, "  unscheduled deployment targets: %d\n", f.Expected.UnscheduledDeploymentTargets)
	if *oneMoreCT != "" {
		fmt.Fprintf(stdout, "  one more cluster type adds:     %d\n", added)
	}
	return nil
}
