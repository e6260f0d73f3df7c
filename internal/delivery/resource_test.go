// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
)

func TestRenderRecord_RoundTrip(t *testing.T) {
	t.Parallel()
	inputs := RenderInputs("build-1", []byte("key"))
	rec := RenderRecord{Inputs: inputs, Tree: gitrepo.EmptyTreeID, Warnings: model.Diagnostics{{Severity: model.SeverityWarning, Summary: "Unscheduled deployment targets", Kind: "DeploymentTarget", Name: "app-api"}}}
	got := ParseRenderRecord(rec.Marshal())
	if got == nil || !reflect.DeepEqual(*got, rec) {
		t.Fatalf("round trip: got %+v, want %+v", got, rec)
	}
	if !got.Reusable(inputs) {
		t.Error("a record of the same inputs with a tree must be reusable")
	}
	if got.Reusable(RenderInputs("build-1", []byte("other key"))) || got.Reusable(RenderInputs("build-2", []byte("key"))) || got.Reusable("") {
		t.Error("different inputs, or another build of the renderer, must render again")
	}
}

func TestRenderRecord_NothingToReuse(t *testing.T) {
	t.Parallel()
	// Files mode, or an apply that recorded no tree, writes no record.
	for _, rec := range []RenderRecord{{}, {Inputs: "x"}, {Tree: gitrepo.EmptyTreeID}} {
		if b := rec.Marshal(); b != nil {
			t.Errorf("%+v: marshalled to %q, want no record", rec, b)
		}
	}
	// What cannot be read is ignored: the plan renders.
	for _, b := range [][]byte{nil, {}, []byte("{"), []byte("not json"), []byte(`["inputs"]`)} {
		if rec := ParseRenderRecord(b); rec != nil {
			t.Errorf("%q: parsed %+v, want nil", b, rec)
		}
	}
	var none *RenderRecord
	if none.Reusable("x") {
		t.Error("no record is never reusable")
	}
	// A record without a tree (written by hand, or by a future version) is not reused.
	if rec := ParseRenderRecord([]byte(`{"inputs":"x"}`)); rec == nil || rec.Reusable("x") {
		t.Errorf("a record without tree: %+v", rec)
	}
}

func TestRenderInputs(t *testing.T) {
	t.Parallel()
	a := RenderInputs("build", []byte("key"))
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("%q is not a hex sha256", a)
	}
	if a != RenderInputs("build", []byte("key")) {
		t.Error("not deterministic")
	}
	// The separator keeps the build id and the key apart.
	if RenderInputs("ab", []byte("c")) == RenderInputs("a", []byte("bc")) {
		t.Error("build id and key run together")
	}
}

func TestPlanned_ExpectedTree(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		p    Planned
		want string
	}{
		{"create or a change: the branch must still hold the tree the change set was computed against", Planned{ContentHash: "desired", BaseTree: "base"}, "base"},
		{"nothing to write: the branch must still hold the desired tree", Planned{ContentHash: "desired", BaseTree: "base", CommitKnown: true}, "desired"},
		{"pull-request mode writes a head branch the provider owns", Planned{ContentHash: "desired", BaseTree: "base", PullRequest: true}, ""},
		{"base tree unknown at plan time", Planned{ContentHash: "desired"}, ""},
		{"desired tree unknown at plan time", Planned{BaseTree: "base", CommitKnown: true}, ""},
	}
	for _, c := range cases {
		if got := c.p.ExpectedTree(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestPlanned_Check(t *testing.T) {
	t.Parallel()
	p := Planned{ContentHash: "planned"}
	if err := p.Check("planned", nil); err != nil {
		t.Errorf("the planned tree: %v", err)
	}
	if err := (Planned{}).Check("anything", nil); err != nil {
		t.Errorf("a tree the plan did not know: %v", err)
	}
	err := p.Check("other", nil)
	var de *Error
	if !errors.As(err, &de) || de.Summary != "The desired tree differs from the plan" || de.Attribute != "" {
		t.Fatalf("another tree: %#v", err)
	}
	for _, want := range []string{"planned", "other", "Nothing was written", "terraform plan"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := p.Check("planned", errors.New("bad file name")); err == nil || !strings.Contains(err.Error(), "bad file name") {
		t.Errorf("a tree that cannot be computed: %v", err)
	}
}

func TestPlanned_Applied(t *testing.T) {
	t.Parallel()
	if h, b := (Planned{}).Applied("tree"); h != "tree" || b != "tree" {
		t.Errorf("unknown at plan time: %q %q, want the delivered tree for both", h, b)
	}
	if h, b := (Planned{ContentHash: "tree", BaseTree: "base"}).Applied("tree"); h != "tree" || b != "base" {
		t.Errorf("known at plan time: %q %q, want the planned values", h, b)
	}
	if h, b := (Planned{ContentHash: "tree"}).Applied("tree"); h != "tree" || b != "tree" {
		t.Errorf("base unknown: %q %q", h, b)
	}
}

func TestRefreshed_Update(t *testing.T) {
	t.Parallel()
	ins := inspection(map[string]string{"a.yaml": "a\n"}, map[string]string{PromotedCommitFile: strings.Repeat("b", 40)})
	ins.HeadSHA = "head"
	f := &Refreshed{Inspection: ins}
	promoted := strings.Repeat("a", 40)

	got := f.Update(Recorded{ContentHash: ins.ManagedTree, CommitSHA: "applied"})
	if got.ContentHash != ins.ManagedTree || got.CommitSHA != "applied" || got.PromotedCommitID != nil {
		t.Errorf("no drift: %+v; commit_sha stays the applied commit, commits outside path do not move it", got)
	}
	if got := f.Update(Recorded{ContentHash: gitrepo.EmptyTreeID, CommitSHA: "applied"}); got.ContentHash != ins.ManagedTree || got.CommitSHA != "head" {
		t.Errorf("files changed under path: %+v, want content_hash read from the branch and commit_sha at its head", got)
	}
	if got := f.Update(Recorded{ContentHash: ins.ManagedTree}); got.CommitSHA != "head" {
		t.Errorf("no commit recorded (import): %+v", got)
	}
	if got := f.Update(Recorded{ContentHash: ins.ManagedTree, CommitSHA: "applied", PromotedCommitID: &promoted}); got.PromotedCommitID == nil || *got.PromotedCommitID != strings.Repeat("b", 40) {
		t.Errorf("the promoted-commit file is read back: %+v", got)
	}
	delete(ins.RootFiles, PromotedCommitFile)
	if got := f.Update(Recorded{ContentHash: ins.ManagedTree, CommitSHA: "applied", PromotedCommitID: &promoted}); got.PromotedCommitID != nil {
		t.Errorf("a removed promoted-commit file is null: %+v", got)
	}
}

func TestResource_Desired(t *testing.T) {
	t.Parallel()
	promoted := strings.Repeat("c", 40)
	r := Resource{Path: "clusters", PromotedCommitID: &promoted}
	d := r.Desired(map[string][]byte{"a.yaml": []byte("a")}, "", false)
	want := map[string][]byte{"clusters/" + OwnerMarker: MarkerContent("clusters"), PromotedCommitFile: []byte(promoted)}
	if d.Path != "clusters" || !reflect.DeepEqual(d.RootFiles, want) || d.DeleteRootFiles != nil || string(d.Files["a.yaml"]) != "a" {
		t.Errorf("%+v", d)
	}
	root := Resource{}.Desired(nil, "recorded", true)
	if root.RecordedTree != "recorded" || !reflect.DeepEqual(root.DeleteRootFiles, []string{PromotedCommitFile}) ||
		!reflect.DeepEqual(root.RootFiles, map[string][]byte{OwnerMarker: MarkerContent(".")}) {
		t.Errorf("a promoted commit no longer configured is removed: %+v", root)
	}
	if d := (Resource{}).Desired(nil, "", false); d.DeleteRootFiles != nil {
		t.Errorf("never promoted: %+v", d)
	}
}

func TestResource_Removal(t *testing.T) {
	t.Parallel()
	promoted := strings.Repeat("d", 40)
	d := Resource{Path: "clusters", PromotedCommitID: &promoted, Message: DefaultCommitMessage}.Removal()
	if len(d.Files) != 0 || d.Files == nil ||
		!reflect.DeepEqual(d.DeleteRootFiles, []string{"clusters/" + OwnerMarker, PromotedCommitFile}) {
		t.Errorf("%+v", d)
	}
	if d := (Resource{}).Removal(); !reflect.DeepEqual(d.DeleteRootFiles, []string{OwnerMarker}) {
		t.Errorf("%+v", d)
	}
}

func TestResource_PullRequestRules(t *testing.T) {
	t.Parallel()
	promoted, older := strings.Repeat("e", 40), strings.Repeat("f", 40)
	direct := Resource{RepoURL: "https://github.com/org/fleet.git", Branch: "dev", Path: "clusters", Message: "m", PromotedCommitID: &promoted,
		Author: gitrepo.Signature{Name: "CI", Email: "ci@example.com"}, MaxChanges: 5, MaxDeletePercent: 30}
	if direct.ReadBranch(githubpr.StateOpen) != "" {
		t.Error("direct mode reads the branch")
	}
	want := direct.Desired(nil, "", false)
	req := direct.DeliverRequest(want, "m", &promoted, "expected", false)
	if req.Apply.HeadBranch != "" || req.Apply.ExpectedManagedTree != "expected" || !req.Apply.NoCreate || !req.Apply.Orphan ||
		req.Apply.Author != direct.Author || req.Apply.Message != "m" || req.PromotedChanged || req.PromotedCommitID != promoted {
		t.Errorf("direct: %+v", req)
	}
	if !direct.DeliverRequest(want, "m", &older, "", false).PromotedChanged || !direct.DeliverRequest(want, "m", nil, "", false).PromotedChanged {
		t.Error("a new or moved promoted commit is a promotion")
	}
	if direct.CreateBranch = true; direct.DeliverRequest(want, "m", nil, "", false).Apply.NoCreate || !direct.DeliverRequest(want, "m", nil, "", true).Apply.NoCreate {
		t.Error("create_branch creates, except on destroy")
	}
	pr := direct.PlanRequest(want, "last", githubpr.StateOpen)
	if pr.ReadBranch != "" || pr.PullRequest || pr.LastTree != "last" || pr.MaxChanges != 5 || pr.MaxDeletePercent != 30 || !pr.CreateBranch {
		t.Errorf("plan request: %+v", pr)
	}

	prMode := direct
	prMode.PullRequest = &PullRequest{Title: "t", Labels: []string{"kalypso"}}
	if prMode.ReadBranch(githubpr.StateOpen) != "kalypso/dev" || prMode.ReadBranch(githubpr.StateMerged) != "" || prMode.ReadBranch("") != "" {
		t.Error("while its pull request is open, the resource reads the head branch")
	}
	req = prMode.DeliverRequest(want, "m", nil, "", false)
	if req.Apply.HeadBranch != "kalypso/dev" || req.Title != "t" || !reflect.DeepEqual(req.Labels, []string{"kalypso"}) {
		t.Errorf("pull-request mode: %+v", req)
	}
	prMode.PullRequest.HeadBranch = "prs/dev"
	if got := prMode.PlanRequest(want, "", githubpr.StateOpen); got.ReadBranch != "prs/dev" || !got.PullRequest {
		t.Errorf("plan request: %+v", got)
	}
}

func TestDesired_TreeID(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"a/b.yaml": []byte("b\n"), "c.yaml": []byte("c\n")}
	id, err := Desired{Files: files}.TreeID()
	if err != nil {
		t.Fatal(err)
	}
	built, err := gitrepo.NewTreeFromFiles(files)
	if err != nil || built.ID() != id {
		t.Fatalf("the tree gitrepo builds of the files is %v (%v), TreeID %s", built, err, id)
	}
	other, _ := gitrepo.NewTreeFromFiles(map[string][]byte{"x": []byte("x")})
	if got, _ := (Desired{Files: files, Built: other}).TreeID(); got != other.ID() {
		t.Error("the tree the plan built is the one delivered")
	}
}

func TestPullRequestAfter(t *testing.T) {
	t.Parallel()
	opened := &githubpr.PR{Number: 7, URL: "https://github.com/org/fleet/pull/7", State: githubpr.StateOpen}
	prior := PullRequestRecord{Number: 3, URL: "https://github.com/org/fleet/pull/3", State: githubpr.StateMerged}
	if got := PullRequestAfter(opened, nil, prior); got != (PullRequestRecord{7, opened.URL, githubpr.StateOpen}) {
		t.Errorf("opened or updated: %+v", got)
	}
	if got := PullRequestAfter(nil, nil, PullRequestRecord{}); got != (PullRequestRecord{State: PullRequestNone}) {
		t.Errorf("nothing proposed, no pull request before: %+v", got)
	}
	if got := PullRequestAfter(nil, nil, prior); got != prior {
		t.Errorf("nothing proposed: the prior pull request stays recorded, got %+v", got)
	}
	if got := PullRequestAfter(nil, nil, PullRequestRecord{Number: 3, URL: prior.URL}); got.State != PullRequestNone || got.Number != 3 {
		t.Errorf("a prior pull request of unknown state: %+v", got)
	}
	closed := &githubpr.PR{Number: 3, URL: prior.URL, State: githubpr.StateClosed}
	if got := PullRequestAfter(nil, closed, PullRequestRecord{Number: 3, URL: prior.URL, State: githubpr.StateOpen}); got != (PullRequestRecord{3, prior.URL, githubpr.StateClosed}) {
		t.Errorf("nothing proposed, the open proposal closed: %+v", got)
	}
}
