// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"reflect"
	"strings"
	"testing"
)

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
	if _, ok := e.memos.frozen.yaml(own, &e.memos.yaml); ok {
		t.Errorf("an unfrozen map was registered as frozen")
	}
}

func TestFrozenRegistryIsBounded(t *testing.T) {
	t.Parallel()
	frozen := &newMemos().frozen
	for i := 0; i < frozenLimit+10; i++ {
		frozen.freeze(map[string]interface{}{"i": i})
	}
	frozen.RLock()
	n := len(frozen.entries)
	frozen.RUnlock()
	if n > frozenLimit {
		t.Errorf("registry holds %d entries, limit %d", n, frozenLimit)
	}
}

// The argument guard counts a frozen config's size once (frozenConfigs.size); a config over the output limit, or
// nested too deeply, must still be refused every time, and the count must be valueSize's.
func TestFrozenConfigArgumentsStayWithinLimits(t *testing.T) {
	t.Parallel()
	e := NewEngine()
	big := map[string]interface{}{"v": strings.Repeat("x", 4096)}
	deep := map[string]interface{}{}
	for i, at := 0, deep; i <= maxValueDepth; i++ {
		next := map[string]interface{}{}
		at["k"] = next
		at = next
	}
	small := map[string]interface{}{"region": "west", "list": []interface{}{"a", 1}}
	for _, c := range []struct {
		name   string
		config map[string]interface{}
		refuse bool
	}{{"over the limit", big, true}, {"nested too deeply", deep, true}, {"small", small, false}} {
		for round := 0; round < 2; round++ { // the second round reads the memoized size
			_, err := e.ExecuteLimited(`{{ toYaml .ConfigData }}`, &Data{ConfigData: c.config, ConfigFrozen: true}, Limits{MaxOutput: 1024})
			le, limited := AsLimitError(err)
			if c.refuse && (!limited || le.Kind != LimitOutput || !strings.Contains(err.Error(), "the arguments of toYaml are larger")) {
				t.Errorf("%s, round %d: err = %v, want the argument guard's output limit error", c.name, round, err)
			}
			if !c.refuse && err != nil {
				t.Errorf("%s, round %d: %v", c.name, round, err)
			}
		}
	}
	n, ok := e.memos.frozen.size(small)
	if want := valueSize(reflect.ValueOf(small), uncountedSize, 0); !ok || n != want {
		t.Errorf("frozenSize(small) = %d, %v; want %d, true", n, ok, want)
	}
	if _, ok := e.memos.frozen.size(map[string]interface{}{"not": "frozen"}); ok {
		t.Errorf("frozenSize of an unfrozen map reported a size")
	}
}
