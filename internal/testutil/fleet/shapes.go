// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"fmt"
	"strings"
)

// Shapes. The presets' shape renders cheaply per assignment: few config maps match each assignment and
// the config is small. Issue 13 measured two shapes that cost two to four times as much per assignment,
// and the engine is profiled on them too.
const (
	// ShapePresets is the default generator (generate.go).
	ShapePresets = ""
	// ShapeQuarterConfigs keeps the presets' workloads and policies, gives every cluster type two more
	// four-valued labels (ring, pool), and replaces the config maps with single-label ones, each matching a
	// quarter of the cluster types: on size, ring or pool. Each assignment composes about a quarter of
	// them, so its platform config is several times larger and merges more keys.
	ShapeQuarterConfigs = "quarter-configs"
	// ShapeTutorial scales up the public tutorial: its four templates (arc-flux, argocd, default,
	// configmap, byte for byte), its kinds of cluster types (command centers, drones, large, small on
	// Argo CD), its config maps (one global, one per region, one for restricted cluster types, one per
	// cluster type), its workloads (applications with functional and performance tests, observability
	// services) and its kinds of policies.
	ShapeTutorial = "tutorial"
)

// quarterKeys are the cluster type labels that ShapeQuarterConfigs config maps select on; each has
// four values, drawn uniformly.
var quarterKeys = []struct {
	key    string
	values []string
}{
	{"size", sizes},
	{"ring", []string{"ring-0", "ring-1", "ring-2", "ring-3"}},
	{"pool", []string{"pool-a", "pool-b", "pool-c", "pool-d"}},
}

// quarterDataKeys are the config keys the quarter config maps draw from: a small pool, so that the
// maps override each other's keys as real layered config does.
var quarterDataKeys = []string{
	"LOG_LEVEL", "REGION_ENDPOINT", "DATABASE_URL", "CACHE_URL", "FEATURE_GATES", "REPLICAS", "NODE_POOL",
	"STORAGE_CLASS", "INGRESS_CLASS", "OTEL_ENDPOINT", "SECRET_STORE", "DNS_ZONE", "BACKUP_SCHEDULE",
	"CPU_LIMIT", "MEMORY_LIMIT", "MAX_SURGE",
}

func (g *generator) quarterClusterTypes() []ClusterType {
	out := g.clusterTypes()
	for i := range out {
		for _, k := range quarterKeys[1:] {
			out[i].Labels[k.key] = g.pick(k.values)
		}
	}
	return out
}

func (g *generator) quarterConfigs() []PlatformConfig {
	out := make([]PlatformConfig, g.spec.ConfigMaps)
	for i := range out {
		k := quarterKeys[(i/4)%len(quarterKeys)]
		value := k.values[i%4]
		data := map[string]ConfigValue{}
		for _, key := range g.pickN(quarterDataKeys, 5) {
			data[key] = ConfigValue{Scalar: fmt.Sprintf("%s-%s-%d", strings.ToLower(key), value, i)}
		}
		switch i % 3 {
		case 0:
			data["resources"] = ConfigValue{Map: map[string]string{"cpu": fmt.Sprintf("%dm", 100+10*i), "memory": fmt.Sprintf("%dMi", 128+16*i)}}
		case 1:
			data["allowedRegistries"] = ConfigValue{List: []string{value + ".azurecr.io"}}
		case 2:
			data["monitoring"] = ConfigValue{Map: map[string]string{"scrapeInterval": fmt.Sprintf("%ds", 10+i), "retention": "7d"}}
		}
		out[i] = PlatformConfig{
			Name:   fmt.Sprintf("platform-%03d-%s-%s", i, k.key, value),
			Labels: map[string]string{k.key: value},
			Data:   data,
		}
	}
	return out
}

// The tutorial's vocabularies, extended to more regions and teams.
var (
	tutorialRegions     = []string{"east-us", "west-us", "central-us", "north-europe"}
	tutorialRegionNames = map[string]string{"east-us": "East US", "west-us": "West US", "central-us": "Central US", "north-europe": "North Europe"}
	tutorialKinds       = []string{"command-center", "drone", "large", "small"}
	tutorialAppTeams    = []string{"kaizen-app-team", "orders-app-team", "fleet-app-team"}
	tutorialPurposes    = []string{"functional-test", "performance-test", "uat-test", "integration-test"}
)

func (g *generator) tutorialClusterTypes() []ClusterType {
	out := make([]ClusterType, g.spec.ClusterTypes)
	for i := range out {
		kind, region := tutorialKinds[i%len(tutorialKinds)], g.pick(tutorialRegions)
		ct := ClusterType{Name: fmt.Sprintf("%s-%s-%03d", kind, region, i), Labels: map[string]string{"region": region}}
		switch kind {
		case "command-center":
			ct.Labels["restricted"] = "true"
		case "drone":
			ct.Labels["restricted"], ct.Labels["edge"] = "true", "true"
		case "large":
			ct.Labels["size"] = "large"
		case "small":
			// As the tutorial's small cluster type, reconciled by Argo CD.
			ct.Labels["size"] = "small"
			ct.Reconciler = "argocd"
		}
		out[i] = ct
	}
	return out
}

func (g *generator) tutorialWorkloads() []Workload {
	out := make([]Workload, g.spec.Workloads)
	for i := range out {
		var w Workload
		if i%4 == 3 {
			// An observability service of the platform team, registered under another name, as the
			// tutorial's observability workload is by platform-svc.
			name := fmt.Sprintf("observability-%03d", i)
			w = Workload{Name: name, Registration: fmt.Sprintf("platform-svc-%03d", i), Workspace: "platform-team",
				Labels: map[string]string{"type": "service", "stack": "observability"}}
			for j := range g.spec.TargetsPerWorkload {
				target := fmt.Sprintf("prometheus-%d", j)
				w.DeploymentTargets = append(w.DeploymentTargets, g.tutorialTarget(name, target, nil))
			}
		} else {
			name := fmt.Sprintf("hello-world-app-%03d", i)
			w = Workload{Name: name, Registration: name, Workspace: g.pick(tutorialAppTeams),
				Labels: map[string]string{"type": "application", "family": g.pick(appNames)}}
			for j := range g.spec.TargetsPerWorkload {
				purpose := tutorialPurposes[j%len(tutorialPurposes)]
				target := purpose
				if j >= len(tutorialPurposes) {
					target = fmt.Sprintf("%s-%d", purpose, j/len(tutorialPurposes))
				}
				labels := map[string]string{"purpose": purpose, "edge": fmt.Sprint(g.chance(0.5))}
				w.DeploymentTargets = append(w.DeploymentTargets, g.tutorialTarget(name, target, labels))
			}
		}
		out[i] = w
	}
	return out
}

func (g *generator) tutorialTarget(workload, name string, labels map[string]string) DeploymentTarget {
	return DeploymentTarget{
		Name: name, Environment: g.spec.Environment, Labels: labels,
		Manifests: Manifests{Repo: fmt.Sprintf("https://github.com/kalypso-fleet/%s-gitops", workload), Branch: g.spec.Environment, Path: "./" + name},
	}
}

// tutorialPolicies cycles through the tutorial's three policies (functional tests on restricted edge
// cluster types, performance tests on large ones, observability on large ones) and one that places a
// purpose in a region, each for one team.
func (g *generator) tutorialPolicies() []SchedulingPolicy {
	out := make([]SchedulingPolicy, g.spec.Policies)
	for i := range out {
		p := SchedulingPolicy{Name: fmt.Sprintf("policy-%03d", i)}
		switch i % 4 {
		case 0:
			p.Workspace = g.pick(tutorialAppTeams)
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": "functional-test", "edge": "true"}
			p.ClusterTypeSelector.MatchLabels = map[string]string{"restricted": "true", "edge": "true"}
		case 1:
			p.Workspace = g.pick(tutorialAppTeams)
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": "performance-test", "edge": "false"}
			p.ClusterTypeSelector.MatchLabels = map[string]string{"size": "large"}
		case 2:
			p.Workspace = "platform-team"
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"stack": "observability"}
			p.ClusterTypeSelector.MatchLabels = map[string]string{"size": g.pick([]string{"large", "small"})}
		case 3:
			p.Workspace = g.pick(tutorialAppTeams)
			p.DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": g.pick(tutorialPurposes)}
			p.ClusterTypeSelector.MatchLabels = map[string]string{"region": g.pick(tutorialRegions)}
		}
		out[i] = p
	}
	return out
}

// tutorialConfigs are the tutorial's config maps for the generated cluster types: one global, one per
// region, one for restricted cluster types, one per cluster type. Spec.ConfigMaps is not used.
func (g *generator) tutorialConfigs(clusterTypes []ClusterType) []PlatformConfig {
	env := g.spec.Environment
	out := []PlatformConfig{{
		Name:   env + "-config",
		Labels: map[string]string{},
		Data:   map[string]ConfigValue{"ENVIRONMENT": {Scalar: strings.ToUpper(env[:1]) + env[1:]}, "SOME_COMMON_ENVIRONMENT_VARIABLE": {Scalar: "false"}},
	}}
	for _, region := range tutorialRegions {
		data := map[string]ConfigValue{"REGION": {Scalar: tutorialRegionNames[region]}}
		if region != "east-us" {
			data["DATABASE_URL"] = ConfigValue{Scalar: fmt.Sprintf("mysql://%s:8806/mysql2", strings.Split(region, "-")[0])}
		}
		out = append(out, PlatformConfig{Name: region + "-config", Labels: map[string]string{"region": region}, Data: data})
	}
	out = append(out, PlatformConfig{
		Name: "restricted-config", Labels: map[string]string{"restricted": "true"},
		Data: map[string]ConfigValue{"DATABASE_URL": {Scalar: "mysql://restricted-host:3306/mysqlrty123"}},
	})
	for _, ct := range clusterTypes {
		out = append(out, PlatformConfig{
			Name: ct.Name + "-config", Labels: map[string]string{"cluster-type": ct.Name},
			Data: map[string]ConfigValue{"CLUSTER_NAME": {Scalar: ct.Name}},
		})
	}
	return out
}

// Issue 22's shapes.
const (
	// ShapeUpstream is shaped like the upstream operator's own benchmark: the tutorial's templates, 30
	// config maps (one global, one per region, one for restricted cluster types, the rest per cluster
	// type), one config schema that every platform config is validated against, and the tutorial's kinds
	// of cluster types, workloads and policies.
	ShapeUpstream = "upstream"
	// ShapeCostlier is the fleet issue 22 measured delivery on: cluster types labelled region (4 values),
	// size (3), edge and tier (5), 70 % arc-flux and 30 % Argo CD; workloads in 15 workspaces whose targets
	// are labelled purpose (5 values) and edge; policies that each place one purpose (half also edge) on one
	// size (two in three also a region), half of them for one workspace; Spec.ConfigMaps single-label config maps
	// on a cluster type key plus one environment-wide one, each holding two keys.
	ShapeCostlier = "costlier"
)

// upstreamSchema is ShapeUpstream's config schema: the keys its config maps write, typed, and the two
// that every platform config holds, required.
const upstreamSchema = `{"type":"object","required":["ENVIRONMENT","REGION"],"properties":{` +
	`"ENVIRONMENT":{"type":"string","enum":["Dev","Qa","Prod"]},"REGION":{"type":"string","minLength":2},` +
	`"DATABASE_URL":{"type":"string","pattern":"^mysql://"},"CLUSTER_NAME":{"type":"string","maxLength":63},` +
	`"SOME_COMMON_ENVIRONMENT_VARIABLE":{"type":"string","enum":["true","false"]}}}`

// upstreamClusterTypes are the tutorial's kinds of cluster types, each also in one of upstreamRacks racks, so that a
// policy can place a team's targets on a handful of cluster types, as upstream's benchmark does.
func (g *generator) upstreamClusterTypes() []ClusterType {
	out := g.tutorialClusterTypes()
	for i := range out {
		out[i].Labels["rack"] = fmt.Sprintf("rack-%02d", i%upstreamRacks)
	}
	return out
}

const upstreamRacks = 28

// upstreamPolicies each place one team's targets of one purpose on the cluster types of one rack in one
// region.
func (g *generator) upstreamPolicies() []SchedulingPolicy {
	out := make([]SchedulingPolicy, g.spec.Policies)
	for i := range out {
		out[i] = SchedulingPolicy{Name: fmt.Sprintf("policy-%03d", i), Workspace: tutorialAppTeams[i%len(tutorialAppTeams)]}
		out[i].DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": tutorialPurposes[(i/3)%3]}
		out[i].ClusterTypeSelector.MatchLabels = map[string]string{"region": g.pick(tutorialRegions), "rack": fmt.Sprintf("rack-%02d", g.rng.IntN(upstreamRacks))}
	}
	return out
}

func (g *generator) upstreamConfigs(clusterTypes []ClusterType) []PlatformConfig {
	out := g.tutorialConfigs(clusterTypes)
	return out[:min(len(out), g.spec.ConfigMaps)]
}

var (
	costlierRegions  = []string{"east-us", "west-us", "north-europe", "west-europe"}
	costlierSizes    = []string{"small", "medium", "large"}
	costlierTiers    = []string{"tier-1", "tier-2", "tier-3", "tier-4", "tier-5"}
	costlierPurposes = []string{"functional-test", "performance-test", "uat-test", "integration-test", "load-test"}
)

func (g *generator) costlierClusterTypes() []ClusterType {
	out := make([]ClusterType, g.spec.ClusterTypes)
	for i := range out {
		region, size := g.pick(costlierRegions), g.pick(costlierSizes)
		ct := ClusterType{Name: fmt.Sprintf("%s-%s-%03d", region, size, i), Labels: map[string]string{
			"region": region, "size": size, "edge": fmt.Sprint(g.chance(0.3)), "tier": g.pick(costlierTiers),
		}}
		if i%10 >= 7 {
			ct.Reconciler = "argocd"
		}
		out[i] = ct
	}
	return out
}

func costlierWorkspaces() []string {
	out := make([]string, 15)
	for i := range out {
		out[i] = fmt.Sprintf("team-%02d", i+1)
	}
	return out
}

func (g *generator) costlierWorkloads() []Workload {
	ws := costlierWorkspaces()
	out := make([]Workload, g.spec.Workloads)
	for i := range out {
		name := fmt.Sprintf("%s-%03d", appNames[i%len(appNames)], i)
		w := Workload{Name: name, Registration: name, Workspace: ws[i%len(ws)], Labels: map[string]string{"type": "application"}}
		for j := range g.spec.TargetsPerWorkload {
			purpose := costlierPurposes[(i+j)%len(costlierPurposes)]
			labels := map[string]string{"purpose": purpose, "edge": fmt.Sprint(g.chance(0.3))}
			w.DeploymentTargets = append(w.DeploymentTargets, g.tutorialTarget(name, fmt.Sprintf("%s-%d", purpose, j), labels))
		}
		out[i] = w
	}
	return out
}

func (g *generator) costlierPolicies() []SchedulingPolicy {
	ws := costlierWorkspaces()
	out := make([]SchedulingPolicy, g.spec.Policies)
	for i := range out {
		p := SchedulingPolicy{Name: fmt.Sprintf("policy-%03d", i)}
		p.DeploymentTargetSelector.MatchLabels = map[string]string{"purpose": costlierPurposes[i%len(costlierPurposes)]}
		if i%2 == 1 {
			p.DeploymentTargetSelector.MatchLabels["edge"] = fmt.Sprint(g.chance(0.5))
		}
		p.ClusterTypeSelector.MatchLabels = map[string]string{"size": g.pick(costlierSizes)}
		if (i/2)%3 != 0 {
			p.ClusterTypeSelector.MatchLabels["region"] = g.pick(costlierRegions)
		}
		if (i/4)%2 == 1 {
			p.Workspace = g.pick(ws)
		}
		out[i] = p
	}
	return out
}

func (g *generator) costlierConfigs() []PlatformConfig {
	keys := []struct {
		key    string
		values []string
	}{{"region", costlierRegions}, {"size", costlierSizes}, {"edge", []string{"true", "false"}}, {"tier", costlierTiers}}
	out := []PlatformConfig{{Name: g.spec.Environment + "-config", Labels: map[string]string{},
		Data: map[string]ConfigValue{"ENVIRONMENT": {Scalar: g.spec.Environment}, "LOG_LEVEL": {Scalar: "info"}}}}
	for i := range g.spec.ConfigMaps {
		k := keys[i%len(keys)]
		value := k.values[(i/len(keys))%len(k.values)]
		data := map[string]ConfigValue{}
		for _, key := range g.pickN(quarterDataKeys, 2) {
			data[key] = ConfigValue{Scalar: fmt.Sprintf("%s-%s-%d", strings.ToLower(key), value, i)}
		}
		out = append(out, PlatformConfig{Name: fmt.Sprintf("platform-%03d-%s-%s", i, k.key, value), Labels: map[string]string{k.key: value}, Data: data})
	}
	return out
}
