// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// goods is "wave=position" for each wave, positions in waveHistory (h0 = 0; -1: none).
func goods(ws []WaveGood) string {
	var s []string
	for _, w := range ws {
		s = append(s, fmt.Sprintf("%s=%d", w.Name, w.Commit))
	}
	return strings.Join(s, " ")
}

func TestLastKnownGoodPerWave(t *testing.T) {
	t.Parallel()
	east := func(commit string, state State) Report {
		return Report{Cluster: "e1", ClusterType: "east-1", Commit: commit, Reconciler: "flux", State: state, Time: now.Add(-time.Hour)}
	}
	for _, c := range []struct {
		name    string
		reports []Report
		expect  *WaveExpect
		want    string
	}{
		{"every cluster succeeded with the head", allOK(), nil, "canary=0 west=0 rest=0"},
		{"nobody reported", nil, nil, "canary=-1 west=-1 rest=-1"},
		{"a wave's failure moves only that wave back", append(allOK()[:2], ok("w1a", "h1"), ok("w2a", "h1"), ok("w2b", "h1"), bad("w2a", "h0", "crash"), east("h0", Succeeded)),
			nil, "canary=0 west=1 rest=0"},
		{"the wave's oldest cluster decides", append(allOK()[:1], ok("drone-2", "h2"), ok("w1a", "h0"), ok("w2a", "h0"), ok("w2b", "h0"), east("h0", Succeeded)),
			nil, "canary=2 west=0 rest=0"},
		{"a success with a later commit covers the earlier one", []Report{ok("drone-1", "h2"), ok("drone-1", "h0"), ok("drone-2", "h0")}, nil, "canary=0 west=-1 rest=-1"},
		{"a failure after a success keeps the success", []Report{ok("drone-1", "h1"), bad("drone-1", "h0", "crash"), ok("drone-2", "h0")}, nil, "canary=1 west=-1 rest=-1"},
		{"an expected cluster never succeeded", []Report{bad("drone-1", "h1", "crash"), ok("drone-2", "h0")}, nil, "canary=-1 west=-1 rest=-1"},
		{"a report about a commit outside the history read", []Report{ok("drone-1", "h9"), ok("drone-2", "h0")}, nil, "canary=-1 west=-1 rest=-1"},
		{"without a list, the reporters of the cluster type count", []Report{east("h1", Succeeded)}, nil, "canary=-1 west=-1 rest=1"},
		{"too few reporters", []Report{east("h0", Succeeded)}, &WaveExpect{Clusters: waveExpect.Clusters, MinPerClusterType: 2}, "canary=-1 west=-1 rest=-1"},
		{"a soak does not delay it", []Report{{Cluster: "drone-1", Commit: "h0", Reconciler: "flux", State: Succeeded, Time: now.Add(-time.Minute)}, ok("drone-2", "h0")},
			nil, "canary=0 west=-1 rest=-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := waveInput(c.reports...)
			if c.expect != nil {
				in.Expect = *c.expect
			}
			got, err := LastKnownGoodPerWave(in)
			if err != nil {
				t.Fatal(err)
			}
			if goods(got) != c.want {
				t.Errorf("got %s, want %s", goods(got), c.want)
			}
			if got[1].Name != "west" || strings.Join(got[1].ClusterTypes, ",") != "west-1,west-2" {
				t.Errorf("west's cluster types %v", got[1].ClusterTypes)
			}
		})
	}

	// A wave that selects no cluster type has none; an ambiguous expected name is an error.
	in := waveInput(allOK()...)
	in.Waves = []Wave{{Name: "mars", ClusterTypes: []string{"mars"}}, {Name: "rest"}}
	if got, err := LastKnownGoodPerWave(in); err != nil || goods(got) != "mars=-1 rest=0" {
		t.Errorf("a wave without cluster types: %s %v", goods(got), err)
	}
	in = waveInput(append(allOK(), Report{Cluster: "drone-1", ClusterID: "drone-1@other", Commit: "h0", Reconciler: "flux", State: Succeeded, Time: now})...)
	if _, err := LastKnownGoodPerWave(in); !errors.Is(err, ErrAmbiguousCluster) {
		t.Errorf("an ambiguous name: %v", err)
	}
	in = waveInput(allOK()...)
	in.Waves = []Wave{{Name: "rest"}, {Name: "late", ClusterTypes: []string{"drone"}}}
	if _, err := LastKnownGoodPerWave(in); !errors.Is(err, ErrWaves) {
		t.Errorf("invalid waves: %v", err)
	}
}
