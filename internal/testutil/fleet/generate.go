// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// Spec describes the fleet to generate. The same Spec always yields the same
// fleet, byte for byte.
type Spec struct {
	ClusterTypes       int
	Workloads          int
	TargetsPerWorkload int
	Policies           int
	ConfigMaps         int
	Seed               uint64
	// Environment is the environment of every deployment target. Default "dev".
	Environment string
	// Breadth, in (0, 1], widens the policies' In/NotIn value sets and so
	// raises the share of (deployment target, cluster type) pairs that get
	// scheduled. Presets tune it to land near their assignment count.
	// Default 0.5.
	Breadth float64
	// Shape picks the generator: ShapePresets (the default) or one of the costlier per-assignment
	// profiles in shapes.go.
	Shape string
	// TemplatedConfigs, in [0, 1], is the share of config maps whose values hold template actions, which
	// the scheduler renders again while a manifest's output holds `{{` (features.go). Default 0: none.
	TemplatedConfigs float64
	// Input features (features.go), each off by default; fleetgen -features and the feature benchmarks set
	// them by name (Features).
	ConfigTemplate   string // "" (the fixture's toYaml ConfigMap) or one of the ConfigTemplate* variants
	Reconciler       string // "" (the shape's mix) or the reconciler template of every cluster type
	BuiltinTemplates bool   // write no Template documents: the provider's built-in templates render
	ConfigSchema     string // "" (the shape's), SchemaNone or SchemaFleet
	WorkloadSchemas  bool   // every Workload carries its own spec.configSchemas entry
	AzureAppConfig   bool   // single-label config maps become keys of one azure-app-config map
	StructuredValues bool   // every config map also holds map, list and list-of-maps values (deep merge)
	LegacyTemplates  bool   // the arc-flux Template lists its manifests as YAML objects (the format before March 2023)
}

// Fleet is a generated control plane: the model, and the Kalypso YAML
// documents that describe it.
type Fleet struct {
	Spec            Spec
	ClusterTypes    []ClusterType
	Workloads       []Workload
	Policies        []SchedulingPolicy
	PlatformConfigs []PlatformConfig
	PromotedCommit  string
	// ConfigSchema, when set, is the JSON schema of a ConfigSchema document that applies to every
	// platform config (ShapeUpstream).
	ConfigSchema string
	// Documents holds one YAML document per Kalypso object, in a stable order.
	Documents []Document
	// Expected is computed from the model with the reference selection rules.
	Expected Expectation
}

// Label vocabularies. Value sets have different sizes so that selectors on
// different keys select different shares of the fleet.
var (
	regions     = []string{"eastus", "eastus2", "westus", "westus2", "centralus", "northeurope", "westeurope", "southeastasia"}
	regionNames = map[string]string{
		"eastus": "East US", "eastus2": "East US 2", "westus": "West US", "westus2": "West US 2",
		"centralus": "Central US", "northeurope": "North Europe", "westeurope": "West Europe", "southeastasia": "Southeast Asia",
	}
	sizes       = []string{"small", "medium", "large", "xlarge"}
	tiers       = []string{"gold", "silver", "bronze"}
	zones       = []string{"1", "2", "3"}
	workspaces  = []string{"platform-team", "kaizen-app-team", "payments-team", "data-team", "search-team", "identity-team"}
	appNames    = []string{"checkout", "catalog", "payments", "search", "ledger", "billing", "inventory", "identity", "telemetry", "gateway"}
	purposes    = []string{"functional-test", "performance-test", "uat-test", "canary", "integration", "load-test", "smoke-test", "staging", "blue", "green"}
	tenants     = tenantNames(12)
	workloadTyp = []string{"application", "service"}
)

func tenantNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%02d", i+1)
	}
	return names
}

// Generate builds the fleet described by spec.
func Generate(spec Spec) (Fleet, error) {
	if spec.Environment == "" {
		spec.Environment = "dev"
	}
	if spec.Breadth == 0 {
		spec.Breadth = 0.5
	}
	if err := spec.validate(); err != nil {
		return Fleet{}, err
	}
	g := generator{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x6b616c7970736f))}

	f := Fleet{Spec: spec}
	switch spec.Shape {
	case ShapeQuarterConfigs:
		f.ClusterTypes = g.quarterClusterTypes()
		f.Workloads = g.workloads()
		f.Policies = g.policies()
		f.PlatformConfigs = g.quarterConfigs()
	case ShapeTutorial:
		f.ClusterTypes = g.tutorialClusterTypes()
		f.Workloads = g.tutorialWorkloads()
		f.Policies = g.tutorialPolicies()
		f.PlatformConfigs = g.tutorialConfigs(f.ClusterTypes)
	case ShapeUpstream:
		f.ClusterTypes = g.upstreamClusterTypes()
		f.Workloads = g.tutorialWorkloads()
		f.Policies = g.upstreamPolicies()
		f.PlatformConfigs = g.upstreamConfigs(f.ClusterTypes)
		f.ConfigSchema = upstreamSchema
	case ShapeCostlier:
		f.ClusterTypes = g.costlierClusterTypes()
		f.Workloads = g.costlierWorkloads()
		f.Policies = g.costlierPolicies()
		f.PlatformConfigs = g.costlierConfigs()
	default:
		f.ClusterTypes = g.clusterTypes()
		f.Workloads = g.workloads()
		f.Policies = g.policies()
		f.PlatformConfigs = g.platformConfigs(f.ClusterTypes)
	}
	templateConfigValues(f.PlatformConfigs, spec.TemplatedConfigs)
	f.applyFeatures()
	sum := sha1.Sum([]byte("kalypso-fleet-" + strconv.FormatUint(spec.Seed, 10)))
	f.PromotedCommit = hex.EncodeToString(sum[:])
	f.Documents = f.render()
	f.Expected = Expect(spec.Environment, f.ClusterTypes, f.Workloads, f.Policies)
	return f, nil
}

func (s Spec) validate() error {
	var errs []error
	for name, n := range map[string]int{
		"ClusterTypes": s.ClusterTypes, "Workloads": s.Workloads,
		"TargetsPerWorkload": s.TargetsPerWorkload, "Policies": s.Policies,
	} {
		if n < 1 {
			errs = append(errs, fmt.Errorf("spec.%s must be at least 1, got %d", name, n))
		}
	}
	if s.ConfigMaps < 0 {
		errs = append(errs, fmt.Errorf("spec.ConfigMaps must not be negative, got %d", s.ConfigMaps))
	}
	switch s.Shape {
	case ShapePresets, ShapeQuarterConfigs, ShapeTutorial, ShapeUpstream, ShapeCostlier:
	default:
		errs = append(errs, fmt.Errorf("spec.Shape must be one of %q, %q, %q, %q, %q, got %q", ShapePresets, ShapeQuarterConfigs, ShapeTutorial, ShapeUpstream, ShapeCostlier, s.Shape))
	}
	if s.TemplatedConfigs < 0 || s.TemplatedConfigs > 1 {
		errs = append(errs, fmt.Errorf("spec.TemplatedConfigs must be in [0, 1], got %v", s.TemplatedConfigs))
	}
	errs = append(errs, s.validateFeatures()...)
	if s.Breadth <= 0 || s.Breadth > 1 {
		errs = append(errs, fmt.Errorf("spec.Breadth must be in (0, 1], got %v", s.Breadth))
	}
	// Sort so the error text does not depend on map iteration order.
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

type generator struct {
	spec Spec
	rng  *rand.Rand
}

func (g *generator) pick(values []string) string {
	return values[g.rng.IntN(len(values))]
}

// chance returns true with probability p.
func (g *generator) chance(p float64) bool {
	return g.rng.Float64() < p
}

// pickN returns n distinct values in vocabulary order, so that the same
// choice always prints the same way.
func (g *generator) pickN(values []string, n int) []string {
	n = max(1, min(n, len(values)))
	chosen := g.rng.Perm(len(values))[:n]
	slices.Sort(chosen)
	out := make([]string, n)
	for i, idx := range chosen {
		out[i] = values[idx]
	}
	return out
}

// share scales a vocabulary size by the fleet's breadth.
func (g *generator) share(size int, factor float64) int {
	return int(math.Round(float64(size) * factor))
}

func (g *generator) clusterTypes() []ClusterType {
	out := make([]ClusterType, g.spec.ClusterTypes)
	for i := range out {
		region, size := g.pick(regions), g.pick(sizes)
		labels := map[string]string{
			"region": region,
			"size":   size,
			"tier":   g.pick(tiers),
			"zone":   g.pick(zones),
			"edge":   strconv.FormatBool(g.chance(0.3)),
		}
		// Optional keys exist so that Exists and DoesNotExist have work to do.
		if g.chance(0.25) {
			labels["restricted"] = "true"
		}
		if g.chance(0.15) {
			labels["gpu"] = "nvidia"
		}
		out[i] = ClusterType{Name: fmt.Sprintf("%s-%s-%04d", region, size, i), Labels: labels}
	}
	return out
}

func (g *generator) workloads() []Workload {
	out := make([]Workload, g.spec.Workloads)
	for i := range out {
		name := fmt.Sprintf("%s-%04d", appNames[i%len(appNames)], i)
		registration := name
		// Every fourth workload is registered under another name and linked
		// by annotation, as the tutorial's observability workload is.
		if i%4 == 3 {
			registration = name + "-registration"
		}
		labels := map[string]string{"type": g.pick(workloadTyp), "family": g.pick(appNames)}
		// Workload labels override target labels; some workloads pin a tier.
		if g.chance(0.2) {
			labels["tier"] = g.pick(tiers)
		}
		w := Workload{Name: name, Registration: registration, Workspace: g.pick(workspaces), Labels: labels}
		for j := range g.spec.TargetsPerWorkload {
			purpose := purposes[j%len(purposes)]
			targetName := purpose
			if j >= len(purposes) {
				targetName = fmt.Sprintf("%s-%d", purpose, j/len(purposes))
			}
			targetLabels := map[string]string{
				"purpose": purpose,
				"tier":    g.pick(tiers),
				"tenant":  g.pick(tenants),
			}
			if g.chance(0.2) {
				targetLabels["critical"] = "true"
			}
			w.DeploymentTargets = append(w.DeploymentTargets, DeploymentTarget{
				Name:        targetName,
				Environment: g.spec.Environment,
				Labels:      targetLabels,
				Manifests: Manifests{
					Repo:   fmt.Sprintf("https://github.com/kalypso-fleet/%s-gitops", name),
					Branch: g.spec.Environment,
					Path:   "./" + targetName,
				},
			})
		}
		out[i] = w
	}
	return out
}

func (g *generator) policies() []SchedulingPolicy {
	out := make([]SchedulingPolicy, g.spec.Policies)
	b := g.spec.Breadth
	for i := range out {
		p := SchedulingPolicy{Name: fmt.Sprintf("policy-%03d", i)}
		switch i % 7 {
		case 0:
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"tier": g.pick(tiers)}
		case 1:
			p.DeploymentTargetSelector.MatchExpressions = []Requirement{
				{Key: "purpose", Operator: OperatorIn, Values: g.pickN(purposes, g.share(len(purposes), b))},
			}
		case 2:
			p.DeploymentTargetSelector.MatchExpressions = []Requirement{
				{Key: "tenant", Operator: OperatorNotIn, Values: g.pickN(tenants, g.share(len(tenants), 1-b))},
			}
		case 3:
			p.Workspace = g.pick(workspaces)
			p.DeploymentTargetSelector.MatchExpressions = []Requirement{
				{Key: "critical", Operator: OperatorExists},
			}
		case 4:
			p.DeploymentTargetSelector.MatchExpressions = []Requirement{
				{Key: "critical", Operator: OperatorDoesNotExist},
				{Key: "tier", Operator: OperatorIn, Values: g.pickN(tiers, g.share(len(tiers), b))},
			}
		case 5:
			// Workspace only: an empty label selector matches every target.
			p.Workspace = g.pick(workspaces)
		case 6:
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": g.pick(purposes)}
			p.DeploymentTargetSelector.MatchExpressions = []Requirement{
				{Key: "tenant", Operator: OperatorIn, Values: g.pickN(tenants, g.share(len(tenants), b))},
			}
		}
		// A different stride pairs each target selector shape with several
		// cluster type selector shapes across the fleet. Every shape narrows,
		// so that the union over many policies stays well below the full
		// product of targets and cluster types.
		switch (i*3 + i/7) % 7 {
		case 0:
			p.ClusterTypeSelector.MatchLabels = map[string]string{"size": g.pick(sizes)}
		case 1:
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "region", Operator: OperatorIn, Values: g.pickN(regions, g.share(len(regions), b))},
			}
		case 2:
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "tier", Operator: OperatorNotIn, Values: []string{g.pick(tiers)}},
				{Key: "size", Operator: OperatorIn, Values: g.pickN(sizes, g.share(len(sizes), b))},
			}
		case 3:
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "restricted", Operator: OperatorDoesNotExist},
				{Key: "region", Operator: OperatorIn, Values: g.pickN(regions, g.share(len(regions), b))},
			}
		case 4:
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "gpu", Operator: OperatorExists},
			}
		case 5:
			p.ClusterTypeSelector.MatchLabels = map[string]string{"region": g.pick(regions)}
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "size", Operator: OperatorIn, Values: g.pickN(sizes, g.share(len(sizes), b))},
			}
		case 6:
			p.ClusterTypeSelector.MatchLabels = map[string]string{"edge": "true"}
			p.ClusterTypeSelector.MatchExpressions = []Requirement{
				{Key: "zone", Operator: OperatorIn, Values: g.pickN(zones, g.share(len(zones), b))},
			}
		}
		out[i] = p
	}
	return out
}

// platformConfigs cycles through config map shapes: global, per region, per
// size, per tier, per cluster type and per workspace. Keys repeat across
// shapes on purpose, so that composition has to merge and override, and some
// values are nested maps and lists, which the scheduler merges deeply.
func (g *generator) platformConfigs(clusterTypes []ClusterType) []PlatformConfig {
	out := make([]PlatformConfig, g.spec.ConfigMaps)
	env := g.spec.Environment
	for i := range out {
		var c PlatformConfig
		switch i % 6 {
		case 0:
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-global", i),
				Labels: map[string]string{},
				Data: map[string]ConfigValue{
					"ENVIRONMENT":                      {Scalar: env},
					"LOG_LEVEL":                        {Scalar: g.pick([]string{"info", "debug", "warn"})},
					"SOME_COMMON_ENVIRONMENT_VARIABLE": {Scalar: "false"},
					"resources":                        {Map: map[string]string{"cpu": "100m", "memory": "128Mi"}},
					"allowedRegistries":                {List: []string{"mcr.microsoft.com", "ghcr.io"}},
				},
			}
		case 1:
			region := regions[(i/6)%len(regions)]
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-region-%s", i, region),
				Labels: map[string]string{"region": region},
				Data: map[string]ConfigValue{
					"REGION":            {Scalar: regionNames[region]},
					"DATABASE_URL":      {Scalar: fmt.Sprintf("mysql://%s-db:3306/app", region)},
					"resources":         {Map: map[string]string{"cpu": "250m"}},
					"allowedRegistries": {List: []string{region + ".azurecr.io"}},
				},
			}
		case 2:
			size := sizes[(i/6)%len(sizes)]
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-size-%s", i, size),
				Labels: map[string]string{"size": size},
				Data: map[string]ConfigValue{
					"CLUSTER_SIZE": {Scalar: size},
					"NODE_POOL":    {Scalar: "pool-" + size},
					"resources":    {Map: map[string]string{"memory": "512Mi", "cpuLimit": "1000m"}},
				},
			}
		case 3:
			tier := tiers[(i/6)%len(tiers)]
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-tier-%s", i, tier),
				Labels: map[string]string{"tier": tier},
				Data: map[string]ConfigValue{
					"SLA":        {Scalar: map[string]string{"gold": "99.99", "silver": "99.9", "bronze": "99.5"}[tier]},
					"BACKUP":     {Scalar: "enabled"},
					"monitoring": {Map: map[string]string{"scrapeInterval": "30s", "retention": "7d"}},
				},
			}
		case 4:
			ct := clusterTypes[g.rng.IntN(len(clusterTypes))]
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-cluster-%s", i, ct.Name),
				Labels: map[string]string{"cluster-type": ct.Name},
				Data: map[string]ConfigValue{
					"CLUSTER_NAME": {Scalar: ct.Name},
					"LOG_LEVEL":    {Scalar: "debug"},
				},
			}
		case 5:
			ws := workspaces[(i/6)%len(workspaces)]
			c = PlatformConfig{
				Name:   fmt.Sprintf("platform-%03d-workspace-%s", i, ws),
				Labels: map[string]string{"workspace": ws},
				Data: map[string]ConfigValue{
					"TEAM_CONTACT":  {Scalar: ws + "@example.com"},
					"featureFlags":  {List: []string{"new-ui", "fast-path"}},
					"monitoring":    {Map: map[string]string{"retention": "30d"}},
					"ALERT_CHANNEL": {Scalar: "#" + ws},
				},
			}
		}
		out[i] = c
	}
	return out
}
