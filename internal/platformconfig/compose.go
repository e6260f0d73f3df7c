// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

const (
	fluxNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	fluxNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
)

// Target is what the matcher needs to know about one assignment.
type Target struct {
	ClusterTypeName   string
	ClusterTypeLabels map[string]string
	DeploymentTarget  string
	// TargetLabels are the deployment target's effective labels, including workload and workspace.
	TargetLabels map[string]string
}

// Matches reports whether every label holds for the assignment. Flux ownership labels and
// platform-config are ignored; a missing label reads as "".
func (t Target) Matches(labels map[string]string) bool {
	for k, v := range labels {
		if !t.holds(k, v) {
			return false
		}
	}
	return true
}

func (t Target) holds(k, v string) bool {
	switch k {
	case model.PlatformConfigLabel, fluxNameLabel, fluxNamespaceLabel:
		return true
	case model.ClusterTypeLabel:
		return v == t.ClusterTypeName
	case model.DeploymentTargetLabel:
		return v == t.DeploymentTarget
	case model.WorkloadLabel:
		return v == t.TargetLabels[model.WorkloadLabel]
	default:
		return t.ClusterTypeLabels[k] == v || t.TargetLabels[k] == v
	}
}

// matcher is a label set compiled for Target.Matches: composing a large fleet matches every source
// against every assignment, and ranging over a map costs more than the comparisons.
type matcher []labelCondition

type labelCondition struct{ key, value string }

func compileMatcher(labels map[string]string) matcher {
	m := make(matcher, 0, len(labels))
	for k, v := range labels {
		m = append(m, labelCondition{k, v})
	}
	return m
}

func (t Target) matches(m matcher) bool {
	for _, c := range m {
		if !t.holds(c.key, c.value) {
			return false
		}
	}
	return true
}

// Sources holds the ConfigMaps that feed platform config, in the order upstream reads them, with every
// value parsed once up front: composing thousands of assignments must not re-parse the same YAML.
type Sources struct {
	platform []platformMap
	azure    []azureMap
	// conds are the distinct label conditions of every source; a source's need is the set of them it
	// requires, as a bitset over conds (see Side).
	conds []labelCondition
	// composed memoizes Compose by which sources matched: across a fleet, thousands of assignments
	// match the same few source sets, and merging is most of the cost of composing.
	composed sync.Map // match signature (string) → map[string]interface{}, never modified
}

type platformMap struct {
	name   string
	match  matcher
	need   Side
	keys   []string
	values []interface{}
}

// azureMap is one azure-app-config* ConfigMap. Its own metadata.labels play no part (upstream reads these
// maps by name, and only the labels encoded in each key decide), so it keeps no matcher.
type azureMap struct {
	name string
	keys []azureKey
}

type azureKey struct {
	raw   string
	key   string
	match matcher
	need  Side
	value interface{}
}

// NewSources picks and orders the config sources from all ConfigMaps (which must be sorted by name).
func NewSources(configMaps []*model.ConfigMap) *Sources {
	s := &Sources{}
	for _, cm := range configMaps {
		if cm.Metadata.Labels[model.PlatformConfigLabel] == "true" {
			pm := platformMap{name: cm.Metadata.Name, match: compileMatcher(cm.Metadata.Labels)}
			for k := range cm.Data {
				pm.keys = append(pm.keys, k)
			}
			sort.Strings(pm.keys)
			for _, k := range pm.keys {
				pm.values = append(pm.values, ParseValue(cm.Data[k]))
			}
			s.platform = append(s.platform, pm)
		}
	}
	for _, cm := range configMaps {
		if !strings.HasPrefix(cm.Metadata.Name, model.AzureAppConfigPrefix) {
			continue
		}
		am := azureMap{name: cm.Metadata.Name}
		for raw, value := range cm.Data {
			k := parseAzureKey(raw)
			k.value = ParseValue(value)
			am.keys = append(am.keys, k)
		}
		// Shortest key first, so that more specific (longer, labelled) keys merge over general ones. Upstream
		// leaves keys of equal length in sort.Slice's unstable order; they go in name order here, so that
		// a render is reproducible (a documented deviation).
		sort.Slice(am.keys, func(i, j int) bool {
			if len(am.keys[i].raw) != len(am.keys[j].raw) {
				return len(am.keys[i].raw) < len(am.keys[j].raw)
			}
			return am.keys[i].raw < am.keys[j].raw
		})
		s.azure = append(s.azure, am)
	}
	s.indexConditions()
	return s
}

// Side is the set of a Sources' label conditions that one side of an assignment, its cluster type or its
// deployment target, satisfies on its own, as a bitset. A condition holds for an assignment exactly when
// one of its two sides satisfies it (Target.holds is an "or" of the two), so a source matches when the
// union of the two sides covers its need. A fleet has a few hundred cluster types and targets but up to
// 100k assignments: matching each source's labels per assignment was most of composing.
type Side []uint64

// indexConditions numbers the distinct label conditions and records each source's need.
func (s *Sources) indexConditions() {
	index := map[labelCondition]int{}
	number := func(m matcher) {
		for _, c := range m {
			if _, ok := index[c]; !ok {
				index[c] = len(s.conds)
				s.conds = append(s.conds, c)
			}
		}
	}
	for i := range s.platform {
		number(s.platform[i].match)
	}
	for i := range s.azure {
		for j := range s.azure[i].keys {
			number(s.azure[i].keys[j].match)
		}
	}
	words := (len(s.conds) + 63) / 64
	set := func(m matcher) Side {
		b := make(Side, words)
		for _, c := range m {
			i := index[c]
			b[i/64] |= 1 << (i % 64)
		}
		return b
	}
	for i := range s.platform {
		s.platform[i].need = set(s.platform[i].match)
	}
	for i := range s.azure {
		for j := range s.azure[i].keys {
			s.azure[i].keys[j].need = set(s.azure[i].keys[j].match)
		}
	}
}

// ClusterTypeSide is the Side of a cluster type: the conditions its name or labels satisfy.
func (s *Sources) ClusterTypeSide(name string, labels map[string]string) Side {
	return s.side(Target{ClusterTypeName: name, ClusterTypeLabels: labels}, true)
}

// TargetSide is the Side of a deployment target: the conditions its name or labels satisfy.
func (s *Sources) TargetSide(name string, labels map[string]string) Side {
	return s.side(Target{DeploymentTarget: name, TargetLabels: labels}, false)
}

// side evaluates every condition as Target.holds does, for the cluster type's half of it or the
// target's.
func (s *Sources) side(t Target, clusterType bool) Side {
	b := make(Side, (len(s.conds)+63)/64)
	for i, c := range s.conds {
		var ok bool
		switch c.key {
		case model.PlatformConfigLabel, fluxNameLabel, fluxNamespaceLabel:
			ok = true
		case model.ClusterTypeLabel:
			ok = clusterType && c.value == t.ClusterTypeName
		case model.DeploymentTargetLabel:
			ok = !clusterType && c.value == t.DeploymentTarget
		case model.WorkloadLabel:
			ok = !clusterType && c.value == t.TargetLabels[model.WorkloadLabel]
		default:
			if clusterType {
				ok = t.ClusterTypeLabels[c.key] == c.value
			} else {
				ok = t.TargetLabels[c.key] == c.value
			}
		}
		if ok {
			b[i/64] |= 1 << (i % 64)
		}
	}
	return b
}

// covers reports whether the two sides together satisfy every condition of need.
func covers(need, clusterType, target Side) bool {
	for w, n := range need {
		if (clusterType[w]|target[w])&n != n {
			return false
		}
	}
	return true
}

// parseAzureKey reads `label.value.label.value.KEY`: leading pairs are labels, the last part is the key.
func parseAzureKey(raw string) azureKey {
	parts := strings.Split(raw, ".")
	labels := map[string]string{}
	for i := 0; i+1 < len(parts)-1; i += 2 {
		labels[parts[i]] = parts[i+1]
	}
	return azureKey{raw: raw, key: parts[len(parts)-1], match: compileMatcher(labels)}
}

// ComposeSharedKeySides is ComposeSharedKey for a caller that keeps the Side of each cluster type and
// deployment target (ClusterTypeSide and TargetSide of t's names and labels) for all its assignments.
func (s *Sources) ComposeSharedKeySides(clusterType, target Side, t Target) (map[string]interface{}, string) {
	// The signature lists the matching platform maps, then the matching azure keys of each matching azure
	// map, as uvarint(index+1), with 0 closing each group; a uvarint of a positive number has no 0 byte.
	sig := make([]byte, 0, 32)
	for i, pm := range s.platform {
		if covers(pm.need, clusterType, target) {
			sig = binary.AppendUvarint(sig, uint64(i+1))
		}
	}
	sig = append(sig, 0)
	for i, am := range s.azure {
		sig = binary.AppendUvarint(sig, uint64(i+1))
		for j, k := range am.keys {
			if covers(k.need, clusterType, target) {
				sig = binary.AppendUvarint(sig, uint64(j+1))
			}
		}
		sig = append(sig, 0)
	}
	key := string(sig)
	cached, ok := s.composed.Load(key)
	if !ok {
		cached, _ = s.composed.LoadOrStore(key, s.compose(t))
	}
	data, _ := cached.(map[string]interface{})
	return data, key
}

// Holder is a ConfigMap entry that feeds a key of an assignment's platform config.
type Holder struct {
	// ConfigMap is the ConfigMap's name, DataKey the key of its data (for an azure-app-config map with
	// labels, the whole `label.value.KEY`).
	ConfigMap, DataKey string
}

// Holders lists the ConfigMap entries that set key (a top-level key of the composed config) for t, in the
// order they are merged: the last one holds the value of a scalar, every one contributes to a map or a
// list. A diagnostic about a config value names them, so the user knows which ConfigMap to fix.
func (s *Sources) Holders(t Target, key string) []Holder {
	var out []Holder
	for _, pm := range s.platform {
		if t.matches(pm.match) {
			if _, ok := slices.BinarySearch(pm.keys, key); ok {
				out = append(out, Holder{ConfigMap: pm.name, DataKey: key})
			}
		}
	}
	for _, am := range s.azure {
		for _, k := range am.keys {
			if k.key == key && t.matches(k.match) {
				out = append(out, Holder{ConfigMap: am.name, DataKey: k.raw})
			}
		}
	}
	return out
}

// CopyConfig copies a composed config deeply, so that the copy can be modified.
func CopyConfig(data map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(data))
	for k, v := range data {
		out[k] = deepCopy(v)
	}
	return out
}

// compose merges the matching sources. Merging updates values in place, so every structured value is
// copied before it enters the result.
func (s *Sources) compose(t Target) map[string]interface{} {
	data := map[string]interface{}{}
	put := func(key string, parsed interface{}) {
		v := deepCopy(parsed)
		if old, ok := data[key]; ok {
			data[key] = Merge(old, v)
		} else {
			data[key] = v
		}
	}
	for _, pm := range s.platform {
		if !t.matches(pm.match) {
			continue
		}
		for i, k := range pm.keys {
			put(k, pm.values[i])
		}
	}
	for _, am := range s.azure {
		for _, k := range am.keys {
			if t.matches(k.match) {
				put(k.key, k.value)
			}
		}
	}
	return data
}

// deepCopy copies the maps and lists that YAML decoding produces; scalars are immutable and shared.
func deepCopy(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		m := make(map[string]interface{}, len(t))
		for k, val := range t {
			m[k] = deepCopy(val)
		}
		return m
	case map[interface{}]interface{}:
		m := make(map[interface{}]interface{}, len(t))
		for k, val := range t {
			m[k] = deepCopy(val)
		}
		return m
	case []interface{}:
		l := make([]interface{}, len(t))
		for i, val := range t {
			l[i] = deepCopy(val)
		}
		return l
	}
	return v
}
