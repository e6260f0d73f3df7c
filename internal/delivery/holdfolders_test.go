// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// digests are the folder digests of files given as name => content.
func digests(m map[string]string) map[string]string {
	return FolderDigests(fileBlobs(fixtures.Bytes(m)))
}

func TestFolderDigests(t *testing.T) {
	t.Parallel()
	d := digests(map[string]string{"drone/a.yaml": "v1", "drone/sub/b.yaml": "x", "large/a.yaml": "v1", "kustomization.yaml": "k"})
	if len(d) != 3 || d["drone"] == "" || d["large"] == "" || d[""] == "" {
		t.Fatalf("one digest per cluster-type folder and one for the files directly under path: %v", d)
	}
	if d["drone"] == d["large"] {
		t.Error("folders with other files have the same digest")
	}
	same := digests(map[string]string{"drone/a.yaml": "v1", "drone/sub/b.yaml": "x"})
	if same["drone"] != d["drone"] {
		t.Error("a folder's digest depends on the other folders")
	}
	for name, other := range map[string]map[string]string{
		"content": {"drone/a.yaml": "v2", "drone/sub/b.yaml": "x"},
		"a name":  {"drone/c.yaml": "v1", "drone/sub/b.yaml": "x"},
		"a file":  {"drone/a.yaml": "v1"},
	} {
		if digests(other)["drone"] == d["drone"] {
			t.Errorf("another %s, the same digest", name)
		}
	}
	if len(digests(nil)) != 0 {
		t.Error("no files, no folders")
	}
}

// A rollback holds each folder it changed; an earlier hold's folders stay held while this rollback left
// them as that hold restored them.
func TestHoldFolders(t *testing.T) {
	t.Parallel()
	v1 := digests(map[string]string{"drone/a": "1", "large/a": "1", "west/a": "1"})
	v2 := digests(map[string]string{"drone/a": "2", "large/a": "2", "west/a": "1"})
	earlier := &Hold{Folders: map[string]HeldFolder{"drone": {Failed: v2["drone"], Restored: v1["drone"]}, "east": {Failed: "e2", Restored: "e1"}}}
	cases := map[string]struct {
		earlier       *Hold
		before, after map[string]string
		want          map[string]HeldFolder
	}{
		"two folders": {nil, v2, v1, map[string]HeldFolder{"drone": {Failed: v2["drone"], Restored: v1["drone"]}, "large": {Failed: v2["large"], Restored: v1["large"]}}},
		"no change":   {nil, v1, v1, nil},
		"a folder the rollback restores": {nil, map[string]string{"drone": "d"}, map[string]string{"drone": "d", "large": "l"},
			map[string]HeldFolder{"large": {Restored: "l"}}},
		"a folder the rollback removes": {nil, map[string]string{"drone": "d", "large": "l"}, map[string]string{"drone": "d"},
			map[string]HeldFolder{"large": {Failed: "l"}}},
		// The second wave of a rollback: drone, rolled back by its first wave, stays held; east was written since.
		"the earlier hold": {earlier, map[string]string{"drone": v1["drone"], "large": v2["large"], "east": "e3"}, map[string]string{"drone": v1["drone"], "large": v1["large"], "east": "e3"},
			map[string]HeldFolder{"drone": {Failed: v2["drone"], Restored: v1["drone"]}, "large": {Failed: v2["large"], Restored: v1["large"]}}},
		// Rolled back further: version 2 failed first, then version 1; both stay held.
		"a folder rolled back further": {earlier, map[string]string{"drone": v1["drone"]}, map[string]string{"drone": "d0"},
			map[string]HeldFolder{"drone": {Failed: v1["drone"], Restored: "d0", EarlierFailed: []string{v2["drone"]}}}},
		// Rolled back to what failed before: that content is what the folder holds now, not held.
		"rolled back to the failed content": {earlier, map[string]string{"drone": v1["drone"]}, map[string]string{"drone": v2["drone"]},
			map[string]HeldFolder{"drone": {Failed: v1["drone"], Restored: v2["drone"]}}},
	}
	for name, c := range cases {
		if got := HoldFolders(c.earlier, c.before, c.after); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// A folder is held while the configuration renders the content that failed there; after an apply, the
// folders it did not write stay held.
func TestHeldFoldersAndAfter(t *testing.T) {
	t.Parallel()
	failed := digests(map[string]string{"drone/a": "2", "large/a": "2", "x": "2"})
	restored := digests(map[string]string{"drone/a": "1", "large/a": "1", "x": "1"})
	h := &Hold{Tree: "t", Folders: map[string]HeldFolder{}}
	for ct := range failed {
		h.Folders[ct] = HeldFolder{Failed: failed[ct], Restored: restored[ct]}
	}
	cases := map[string]struct {
		desired map[string]string
		held    []string
	}{
		"the failed tree":          {map[string]string{"drone/a": "2", "large/a": "2", "x": "2"}, []string{"", "drone", "large"}},
		"one folder changed":       {map[string]string{"drone/a": "3", "large/a": "2", "x": "2"}, []string{"", "large"}},
		"every folder changed":     {map[string]string{"drone/a": "3", "large/a": "3", "x": "3"}, nil},
		"the restored tree":        {map[string]string{"drone/a": "1", "large/a": "1", "x": "1"}, nil},
		"a held folder removed":    {map[string]string{"large/a": "2"}, []string{"large"}},
		"another file in a folder": {map[string]string{"drone/a": "2", "drone/b": "2", "large/a": "2"}, []string{"large"}},
	}
	for name, c := range cases {
		var got []string
		for ct := range h.HeldFolders(digests(c.desired)) {
			got = append(got, ct)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(c.held, ",") {
			t.Errorf("%s: held %q, want %q", name, got, c.held)
		}
	}
	further := &Hold{Folders: map[string]HeldFolder{"drone": {Failed: "d1", Restored: "d0", EarlierFailed: []string{"d2"}}}}
	if got := further.HeldFolders(map[string]string{"drone": "d2"}); !got["drone"] || further.HeldFolders(map[string]string{"drone": "d3"}) != nil {
		t.Errorf("a folder rolled back further holds every content that failed there: %v", got)
	}
	if h.PerFolder(false) || !h.PerFolder(true) || (&Hold{Tree: "t"}).PerFolder(true) || (*Hold)(nil).PerFolder(true) {
		t.Error("per folder only with a rollout and a record of the folders")
	}

	// The canary's folder was written: drone leaves the hold, large and the files under path stay.
	after := h.After(digests(map[string]string{"drone/a": "3", "large/a": "1", "x": "1"}))
	if after == nil || after.Tree != "t" || len(after.Folders) != 2 || !reflect.DeepEqual(after.Folders["large"], h.Folders["large"]) || !reflect.DeepEqual(after.Folders[""], h.Folders[""]) {
		t.Errorf("after the canary: %+v", after)
	}
	if got := h.After(digests(map[string]string{"drone/a": "3", "large/a": "3", "x": "3"})); got != nil {
		t.Errorf("every folder written: %+v", got)
	}
	if (*Hold)(nil).After(restored) != nil || (&Hold{Tree: "t"}).After(restored) != nil {
		t.Error("no hold, or one without folders, ends")
	}
}

// The plan of a rollout over a real bare repository, after a rollback restored version 1 in both waves'
// folders: while the configuration renders version 2 (the failed content) nowhere is written, the canary
// is shown held, and the warning names both folders; a folder that renders version 3 is released and
// rolls out as any change while the other stays held; release_hold writes the failed content again; a
// hold that compared whole trees would write version 2 to the canary.
func TestPlanHold_PerFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"clusters/drone/a.yaml": "v1", "clusters/large/a.yaml": "v1",
		"clusters/" + OwnerMarker: string(OwnerRecord("clusters", ""))}) // as the rollback's apply left it
	v2 := map[string]string{"drone/a.yaml": "v2", "large/a.yaml": "v2"}
	folders := HoldFolders(nil, digests(v2), digests(map[string]string{"drone/a.yaml": "v1", "large/a.yaml": "v1"}))
	hold := &Hold{Tree: "failedtree00", Commit: "c4c4c4c4c4c4c4", To: "c2c2c2c2c2c2c2", Since: "2026-11-27T09:00:00Z", Folders: folders}
	plan := func(desired map[string]string, h *Hold, release bool) *Planning {
		t.Helper()
		p := planning(repo, "clusters", &filesRenderer{results: []Rendered{files(desired)}})
		p.Prior = prior(repo, "clusters", false)
		p.Hold, p.Config.ReleaseHold = h, release
		p.Rollout = &Rollout{Source: &reportsSource{}, Now: time.Now(), Expect: rollout.WaveExpect{Clusters: map[string][]string{"drone": {"d1"}, "large": {"e1"}}},
			Waves: []rollout.Wave{{Name: "canary", ClusterTypes: []string{"drone"}}, {Name: "rest"}}}
		if err := RunPlan(ctx, p, PlanSteps()); err != nil {
			t.Fatal(err)
		}
		return p
	}
	warning := func(p *Planning, summary string) string {
		for _, w := range p.Warnings {
			if w.Summary == summary {
				return w.Detail
			}
		}
		return ""
	}

	p := plan(v2, hold, false)
	if !p.Changes.Empty() || p.Waves.Waves[0].Writes || p.Waves.Waves[0].Reason != "held: a rollback to c2c2c2c2c2c2 holds the tree the configuration renders" ||
		p.Waves.Waves[0].PendingFiles != 1 || len(p.Waves.Admitted) != 0 {
		t.Errorf("held: %q %+v", changedPaths(p.Changes), p.Waves.Waves)
	}
	if w := warning(p, "Held after a rollback"); !strings.Contains(w, "tree failedtree00 (commit c4c4c4c4c4c4) was rolled back to commit c2c2c2c2c2c2 at 2026-11-27T09:00:00Z") ||
		!strings.Contains(w, "the content that failed in drone, large") {
		t.Errorf("held warning %q", w)
	}
	if w := warning(p, "Rollout: waves stay behind"); !strings.Contains(w, "this apply writes nothing of wave canary: a rollback holds its folders drone.\nrest waits for canary") {
		t.Errorf("rollout warning %q", w)
	}

	// drone renders version 3: released, written to the canary; large stays held.
	p = plan(map[string]string{"drone/a.yaml": "v3", "large/a.yaml": "v2"}, hold, false)
	if got := changedPaths(p.Changes); got != "clusters/drone/a.yaml" || !strings.Contains(warning(p, "Held after a rollback"), "failed in large,") {
		t.Errorf("drone released: %q %+v", got, p.Warnings)
	}
	// large renders version 3 but drone is still held: the canary, whose change is held, writes nothing,
	// and the rest waits for it.
	p = plan(map[string]string{"drone/a.yaml": "v2", "large/a.yaml": "v3"}, hold, false)
	if !p.Changes.Empty() || p.Waves.Waves[1].State != rollout.WaveWaiting || !strings.Contains(warning(p, "Held after a rollback"), "failed in drone,") {
		t.Errorf("large released, drone held: %q %+v %+v", changedPaths(p.Changes), p.Waves.Waves, p.Warnings)
	}
	// Version 3 everywhere: no hold, the canary first.
	p = plan(map[string]string{"drone/a.yaml": "v3", "large/a.yaml": "v3"}, hold, false)
	if got := changedPaths(p.Changes); got != "clusters/drone/a.yaml" || warning(p, "Held after a rollback") != "" {
		t.Errorf("released: %q %+v", got, p.Warnings)
	}
	// release_hold writes version 2 to the canary, on purpose.
	p = plan(v2, hold, true)
	if got := changedPaths(p.Changes); got != "clusters/drone/a.yaml" || !strings.Contains(warning(p, "Hold released"), "its folders drone, large were held since") {
		t.Errorf("release_hold: %q %+v", got, p.Warnings)
	}
	// A record without folders (written before the hold was kept per folder) compares whole trees: the
	// narrowed tree is not the failed one, so the canary receives version 2 again.
	old := *hold
	old.Folders = nil
	if got := changedPaths(plan(v2, &old, false).Changes); got != "clusters/drone/a.yaml" {
		t.Errorf("whole-tree hold: %q", got)
	}
}

// The apply of a rollout with a per-folder hold: the held folders keep the branch's content, an apply of
// a plan that wrote nothing is held, and the hold the apply leaves keeps the folders it did not write.
func TestApplyHold_PerFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{"clusters/drone/a.yaml": "v1", "clusters/large/a.yaml": "v1"})
	v1 := map[string]string{"drone/a.yaml": "v1", "large/a.yaml": "v1"}
	v2 := map[string]string{"drone/a.yaml": "v2", "large/a.yaml": "v2"}
	hold := &Hold{Tree: "failedtree00", Commit: "c4", To: "c2", Since: "2026-11-27T09:00:00Z", Folders: HoldFolders(nil, digests(v2), digests(v1))}
	waves := []PlannedWave{{ClusterTypes: []string{"drone"}, Current: true}, {ClusterTypes: []string{"large"}}}
	run := func(desired map[string]string, commitKnown, release bool) *Applying {
		t.Helper()
		a := applying(repo, "clusters", desired)
		a.Rolling, a.Waves, a.Hold, a.ReleaseHold = true, waves, hold, release
		a.Prior = &AppliedBefore{ContentHash: "restored", CommitSHA: "c5"}
		a.Planned = Planned{CommitKnown: commitKnown}
		for _, step := range []func(context.Context, *Applying) error{applyWaves, applyDesired, applyHold} {
			if err := step(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	// rollback removed from the configuration, which still renders version 2: nothing is written.
	a := run(v2, true, false)
	if !a.Held || !reflect.DeepEqual(fixtures.Strings(a.Files), v1) || !a.HeldFolders["drone"] || !a.HeldFolders["large"] {
		t.Errorf("held: %v %v %v", a.Held, fixtures.Strings(a.Files), a.HeldFolders)
	}
	// drone renders version 3: the canary writes it, large stays held afterwards.
	a = run(map[string]string{"drone/a.yaml": "v3", "large/a.yaml": "v2"}, false, false)
	if a.Held || !reflect.DeepEqual(fixtures.Strings(a.Files), map[string]string{"drone/a.yaml": "v3", "large/a.yaml": "v1"}) {
		t.Errorf("drone released: %v %v", a.Held, fixtures.Strings(a.Files))
	}
	if after := a.HoldAfter(time.Now()); after == nil || len(after.Folders) != 1 || !reflect.DeepEqual(after.Folders["large"], hold.Folders["large"]) {
		t.Errorf("the hold after the canary: %+v", after)
	}
	// release_hold writes version 2 to the canary and ends the hold.
	a = run(v2, false, true)
	if a.Held || fixtures.Strings(a.Files)["drone/a.yaml"] != "v2" || a.HoldAfter(time.Now()) != nil {
		t.Errorf("release_hold: %v %v", a.Held, fixtures.Strings(a.Files))
	}
	// A rollback's apply records the folders it changed from the branch it read (version 1 here) to what
	// it writes, with the earlier hold's folders it left as they were, and what failed before in a folder
	// it rolls back further.
	a = run(map[string]string{"drone/a.yaml": "v0", "large/a.yaml": "v1"}, false, false)
	a.RolledBack = &RolledBack{To: "c1"}
	h := a.HoldAfter(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	want := map[string]HeldFolder{"drone": {Failed: digests(v1)["drone"], Restored: digests(map[string]string{"drone/a.yaml": "v0"})["drone"],
		EarlierFailed: []string{digests(v2)["drone"]}}, "large": hold.Folders["large"]} // drone rolled back further: version 2 stays held too
	if h == nil || h.Tree != "restored" || h.Commit != "c5" || h.To != "c1" || h.Since != "2026-11-27T10:00:00Z" || !reflect.DeepEqual(h.Folders, want) {
		t.Errorf("the rollback's hold: %+v", h)
	}
	if got := ParseHold(h.Marshal()); !reflect.DeepEqual(got, h) {
		t.Errorf("round trip: %+v", got)
	}
	// Without a rollout the hold compares whole trees, as before.
	plain := &Applying{TreeID: "failedtree00", Hold: hold, Planned: Planned{CommitKnown: true}, Prior: &AppliedBefore{ContentHash: "x"}}
	if err := applyHold(ctx, plain); err != nil || !plain.Held || plain.HoldAfter(time.Now()) != nil {
		t.Errorf("no rollout: held %v", plain.Held)
	}
}
