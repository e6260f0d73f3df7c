// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import "testing"

func TestToYAMLOfFrozenConfig(t *testing.T) {
	t.Parallel()
	e := NewEngine()
	shared := map[string]interface{}{"region": "west", "replicas": 3}
	const wantShared = "region: west\nreplicas: 3"

	read := func() string {
		out, err := e.Execute(`{{ toYaml .ConfigData }}`, &Data{ConfigData: shared, ConfigFrozen: true})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := read(); got != wantShared {
		t.Fatalf("toYaml of a frozen config = %q, want %q", got, wantShared)
	}
	// A template that modifies its config works on a copy, which is not frozen: its toYaml shows the change.
	out, err := e.Execute(`{{ $_ := set .ConfigData "region" "east" }}{{ toYaml .ConfigData }}`, &Data{ConfigData: shared, ConfigFrozen: true})
	if err != nil || out != "region: east\nreplicas: 3" {
		t.Fatalf("modifying template: %q, %v", out, err)
	}
	if got := read(); got != wantShared {
		t.Errorf("after a modifying template, toYaml of the frozen config = %q, want %q", got, wantShared)
	}

	// Without the promise nothing is memoized by identity: a caller may change its map between renders.
	own := map[string]interface{}{"region": "west"}
	for _, want := range []string{"region: west", "region: north"} {
		own["region"] = want[len("region: "):]
		got, err := e.Execute(`{{ toYaml .ConfigData }}`, &Data{ConfigData: own})
		if err != nil || got != want {
			t.Errorf("unfrozen config: %q, %v, want %q", got, err, want)
		}
	}
	if _, ok := frozenYAML(own); ok {
		t.Errorf("an unfrozen map was registered as frozen")
	}
}

func TestFrozenRegistryIsBounded(t *testing.T) { //nolint:paralleltest // it fills the process-wide frozen-config registry until it starts again empty, which would drop the entries parallel tests rely on
	for i := 0; i < frozenLimit+10; i++ {
		freeze(map[string]interface{}{"i": i})
	}
	frozenConfigs.RLock()
	n := len(frozenConfigs.entries)
	frozenConfigs.RUnlock()
	if n > frozenLimit {
		t.Errorf("registry holds %d entries, limit %d", n, frozenLimit)
	}
}
