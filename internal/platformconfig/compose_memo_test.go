// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"reflect"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

// Compose memoizes by matching sources; every caller must still get a config of its own, because
// templates can modify ConfigData with sprig's set and unset.
func TestComposeMemoReturnsIndependentCopies(t *testing.T) {
	t.Parallel()
	global := &model.ConfigMap{Data: map[string]string{"ingress": "hosts:\n- a\nclass: nginx", "region": "west"}}
	global.Metadata.Name, global.Metadata.Labels = "global", map[string]string{"platform-config": "true"}
	gold := &model.ConfigMap{Data: map[string]string{"ingress": "hosts:\n- b"}}
	gold.Metadata.Name, gold.Metadata.Labels = "tier-gold", map[string]string{"platform-config": "true", "tier": "gold"}
	sources := NewSources([]*model.ConfigMap{global, gold})

	goldTarget := Target{ClusterTypeName: "c1", ClusterTypeLabels: map[string]string{"tier": "gold"}, DeploymentTarget: "w-t"}
	first := sources.Compose(goldTarget)
	want := map[string]interface{}{
		"ingress": map[interface{}]interface{}{"hosts": []interface{}{"a", "b"}, "class": "nginx"},
		"region":  "west",
	}
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("composed %#v, want %#v", first, want)
	}
	first["region"] = "changed"
	first["ingress"].(map[interface{}]interface{})["class"] = "changed"
	first["ingress"].(map[interface{}]interface{})["hosts"].([]interface{})[0] = "changed"

	if second := sources.Compose(goldTarget); !reflect.DeepEqual(second, want) {
		t.Errorf("a memoized compose shares state with an earlier result: %#v", second)
	}
	silverTarget := Target{ClusterTypeName: "c2", ClusterTypeLabels: map[string]string{"tier": "silver"}, DeploymentTarget: "w-t"}
	wantSilver := map[string]interface{}{"ingress": map[interface{}]interface{}{"hosts": []interface{}{"a"}, "class": "nginx"}, "region": "west"}
	if got := sources.Compose(silverTarget); !reflect.DeepEqual(got, wantSilver) {
		t.Errorf("a different source set composed %#v, want %#v", got, wantSilver)
	}
}
