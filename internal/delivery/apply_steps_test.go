// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/windows"
)

// Each step of ApplySteps is tested here on its own, over plain values (and a real bare repository for
// the waves); the acceptance tests of kalypso_gitops_commit cover them together through Terraform.

// applying is an Applying of files at path of branch main of repo, every input known.
func applying(repo, path string, files map[string]string) *Applying {
	url := "file://" + repo
	return &Applying{
		ID: ID(url, path, "main"), Git: &gitrepo.Client{}, Known: true, Files: fixtures.Bytes(files), Now: time.Now(),
		Resource: Resource{RepoURL: url, Branch: "main", Path: path, MaxDeletePercent: DefaultMaxDeletePercent, CreateBranch: true},
	}
}

func TestApplySteps_Order(t *testing.T) {
	t.Parallel()
	var names []string
	for _, s := range ApplySteps() {
		names = append(names, s.Name)
	}
	want := []string{ApplyStepKnown, ApplyStepWaves, ApplyStepDesired, ApplyStepHold, ApplyStepPlanned, ApplyStepWindow, ApplyStepRequest, ApplyStepMove}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("ApplySteps() = %v, want %v", names, want)
	}
}

func TestRunApply_StopsAtARefusalOrAHold(t *testing.T) {
	t.Parallel()
	var ran []string
	step := func(name string, held bool, err error) ApplyStep {
		return ApplyStep{name, func(_ context.Context, a *Applying) error { ran = append(ran, name); a.Held = held; return err }}
	}
	a := &Applying{}
	if err := RunApply(context.Background(), a, []ApplyStep{step("a", false, nil), step("b", true, nil), step("c", false, nil)}); err != nil || !a.Held {
		t.Fatalf("err %v, held %v", err, a.Held)
	}
	refused := &Refusal{Summary: "no"}
	err := RunApply(context.Background(), &Applying{}, []ApplyStep{step("d", false, refused), step("e", false, nil)})
	if err != refused || strings.Join(ran, " ") != "a b d" {
		t.Errorf("err %v, ran %v", err, ran)
	}
}

func TestApplyKnown(t *testing.T) {
	t.Parallel()
	a := applying("/r.git", "clusters", nil)
	if err := applyKnown(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	a.Known = false
	refusal(t, applyKnown(context.Background(), a), "", "kalypso_gitops_commit file:///r.git//clusters?ref=main: an input of files or render is still unknown at apply time")
}

// A rollout's apply writes the current wave's folders only; the rollback a halted rollout proposed
// writes every wave. Either way the plan's kept wave decisions are dropped.
func TestApplyWaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "gitops.git", "main", map[string]string{
		"clusters/drone/a.yaml": "v1", "clusters/west/a.yaml": "v1", PromotedCommitFile: "p1",
	})
	desired := map[string]string{"drone/a.yaml": "v2", "west/a.yaml": "v2"}
	waves := []PlannedWave{{ClusterTypes: []string{"drone"}, Current: true}, {ClusterTypes: []string{"west"}}}
	promoted := "p2"
	run := func(auto bool) *Applying {
		a := applying(repo, "clusters", desired)
		a.Resource.PromotedCommitID = &promoted
		a.Rolling, a.Waves = true, waves
		if auto {
			a.RolledBack, a.Waves = &RolledBack{To: "abc", Auto: true}, nil
		}
		store := NewRenderStore(t.TempDir())
		kept := store.wavesDir(a.ID)
		if err := os.MkdirAll(kept, 0o700); err != nil || os.WriteFile(filepath.Join(kept, "decision"), []byte("{}"), 0o600) != nil {
			t.Fatal(err)
		}
		a.Store = store
		if err := applyWaves(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(kept); !os.IsNotExist(err) {
			t.Errorf("the plan's wave decisions were kept: %v", err)
		}
		return a
	}
	a := run(false)
	if got := fixtures.Strings(a.Files); !reflect.DeepEqual(got, map[string]string{"drone/a.yaml": "v2", "west/a.yaml": "v1"}) {
		t.Errorf("first wave writes %v", got)
	}
	if a.Resource.PromotedCommitID == nil || *a.Resource.PromotedCommitID != "p1" {
		t.Errorf("the promoted commit moved before the last wave: %v", a.Resource.PromotedCommitID)
	}
	if a = run(true); !reflect.DeepEqual(fixtures.Strings(a.Files), desired) {
		t.Errorf("an automatic rollback writes %v", fixtures.Strings(a.Files))
	}
	// Without a rollout nothing is read.
	plain := applying("/nowhere.git", "clusters", desired)
	if err := applyWaves(ctx, plain); err != nil || !reflect.DeepEqual(fixtures.Strings(plain.Files), desired) {
		t.Errorf("no rollout: %v %v", err, plain.Files)
	}
}

func TestApplyDesired(t *testing.T) {
	t.Parallel()
	built, err := gitrepo.NewTreeFromFiles(fixtures.Bytes(map[string]string{"a.yaml": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	a := applying("/r.git", "clusters", map[string]string{"a.yaml": "x"})
	a.Built = built
	a.Prior = &AppliedBefore{PromotedCommitID: new("p1")}
	if err := applyDesired(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if a.Desired.Built != built || a.TreeID == "" || a.TreeErr != nil {
		t.Errorf("desired %+v, tree %q %v", a.Desired, a.TreeID, a.TreeErr)
	}
	if !reflect.DeepEqual(a.Desired.DeleteRootFiles, []string{PromotedCommitFile}) {
		t.Errorf("promoted_commit_id removed: deletes %v", a.Desired.DeleteRootFiles)
	}
	// A rollout writes the narrowed files, never the render's tree.
	a.Rolling = true
	if _ = applyDesired(context.Background(), a); a.Desired.Built != nil || a.TreeID == "" {
		t.Errorf("rollout: built %v, tree %q", a.Desired.Built, a.TreeID)
	}
}

func TestApplyHold(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		mutate func(*Applying)
		held   bool
	}{
		"the held tree":            {func(*Applying) {}, true},
		"another tree":             {func(a *Applying) { a.TreeID = "t2" }, false},
		"release_hold":             {func(a *Applying) { a.ReleaseHold = true }, false},
		"rollback configured":      {func(a *Applying) { a.RollbackSet = true }, false},
		"the plan writes":          {func(a *Applying) { a.Planned.CommitKnown = false }, false},
		"no hold":                  {func(a *Applying) { a.Hold = nil }, false},
		"the tree is not computed": {func(a *Applying) { a.TreeErr = errTest }, false},
	} {
		a := &Applying{TreeID: "t1", Hold: &Hold{Tree: "t1"}, Planned: Planned{CommitKnown: true}}
		c.mutate(a)
		if err := applyHold(context.Background(), a); err != nil || a.Held != c.held {
			t.Errorf("%s: held %v, want %v (%v)", name, a.Held, c.held, err)
		}
	}
}

var errTest = &Error{Summary: "test"}

func TestApplyPlanned(t *testing.T) {
	t.Parallel()
	a := &Applying{TreeID: "t1", Planned: Planned{ContentHash: "t1"}}
	if err := applyPlanned(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	a.TreeID = "t2"
	rf := Explain(a.ID, applyPlanned(context.Background(), a))
	if rf.Summary != "The desired tree differs from the plan" || !strings.Contains(rf.Detail, "the plan was for tree t1, the apply computed t2") {
		t.Errorf("%+v", rf)
	}
}

func TestApplyWindow(t *testing.T) {
	t.Parallel()
	cal, problems := windows.Parse(windows.Spec{TimeZone: "UTC", Allow: []windows.RuleSpec{{Schedule: "0 8 * * 1-5", Duration: "9h"}}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	closed := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	glass := &BreakGlass{Reason: "hotfix", Ticket: "INC-1"}
	a := &Applying{Now: closed, TreeID: "t1", Window: WindowConfig{Known: true, Calendar: cal}}
	rf := Explain(a.ID, applyWindow(context.Background(), a))
	if rf.Attribute != "change_windows" || !strings.Contains(rf.Detail, "closed at apply time") {
		t.Errorf("closed: %+v", rf)
	}
	a.Window.BreakGlass = glass
	if err := applyWindow(context.Background(), a); err != nil || a.BreakGlass == nil || *a.BreakGlass != *glass {
		t.Errorf("break-glass: %v %v", err, a.BreakGlass)
	}
	// An apply that writes nothing, or without change_windows, is never blocked.
	for _, b := range []*Applying{
		{Now: closed, Window: WindowConfig{Known: true, Calendar: cal}, Planned: Planned{CommitKnown: true}},
		{Now: closed, Window: WindowConfig{Known: true}},
	} {
		if err := applyWindow(context.Background(), b); err != nil || b.BreakGlass != nil {
			t.Errorf("%+v: %v %v", b.Window, err, b.BreakGlass)
		}
	}
}

func TestApplyRequest(t *testing.T) {
	t.Parallel()
	a := applying("/r.git", "clusters", map[string]string{"a.yaml": "x"})
	a.Planned = Planned{ContentHash: "t1", BaseTree: "b1"}
	a.BreakGlass = &BreakGlass{Reason: "hotfix", Ticket: "INC-1"}
	a.Markdown = "| change |"
	_ = applyDesired(context.Background(), a)
	if err := applyRequest(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	r := a.Request
	if r.Apply.ExpectedManagedTree != "b1" || !reflect.DeepEqual(r.Apply.Trailers, a.BreakGlass.Trailers()) || r.Body != "| change |" || r.Apply.NoCreate {
		t.Errorf("request %+v", r.Apply)
	}
	// A rollback's commit names both commits; in pull-request mode its title says so.
	a.Markdown = NoChangeMarkdown
	a.RolledBack, a.Prior = &RolledBack{To: "1234567890abcdef"}, &AppliedBefore{CommitSHA: "fedcba0987654321"}
	a.Resource.PullRequest = &PullRequest{}
	_ = applyRequest(context.Background(), a)
	if msg := a.Request.Apply.Describe(gitrepo.Changes{}); !strings.HasPrefix(msg, "Roll back clusters on main to 1234567890ab (from fedcba098765)") {
		t.Errorf("message %q", msg)
	}
	if a.Request.Title != "Roll back branch main to 1234567890abcdef" || a.Request.Body != "" {
		t.Errorf("title %q, body %q", a.Request.Title, a.Request.Body)
	}
}

func TestApplyMove(t *testing.T) {
	t.Parallel()
	open := &Proposal{Number: 7}
	move := func(from Resource, moving bool) *Applying {
		a := applying("/r.git", "new", map[string]string{"a.yaml": "x"})
		a.Prior = &AppliedBefore{Resource: from, Proposal: open}
		if moving {
			a.Move = &MoveRecord{Tree: "old-tree"}
		}
		_ = applyDesired(context.Background(), a)
		_ = applyRequest(context.Background(), a)
		if err := applyMove(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	url := "file:///r.git"
	// An update in place replaces the open proposal.
	if a := move(Resource{RepoURL: url, Branch: "main", Path: "new"}, false); a.Vacated || a.Request.Replaces != open {
		t.Errorf("update: vacated %v, replaces %v", a.Vacated, a.Request.Replaces)
	}
	// A move on the same branch empties the old path in the same commit.
	a := move(Resource{RepoURL: url, Branch: "main", Path: "old"}, true)
	if !a.Vacated || a.Request.Apply.Vacate != "old" || a.Request.Apply.VacateExpectedTree != "old-tree" || a.Request.Replaces != open {
		t.Errorf("same branch: %+v", a.Request.Apply)
	}
	// A move to another branch of the repository reuses the old branch's objects and leaves the proposal to the removal.
	a = move(Resource{RepoURL: url, Branch: "old", Path: "old"}, true)
	if a.Vacated || a.Request.Apply.ReuseBranch != "old" || a.Request.Apply.ReusePath != "old" || a.Request.Replaces != nil {
		t.Errorf("other branch: vacated %v, %+v, replaces %v", a.Vacated, a.Request.Apply, a.Request.Replaces)
	}
	// A move to another repository reuses nothing.
	a = move(Resource{RepoURL: "file:///other.git", Branch: "main", Path: "old"}, true)
	if a.Vacated || a.Request.Apply.ReuseBranch != "" || a.Request.Replaces != nil {
		t.Errorf("other repository: %+v", a.Request.Apply)
	}
}

func TestApplyingDelivered(t *testing.T) {
	t.Parallel()
	a := applying("/r.git", "clusters", map[string]string{"a.yaml": "x", "b.yaml": "y"})
	a.TreeID = "t1"
	a.Desired = a.Resource.Desired(a.Files, "", false)
	a.Prior = &AppliedBefore{CommitSHA: "c0", ContentHash: "t0", DeletionReference: "40"}
	v := a.Delivered("cfg")
	want := AppliedValues{ContentHash: "t1", BaseTree: "t1", DeletionReference: 40, StampKey: StampKeyFor(a.ID, "c0", "t0", "cfg", "t1")}
	if v != want {
		t.Errorf("Delivered = %+v, want %+v", v, want)
	}
	// A move starts the reference afresh; the plan's values stand where it knew them.
	a.Move, a.Planned = &MoveRecord{Tree: "old"}, Planned{ContentHash: "t1", BaseTree: "b0"}
	if v = a.Delivered("cfg"); v.DeletionReference != 2 || v.BaseTree != "b0" {
		t.Errorf("move: %+v", v)
	}
}
