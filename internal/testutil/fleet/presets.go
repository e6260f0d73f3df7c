// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"fmt"
	"slices"
)

// DefaultSeed is the seed presets use unless told otherwise.
const DefaultSeed = 42

// Presets are the benchmark fleets. Breadth is tuned so that, with
// DefaultSeed, each lands near the assignment count in its name; the exact
// counts are pinned in presets_test.go and listed in benchmarks/README.md.
var Presets = map[string]Spec{
	// 100 deployment targets x 20 cluster types: 1,029 assignments.
	"1k": {ClusterTypes: 20, Workloads: 25, TargetsPerWorkload: 4, Policies: 8, ConfigMaps: 12, Breadth: 0.5},
	// 200 deployment targets x 80 cluster types: 9,737 assignments.
	"10k": {ClusterTypes: 80, Workloads: 40, TargetsPerWorkload: 5, Policies: 24, ConfigMaps: 24, Breadth: 0.3},
	// 500 deployment targets x 300 cluster types: 97,938 assignments.
	"100k": {ClusterTypes: 300, Workloads: 100, TargetsPerWorkload: 5, Policies: 60, ConfigMaps: 48, Breadth: 0.1},
	// The fleet named in issue 6: 300 cluster types x 450 deployment
	// targets x 60 policies: 86,485 assignments.
	"86k": {ClusterTypes: 300, Workloads: 90, TargetsPerWorkload: 5, Policies: 60, ConfigMaps: 48, Breadth: 0.1},

	// Costlier per assignment (issue 13, see shapes.go). 36 single-label config maps, each matching a
	// quarter of the cluster types. 150 deployment targets x 50 cluster types x 40 policies: 5,675
	// assignments.
	"quarter-5.7k": {Shape: ShapeQuarterConfigs, ClusterTypes: 50, Workloads: 30, TargetsPerWorkload: 5, Policies: 40, ConfigMaps: 36, Breadth: 0.3},
	// The same shape at the size of 86k: 435 targets x 300 cluster types x 60 policies: 85,618 assignments.
	"quarter-86k": {Shape: ShapeQuarterConfigs, ClusterTypes: 300, Workloads: 87, TargetsPerWorkload: 5, Policies: 60, ConfigMaps: 36, Breadth: 0.1},
	// The tutorial's templates and config maps: 260 targets x 80 cluster types x 32 policies: 5,908
	// assignments (73 targets unscheduled, as the tutorial's uat-test is in dev).
	"tutorial-5.9k": {Shape: ShapeTutorial, ClusterTypes: 80, Workloads: 65, TargetsPerWorkload: 4, Policies: 32},

	// Issue 22 (shapes.go). Shaped like the upstream operator's benchmark: the tutorial's templates, 30
	// config maps, one config schema, 300 cluster types, 150 workloads x 3 targets, 60 policies: 5,639
	// assignments (111 targets unscheduled: the observability services).
	"upstream-5.8k": {Shape: ShapeUpstream, ClusterTypes: 300, Workloads: 150, TargetsPerWorkload: 3, Policies: 60, ConfigMaps: 30},
	// Issue 34: upstream-5.8k with template actions in 9 of its 30 config maps (features.go): every
	// assignment's config output is rendered again, once or twice.
	"upstream-nested-5.8k": {Shape: ShapeUpstream, ClusterTypes: 300, Workloads: 150, TargetsPerWorkload: 3, Policies: 60, ConfigMaps: 30, TemplatedConfigs: 0.3},
	// The fleet issue 22 measured delivery on: 300 cluster types, 150 workloads x 3 targets in 15
	// workspaces, 60 policies, 80 single-label config maps plus one environment-wide: 90,332 assignments.
	"costlier-86k": {Shape: ShapeCostlier, ClusterTypes: 300, Workloads: 150, TargetsPerWorkload: 3, Policies: 60, ConfigMaps: 80},

	// Issue 34, ten times larger: the presets' shape at the sizes of its targets. 550 deployment targets x
	// 550 cluster types at breadth 0.5: 300,539 assignments, with pairs left unscheduled for the delivery
	// benchmark's change (one more cluster type, one more policy).
	"scale-300k": {ClusterTypes: 550, Workloads: 110, TargetsPerWorkload: 5, Policies: 60, ConfigMaps: 48, Breadth: 0.5},
	// 1,000 deployment targets x 1,000 cluster types, every pair scheduled: 1,000,000 assignments, about
	// 3 million files. Generating it takes about a second; rendering it takes the whole machine.
	"scale-1m": {ClusterTypes: 1000, Workloads: 200, TargetsPerWorkload: 5, Policies: 60, ConfigMaps: 48, Breadth: 1},
}

// PresetNames lists the presets in a stable order.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for name := range Presets {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Preset returns the named preset with DefaultSeed and environment "dev".
func Preset(name string) (Spec, error) {
	spec, ok := Presets[name]
	if !ok {
		return Spec{}, fmt.Errorf("unknown fleet size %q; known sizes: %v", name, PresetNames())
	}
	spec.Seed = DefaultSeed
	spec.Environment = "dev"
	return spec, nil
}
