// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// Each step of PlanSteps is tested here on its own, over plain values and real bare repositories; the
// acceptance tests of kalypso_gitops_commit cover them together through Terraform.

// filesRenderer is a Renderer in files mode: it returns its results in turn (the last one again), and
// records what it was asked.
type filesRenderer struct {
	results []Rendered
	err     error
	reuses  []bool
	kept    []*gitrepo.Tree
}

func (f *filesRenderer) Desired(_ context.Context, reuse bool) (Rendered, error) {
	f.reuses = append(f.reuses, reuse)
	if f.err != nil {
		return Rendered{}, f.err
	}
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	return r, nil
}

func (f *filesRenderer) Keep(_ context.Context, t *gitrepo.Tree) { f.kept = append(f.kept, t) }

func files(m map[string]string) Rendered { return Rendered{Known: true, Files: fixtures.Bytes(m)} }

// planning is a Planning of files at path of branch main of repo, every input known.
func planning(repo, path string, r Renderer) *Planning {
	url := "file://" + repo
	return &Planning{
		Git: &gitrepo.Client{}, PriorGit: &gitrepo.Client{}, Renderer: r,
		Config: Config{Resource: Resource{RepoURL: url, Branch: "main", Path: path, MaxDeletePercent: DefaultMaxDeletePercent},
			RawPath: displayPath(path), RepoURLKnown: true, BranchKnown: true, PathKnown: true, SettingsKnown: true},
	}
}

// prior is the state of a resource applied at path of branch main of repo.
func prior(repo, path string, protected bool) *Prior {
	url := "file://" + repo
	return &Prior{Resource: Resource{RepoURL: url, Branch: "main", Path: path}, ID: ID(url, path, "main"), RawPath: path, Protected: protected}
}

func refusal(t *testing.T, err error, attribute string, detail ...string) {
	t.Helper()
	var rf *Refusal
	if !errors.As(err, &rf) {
		t.Fatalf("want a refusal at %q, got %v", attribute, err)
	}
	if rf.Attribute != attribute {
		t.Errorf("refusal at %q, want %q: %s", rf.Attribute, attribute, rf.Detail)
	}
	for _, d := range detail {
		if !strings.Contains(rf.Detail, d) {
			t.Errorf("refusal %q lacks %q", rf.Detail, d)
		}
	}
}

func TestPlanSteps_Order(t *testing.T) {
	t.Parallel()
	var names []string
	for _, s := range PlanSteps() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "identity,open_pull_request,destination,location,rollback,render,waves,last_known_good,inspect,hold,guards,deletion_reference,ownership,proposal,outcome,window,summary" {
		t.Errorf("steps %s", got)
	}
	if d := DestroySteps(); len(d) != 1 || d[0].Name != StepDestroy {
		t.Errorf("destroy steps %+v", d)
	}
}

// RunPlan runs the steps in order, times each, and stops at the first error.
func TestRunPlan_StopsAtTheFirstRefusal(t *testing.T) {
	t.Parallel()
	var ran, timed []string
	p := &Planning{Phase: func(msg string, _ time.Time, err error) { timed = append(timed, msg) }}
	step := func(name string, err error) Step {
		return Step{name, func(context.Context, *Planning) error { ran = append(ran, name); return err }}
	}
	stop := &Refusal{Summary: "no"}
	err := RunPlan(context.Background(), p, []Step{step("a", nil), step("b", stop), step("c", nil)})
	if err != stop || strings.Join(ran, ",") != "a,b" || strings.Join(timed, ",") != "plan step a,plan step b" {
		t.Errorf("err %v, ran %v, timed %v", err, ran, timed)
	}
}

// identity: another spelling of the state's repository keeps the state's; the id follows the location
// once it is known.
func TestPlanIdentity(t *testing.T) {
	t.Parallel()
	p := planning("/srv/fleet.git", "clusters", nil)
	p.Config.Resource.RepoURL, p.Config.RawPath = "/srv/fleet.git/", "./clusters"
	p.Prior = prior("/srv/fleet.git", "clusters", true)
	if err := planIdentity(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if p.Config.Resource.RepoURL != "file:///srv/fleet.git" || p.ID != "file:///srv/fleet.git//clusters?ref=main" {
		t.Errorf("respelled: %q, id %q", p.Config.Resource.RepoURL, p.ID)
	}
	other := planning("/srv/other.git", "clusters", nil)
	other.Prior = p.Prior
	if _ = planIdentity(context.Background(), other); other.Config.Resource.RepoURL != "file:///srv/other.git" {
		t.Errorf("another repository is kept: %q", other.Config.Resource.RepoURL)
	}
	unknown := planning("/srv/fleet.git", "clusters", nil)
	unknown.Config.BranchKnown = false
	if _ = planIdentity(context.Background(), unknown); unknown.ID != "" {
		t.Errorf("an id before the branch is known: %q", unknown.ID)
	}
}

// identity, replacement: the removal side is decided at plan, as a destroy's.
func TestPlanIdentity_ReplacementIsADestroy(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"clusters/a.yaml": "a", "clusters/" + OwnerMarker: "clusters"})
	p := planning(repo, "clusters", nil)
	p.Prior, p.Replacing = prior(repo, "clusters", true), "path"
	refusal(t, planIdentity(context.Background(), p), "deletion_protection", "replacing the resource (a change of path) deletes 1 file")
	p.Prior.Protected = false
	if err := planIdentity(context.Background(), p); err != nil || len(p.Warnings) != 1 || p.Warnings[0].Summary != "Files are deleted from the Git branch" {
		t.Errorf("unprotected: %v %+v", err, p.Warnings)
	}
}

// destroy: refused under protection, a warning otherwise, nothing deleted with retain or a missing branch.
func TestPlanDestroy(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"clusters/a.yaml": "a", "clusters/b/c.yaml": "c"})
	ctx := context.Background()
	p := &Planning{PriorGit: &gitrepo.Client{}, Prior: prior(repo, "clusters", true)}
	refusal(t, RunPlan(ctx, p, DestroySteps()), "deletion_protection", "deletion_protection is on", "deletes 2 files", "retain_on_destroy = true")
	p.Prior.Protected = false
	if err := RunPlan(ctx, p, DestroySteps()); err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Detail, "destroying the resource deletes 2 files") {
		t.Errorf("unprotected: %v %+v", err, p.Warnings)
	}
	for _, q := range []*Prior{{Resource: p.Prior.Resource, Retain: true, Protected: true}, {Resource: Resource{RepoURL: p.Prior.Resource.RepoURL, Branch: "gone"}, Protected: true}} {
		d := &Planning{PriorGit: &gitrepo.Client{}, Prior: q}
		if err := RunPlan(ctx, d, DestroySteps()); err != nil || len(d.Warnings) != 1 || d.Warnings[0].Summary != "No file is deleted from the Git branch" {
			t.Errorf("%+v: %v %+v", q, err, d.Warnings)
		}
	}
}

// location: a second resource of the plan on an overlapping path is refused; a move plans its old side
// under the rules of a deletion.
func TestPlanLocation(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"clusters/a.yaml": "a", "clusters/" + OwnerMarker: "clusters"})
	ctx := context.Background()
	locations := &Locations{}
	claim := func(path string) error {
		p := planning(repo, path, nil)
		p.Locations = locations
		_ = planIdentity(ctx, p)
		return planLocation(ctx, p)
	}
	if err := claim("envs/dev"); err != nil {
		t.Fatal(err)
	}
	refusal(t, claim("envs"), "path", "overlapping paths", "Nothing was written")

	move := func(to string, protected bool) (*Planning, error) {
		p := planning(repo, to, nil)
		p.Prior = prior(repo, "clusters", protected)
		_ = planIdentity(ctx, p)
		return p, planLocation(ctx, p)
	}
	if p, err := move("clusters", true); err != nil || p.Move != nil {
		t.Errorf("no move: %+v %v", p.Move, err)
	}
	_, err := move("clusters/dev", false)
	refusal(t, err, "path", "contain one another")
	_, err = move("envs/prod", true)
	refusal(t, err, "deletion_protection", "moving the resource to")
	p, err := move("envs/prod", false)
	if err != nil || p.Move == nil || !p.Move.SameBranch || p.Move.Old.Files != 1 || p.Move.Old.Listed["a.yaml"] != "a" || p.Move.Key("a.yaml") != "clusters/a.yaml" ||
		len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Detail, "The apply writes both in one commit") || ParseMoveRecord(p.Move.Record()) == nil {
		t.Errorf("move: %v %+v %+v", err, p.Move, p.Warnings)
	}
}

// render: the last apply's render may be reused on an update, but not on create, nor when
// promoted_commit_id lies under path.
func TestPlanRender(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path      string
		hasPrior  bool
		wantReuse bool
	}{{"clusters", false, false}, {"clusters", true, true}, {".github", true, false}} {
		r := &filesRenderer{results: []Rendered{files(map[string]string{"a.yaml": "a"})}}
		p := planning("/srv/fleet.git", c.path, r)
		if c.hasPrior {
			p.Prior = prior("/srv/fleet.git", c.path, true)
		}
		if err := planRender(context.Background(), p); err != nil || r.reuses[0] != c.wantReuse || !p.Rendered.Known {
			t.Errorf("%+v: %v, reuse %v", c, err, r.reuses)
		}
	}
	r := &filesRenderer{err: ErrReported}
	if err := planRender(context.Background(), planning("/srv/fleet.git", "clusters", r)); !errors.Is(err, ErrReported) {
		t.Errorf("a render error: %v", err)
	}
}

// inspect: the change set against a real branch; nothing while an input is unknown; a render when the
// branch no longer holds the recorded tree; a missing branch is refused at branch.
func TestPlanInspect(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewSeededRepo(t, t.TempDir(), "fleet.git", "main", map[string]string{"clusters/a.yaml": "a", "clusters/b.yaml": "b"})
	ctx := context.Background()
	want := files(map[string]string{"a.yaml": "a2", "c.yaml": "c"})

	unknown := planning(repo, "clusters", nil)
	unknown.Rendered = Rendered{}
	if err := planInspect(ctx, unknown); err != nil || unknown.Changes != nil {
		t.Errorf("unknown files: %v %+v", err, unknown.Changes)
	}

	r := &filesRenderer{results: []Rendered{want}}
	p := planning(repo, "clusters", r)
	p.Rendered = Rendered{Known: true, Reused: "0123456789abcdef0123456789abcdef01234567"}
	if err := planInspect(ctx, p); err != nil || p.Changes == nil {
		t.Fatalf("%v", err)
	}
	if len(r.reuses) != 1 || r.reuses[0] {
		t.Errorf("a recorded tree the branch does not hold is rendered again: %v", r.reuses)
	}
	if c := p.Changes.Counts; c != (Counts{Create: 2, Update: 1, Delete: 1}) { // c.yaml and the ownership record; a.yaml; b.yaml
		t.Errorf("counts %+v", c)
	}

	gone := planning(repo, "clusters", nil)
	gone.Config.Resource.Branch, gone.Rendered = "gone", want
	refusal(t, planInspect(ctx, gone), "branch", `branch "gone" does not exist`)
}

// guards: another resource's record above the path, a mass deletion, and a stamp that says the branch
// appeared since the plan are refused.
func TestPlanGuards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	nested := gitserver.NewSeededRepo(t, root, "nested.git", "main", map[string]string{"envs/" + OwnerMarker: "envs", "envs/dev/a.yaml": "a"})
	p := planning(nested, "envs/dev", nil)
	p.Rendered = files(map[string]string{"a.yaml": "a"})
	_ = planIdentity(ctx, p)
	if err := planInspect(ctx, p); err != nil {
		t.Fatal(err)
	}
	refusal(t, planGuards(ctx, p), "path", `overlaps the path "envs"`)

	many := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		many["clusters/"+n+".yaml"] = n
	}
	big := gitserver.NewSeededRepo(t, root, "big.git", "main", many)
	p = planning(big, "clusters", nil)
	p.Rendered = files(map[string]string{"a.yaml": "a"})
	_ = planIdentity(ctx, p)
	if err := planInspect(ctx, p); err != nil {
		t.Fatal(err)
	}
	refusal(t, planGuards(ctx, p), "max_delete_percent", "deletes 11 of the 12 files")

	// The stamp: a plan that creates branch "new" is stamped; once someone else created it with other
	// content under path, the same plan is refused once, and the stamp dropped.
	store := NewRenderStore(t.TempDir())
	stamped := func() *Planning {
		q := planning(big, "clusters", nil)
		q.Store, q.Build, q.Config.Resource.Branch, q.Config.Resource.CreateBranch = store, "v1", "new", true
		q.Rendered = files(map[string]string{"a.yaml": "a"})
		_ = planIdentity(ctx, q)
		if err := planInspect(ctx, q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	if err := planGuards(ctx, stamped()); err != nil {
		t.Fatal(err)
	}
	gitserver.Commit(t, big, "new", "theirs", map[string]string{"clusters/a.yaml": "theirs"}, nil)
	refusal(t, planGuards(ctx, stamped()), "branch", `branch "new" did not exist when the plan was made`)
	if err := planGuards(ctx, stamped()); err != nil {
		t.Errorf("the next plan after a refusal: %v", err)
	}
}

// ownership: two resources spelled alike that deliver different trees are refused.
func TestPlanOwnership(t *testing.T) {
	t.Parallel()
	locations := &Locations{}
	deliver := func(tree string) error {
		p := planning("/srv/fleet.git", "clusters", nil)
		p.Locations, p.Changes = locations, &Plan{DesiredTree: tree}
		_ = planIdentity(context.Background(), p)
		if err := planLocation(context.Background(), p); err != nil {
			return err
		}
		return planOwnership(context.Background(), p)
	}
	if err := deliver("tree-a"); err != nil {
		t.Fatal(err)
	}
	if err := deliver("tree-a"); err != nil {
		t.Errorf("the same resource planned twice: %v", err)
	}
	refusal(t, deliver("tree-b"), "path", "deliver different files to the same location")
}

// outcome: the render is kept, a move's old side joins the change set, and the decision follows.
func TestPlanOutcome(t *testing.T) {
	t.Parallel()
	r := &filesRenderer{}
	p := planning("/srv/fleet.git", "envs", r)
	p.Prior = prior("/srv/fleet.git", "clusters", false)
	p.Changes = &Plan{Changes: map[string]Change{}, Counts: Counts{}}
	p.Move = &MovePlan{Old: &RemovalPlan{Files: 1, Listed: map[string]string{"a.yaml": "a"}}, From: p.Prior.Resource, SameBranch: true, SameRepo: true}
	if err := planOutcome(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(r.kept) != 1 || p.Changes.Changes["clusters/a.yaml"].Action != ActionDelete || !p.Decision.CommitUnknown || !p.Decision.PullRequestNull {
		t.Errorf("kept %d, changes %+v, decision %+v", len(r.kept), p.Changes.Changes, p.Decision)
	}
	p.Move, p.Changes = nil, &Plan{}
	if _ = planOutcome(context.Background(), p); !p.Decision.KeepRecorded {
		t.Errorf("nothing to write keeps the record: %+v", p.Decision)
	}
	p.Changes, p.Config.PullRequestUnknown = nil, true
	if _ = planOutcome(context.Background(), p); !p.Decision.CommitUnknown || !p.Decision.PullRequestUnknown {
		t.Errorf("unknown: %+v", p.Decision)
	}
}

// Explain reports a delivery error at its attribute, a bare Git error with its hint, and passes a refusal on.
func TestExplain(t *testing.T) {
	t.Parallel()
	rf := Explain("id", &Error{Attribute: "branch", Summary: "S", Err: errors.New("found"), Hint: "do this"})
	if *rf != (Refusal{Attribute: "branch", Summary: "S", Detail: "kalypso_gitops_commit id: found.\n\ndo this"}) {
		t.Errorf("%+v", rf)
	}
	git := Explain("id", &gitrepo.Error{Op: "read", Repo: "file:///x", Branch: "main", Err: gitrepo.ErrRepositoryNotFound})
	if git.Summary != "Git repository not found" || !strings.HasPrefix(git.Detail, "kalypso_gitops_commit id: ") {
		t.Errorf("%+v", git)
	}
	if same := (&Refusal{Summary: "x"}); Explain("id", same) != same {
		t.Error("a refusal is reported as it is")
	}
}
