// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

// WaveGood is a wave's last known good: the newest commit of the history read whose content of the
// wave's cluster-type folders every expected cluster of the wave reported healthy.
type WaveGood struct {
	Name         string
	ClusterTypes []string
	// Commit is its position in WaveInput.History (0 is the head), or -1 when no commit read qualifies.
	Commit int
}

// LastKnownGoodPerWave finds each wave's last known good commit from what its clusters reported: the
// newest commit that every expected cluster of the wave's cluster types succeeded with, on it or on a
// later commit (a cluster that succeeded with a later commit went through it), as the environment's
// last known good is found with Evaluate. A cluster only reads its cluster type's folder, so the commit
// stands for the wave's folders only. The clusters are those the waves' gate counts: the expected names
// of each cluster type, or (without a list) every cluster that reported on it, at least
// MinPerClusterType (1 when zero) of them. A wave with no cluster type, a silent expected cluster, too
// few reporters or one that never succeeded has none: zero reporting clusters are never healthy. The
// soak does not apply: it paces the rollout; a success is a success. In.Pending, Changed, Deadline and
// Paused are not read.
func LastKnownGoodPerWave(in WaveInput) ([]WaveGood, error) {
	members, err := Members(in.Waves, in.Types)
	if err != nil {
		return nil, err
	}
	g, err := newGate(in)
	if err != nil {
		return nil, err
	}
	out := make([]WaveGood, len(in.Waves))
	for i, w := range in.Waves {
		types := members[i]
		if types == nil {
			types = []string{}
		}
		good, err := g.lastGood(types)
		if err != nil {
			return nil, err
		}
		out[i] = WaveGood{Name: w.Name, ClusterTypes: types, Commit: good}
	}
	return out, nil
}

// lastGood is the position of the newest commit every expected cluster of types reached, or -1.
func (g *waveGate) lastGood(types []string) (int, error) {
	if len(types) == 0 {
		return -1, nil
	}
	opts := Options{Now: g.in.Now}
	good := 0
	for _, ct := range types {
		clusters := g.byType[ct]
		var want []string
		if names := g.in.Expect.Clusters[ct]; len(names) > 0 {
			for _, n := range names {
				id, err := g.resolve(clusters, n)
				if err != nil || id == "" {
					return -1, err
				}
				want = append(want, id)
			}
		} else {
			for id := range clusters {
				want = append(want, id)
			}
			if len(want) < max(g.in.Expect.MinPerClusterType, 1) {
				return -1, nil
			}
		}
		for _, id := range want {
			reached := clusterState(id, clusters[id], g.pos, opts).reached
			if reached < 0 {
				return -1, nil
			}
			good = max(good, reached)
		}
	}
	return good, nil
}
