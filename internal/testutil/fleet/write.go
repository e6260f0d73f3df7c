// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// TFVarsFileName is the file WriteTFVars writes. Terraform loads
// *.auto.tfvars.json from the working directory without being asked.
const TFVarsFileName = "fleet.auto.tfvars.json"

// WriteDir writes every document to dir at its Path, creating directories as
// needed, like a checked-out control-plane repository.
func (f Fleet) WriteDir(dir string) error {
	for _, d := range f.Documents {
		path := filepath.Join(dir, filepath.FromSlash(d.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(d.YAML), 0o644); err != nil {
			return fmt.Errorf("writing %s %s: %w", d.Kind, d.Name, err)
		}
	}
	return nil
}

// WriteTFVars writes the fleet as Terraform variables for the plain-HCL
// baseline into dir/fleet.auto.tfvars.json.
func (f Fleet) WriteTFVars(dir string) error {
	data, err := f.TFVars()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, TFVarsFileName), data, 0o644)
}

// TFVars returns the fleet as the JSON variables file of
// benchmarks/hcl-baseline. It carries the same model as the YAML, in the
// shape a platform team would write by hand in HCL: nested config values are
// native objects and lists rather than YAML text, and collections are never
// null, so the HCL needs no null checks.
func (f Fleet) TFVars() ([]byte, error) {
	if f.Spec.hasFeatures() {
		return nil, fmt.Errorf("a fleet with input features has no tfvars: benchmarks/hcl-baseline renders none of them")
	}
	if f.Spec.Shape == ShapeTutorial {
		return nil, fmt.Errorf("the %s shape has no tfvars: benchmarks/hcl-baseline renders only the arc-flux reconciler", ShapeTutorial)
	}
	type requirement struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	}
	type selector struct {
		MatchLabels      map[string]string `json:"match_labels"`
		MatchExpressions []requirement     `json:"match_expressions"`
	}
	type policy struct {
		Name                     string   `json:"name"`
		Workspace                string   `json:"workspace"`
		DeploymentTargetSelector selector `json:"deployment_target_selector"`
		ClusterTypeSelector      selector `json:"cluster_type_selector"`
	}
	type target struct {
		Name        string            `json:"name"`
		Environment string            `json:"environment"`
		Labels      map[string]string `json:"labels"`
		Manifests   Manifests         `json:"manifests"`
	}
	type workload struct {
		Name              string            `json:"name"`
		Workspace         string            `json:"workspace"`
		Labels            map[string]string `json:"labels"`
		DeploymentTargets []target          `json:"deployment_targets"`
	}
	type platformConfig struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
		Data   map[string]any    `json:"data"`
	}
	type vars struct {
		Environment         string           `json:"environment"`
		ClusterTypes        []ClusterType    `json:"cluster_types"`
		Workloads           []workload       `json:"workloads"`
		SchedulingPolicies  []policy         `json:"scheduling_policies"`
		PlatformConfigs     []platformConfig `json:"platform_configs"`
		ExpectedAssignments int              `json:"expected_assignments"`
	}
	nonNil := func(m map[string]string) map[string]string {
		if m == nil {
			return map[string]string{}
		}
		return m
	}
	convertSelector := func(s Selector) selector {
		out := selector{MatchLabels: nonNil(s.MatchLabels), MatchExpressions: []requirement{}}
		for _, r := range s.MatchExpressions {
			values := r.Values
			if values == nil {
				values = []string{}
			}
			out.MatchExpressions = append(out.MatchExpressions, requirement{Key: r.Key, Operator: r.Operator, Values: values})
		}
		return out
	}

	v := vars{
		Environment:         f.Spec.Environment,
		ClusterTypes:        f.ClusterTypes,
		Workloads:           []workload{},
		SchedulingPolicies:  []policy{},
		PlatformConfigs:     []platformConfig{},
		ExpectedAssignments: f.Expected.Assignments,
	}
	for _, w := range f.Workloads {
		tw := workload{Name: w.Name, Workspace: w.Workspace, Labels: nonNil(w.Labels), DeploymentTargets: []target{}}
		for _, t := range w.DeploymentTargets {
			tw.DeploymentTargets = append(tw.DeploymentTargets, target{Name: t.Name, Environment: t.Environment, Labels: nonNil(t.Labels), Manifests: t.Manifests})
		}
		v.Workloads = append(v.Workloads, tw)
	}
	for _, p := range f.Policies {
		v.SchedulingPolicies = append(v.SchedulingPolicies, policy{
			Name:                     p.Name,
			Workspace:                p.Workspace,
			DeploymentTargetSelector: convertSelector(p.DeploymentTargetSelector),
			ClusterTypeSelector:      convertSelector(p.ClusterTypeSelector),
		})
	}
	for _, c := range f.PlatformConfigs {
		labels := map[string]string{"platform-config": "true"}
		for k, val := range c.Labels {
			labels[k] = val
		}
		data := make(map[string]any, len(c.Data))
		for k, val := range c.Data {
			switch {
			case val.Map != nil:
				data[k] = val.Map
			case val.List != nil:
				data[k] = val.List
			default:
				data[k] = val.Scalar
			}
		}
		v.PlatformConfigs = append(v.PlatformConfigs, platformConfig{Name: c.Name, Labels: labels, Data: data})
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
