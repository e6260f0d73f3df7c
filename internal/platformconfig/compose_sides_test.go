// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// A source matches by the union of the two Sides exactly when Target.matches says it matches: for
// every kind of label (ignored, cluster type, deployment target, workload, ordinary, empty values,
// labels absent on both sides), on ConfigMaps and on azure keys.
func TestSidesMatchLikeTargets(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(22))
	keys := []string{"region", "size", "edge", "", model.PlatformConfigLabel, fluxNameLabel, model.ClusterTypeLabel,
		model.DeploymentTargetLabel, model.WorkloadLabel}
	values := []string{"", "a", "b", "ct-1", "ct-2", "t-1", "t-2", "w-1", "true"}
	labels := func(n int) map[string]string {
		m := map[string]string{}
		for i := 0; i < n; i++ {
			m[keys[rng.Intn(len(keys))]] = values[rng.Intn(len(values))]
		}
		return m
	}
	var cms []*model.ConfigMap
	for i := 0; i < 150; i++ { // more conditions than one 64-bit word
		cm := &model.ConfigMap{Data: map[string]string{"k": fmt.Sprint(i)}}
		cm.Metadata.Name, cm.Metadata.Labels = fmt.Sprintf("cm-%03d", i), labels(rng.Intn(4))
		cm.Metadata.Labels[model.PlatformConfigLabel] = "true"
		cms = append(cms, cm)
	}
	azure := &model.ConfigMap{Data: map[string]string{}}
	azure.Metadata.Name = model.AzureAppConfigPrefix + "x"
	for i := 0; i < 40; i++ {
		raw := fmt.Sprintf("key%d", i)
		for l := rng.Intn(3); l > 0; l-- {
			raw = keys[rng.Intn(3)] + "." + values[1+rng.Intn(len(values)-1)] + "." + raw
		}
		azure.Data[raw] = "v"
	}
	cms = append(cms, azure)
	s := NewSources(cms)
	if len(s.conds) <= 64 {
		t.Fatalf("only %d conditions: the test must cover more than one word", len(s.conds))
	}
	for n := 0; n < 2000; n++ {
		tg := Target{ClusterTypeName: values[rng.Intn(len(values))], ClusterTypeLabels: labels(rng.Intn(4)),
			DeploymentTarget: values[rng.Intn(len(values))], TargetLabels: labels(rng.Intn(4))}
		ct, dt := s.ClusterTypeSide(tg.ClusterTypeName, tg.ClusterTypeLabels), s.TargetSide(tg.DeploymentTarget, tg.TargetLabels)
		for _, pm := range s.platform {
			if got, want := covers(pm.need, ct, dt), tg.matches(pm.match); got != want {
				t.Fatalf("ConfigMap labels %v, target %+v: sides say %v, Target.matches %v", pm.match, tg, got, want)
			}
		}
		for _, am := range s.azure {
			for _, k := range am.keys {
				if got, want := covers(k.need, ct, dt), tg.matches(k.match); got != want {
					t.Fatalf("azure key %q, target %+v: sides say %v, Target.matches %v", k.raw, tg, got, want)
				}
			}
		}
		got, key := s.ComposeSharedKeySides(ct, dt, tg)
		if want := s.Compose(tg); !reflect.DeepEqual(got, want) {
			t.Fatalf("target %+v (key %q): composed %v, want %v", tg, key, got, want)
		}
	}
}
