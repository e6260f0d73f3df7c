// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package model

import (
	"sigs.k8s.io/yaml"
)

// Marshal renders an object as canonical upstream YAML (sorted keys, 2-space indent), with apiVersion and kind set.
func Marshal(obj Object) (string, error) {
	setTypeMeta(obj)
	b, err := yaml.Marshal(obj)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func setTypeMeta(obj Object) {
	tm := TypeMeta{APIVersion: APIVersion}
	switch o := obj.(type) {
	case *ClusterType:
		tm.Kind = KindClusterType
		o.TypeMeta = tm
	case *SchedulingPolicy:
		tm.Kind = KindSchedulingPolicy
		o.TypeMeta = tm
	case *Workload:
		tm.Kind = KindWorkload
		o.TypeMeta = tm
	case *WorkloadRegistration:
		tm.Kind = KindWorkloadRegistration
		o.TypeMeta = tm
	case *Template:
		tm.Kind = KindTemplate
		o.TypeMeta = tm
	case *ConfigMap:
		o.TypeMeta = TypeMeta{APIVersion: ConfigMapAPIVersion, Kind: KindConfigMap}
	case *ConfigSchema:
		tm.Kind = KindConfigSchema
		o.TypeMeta = tm
	case *BaseRepo:
		tm.Kind = KindBaseRepo
		o.TypeMeta = tm
	case *GitOpsRepo:
		tm.Kind = KindGitOpsRepo
		o.TypeMeta = tm
	case *Environment:
		tm.Kind = KindEnvironment
		o.TypeMeta = tm
	}
}
