// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

// The expected answers of these tests come from git itself: `git check-ref-format --branch` for ref
// names and `git diff --no-index` for unified diffs.

func gitBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not found; it provides the expected results")
	}
	return p
}

func TestValidateBranchName_AgreesWithGit(t *testing.T) {
	t.Parallel()
	git := gitBinary(t)
	names := []string{
		"main", "dev", "envs/dev", "feature/x-1", "kalypso/main", "release-1.2", "a_b",
		"a b", "dev.lock", "envs/dev.lock", ".hidden", "envs/.hidden", "a..b", "a//b", "/a", "a/", "a.", "-a",
		"a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a@{b", "a\tb", "a\x7fb", "",
	}
	for _, n := range names {
		err := ValidateBranchName(n)
		gitOK := exec.Command(git, "check-ref-format", "--branch", n).Run() == nil
		if n == "" {
			gitOK = false
		}
		if (err == nil) != gitOK {
			t.Errorf("%q: ValidateBranchName error %v, git check-ref-format --branch accepts: %v", n, err, gitOK)
		}
	}
	// Git accepts these; the provider refuses them (asciiOnly), and says where the character is.
	for _, c := range []struct{ name, want string }{
		{"dév", `contains the character U+00E9 at byte 1`},
		{"de\u0301v", `contains the character U+0301 at byte 2`},
		{"dev\u200b", `"dev\u200b" contains the character U+200B at byte 3`},
		{"\u202emain", `contains the character U+202E at byte 0`},
		{"ma\xffin", `contains the byte 0xff, which is not UTF-8, at byte 2`},
		{"ünïcode", `U+00FC`},
	} {
		gitOK := exec.Command(git, "check-ref-format", "--branch", c.name).Run() == nil
		if err := ValidateBranchName(c.name); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+q (git accepts it: %v): ValidateBranchName error %v, want it to contain %q", c.name, gitOK, err, c.want)
		}
	}
	// `--branch` expands "@" to the current branch instead of checking it; `git branch @` refuses it.
	if ValidateBranchName("@") == nil {
		t.Error(`"@" accepted`)
	}
}

var hunkContext = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`)

func gitDiff(t *testing.T, name, before, after string) string {
	t.Helper()
	git := gitBinary(t)
	dir := t.TempDir()
	for _, side := range []struct{ dir, content string }{{"a", before}, {"b", after}} {
		p := filepath.Join(dir, side.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(side.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(git, "-c", "core.quotepath=false", "diff", "--no-index", "--no-color", "--no-prefix", "-U3", "a/"+name, "b/"+name)
	cmd.Dir = dir
	out, _ := cmd.Output() // exit 1 means "differences found"
	// Drop the "diff --git" and "index" lines; keep from the --- header on.
	s := string(out)
	// git appends a "function context" to hunk headers (the last line before the hunk that starts with a
	// letter); the change set does not, so that part is dropped.
	return hunkContext.ReplaceAllString(s[strings.Index(s, "--- "):], "$1")
}

func TestUnifiedDiff_AgreesWithGit(t *testing.T) {
	t.Parallel()
	long := func(n int, edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if e, ok := edit[i]; ok {
				b.WriteString(e)
				continue
			}
			b.WriteString("line " + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "\n")
		}
		return b.String()
	}
	cases := []struct{ name, before, after string }{
		{"one-line", "replicas: 1\n", "replicas: 2\n"},
		{"middle", long(20, nil), long(20, map[int]string{10: "changed\n"})},
		{"two-hunks", long(40, nil), long(40, map[int]string{3: "first\n", 35: "second\n"})},
		{"close-hunks-merge", long(30, nil), long(30, map[int]string{10: "first\n", 16: "second\n"})},
		{"insert-at-end", long(8, nil), long(8, nil) + "added: true\n"},
		{"delete-at-start", long(8, nil), strings.SplitN(long(8, nil), "\n", 2)[1]},
		{"no-newline-at-end", "a: 1\nb: 2", "a: 1\nb: 3"},
		{"from-empty", "", "kind: Namespace\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := UnifiedDiff("clusters/drone/"+c.name+".yaml", c.before, c.after)
			want := gitDiff(t, "clusters/drone/"+c.name+".yaml", c.before, c.after)
			if got != want {
				t.Errorf("diff differs from git's:\n--- got\n%s\n--- git\n%s", got, want)
			}
		})
	}
	if d := UnifiedDiff("x", "same\n", "same\n"); d != "" {
		t.Errorf("equal contents give %q", d)
	}
}

func inspection(files map[string]string, root map[string]string) *gitrepo.Inspection {
	ins := &gitrepo.Inspection{BranchExists: true, Managed: map[string]gitrepo.Entry{}, RootFiles: map[string][]byte{}}
	for p, c := range files {
		ins.Managed[p] = gitrepo.Entry{Hash: gitrepo.BlobID([]byte(c)), Mode: filemode.Regular}
	}
	ins.ManagedTree, _ = Desired{Files: fixtures.Bytes(files)}.TreeID()
	for p, c := range root {
		ins.RootFiles[p] = []byte(c)
	}
	return ins
}

func reader(files map[string]string) BlobReader {
	return func(ids []string) (map[string][]byte, error) {
		out := map[string][]byte{}
		for _, c := range files {
			id := gitrepo.BlobID([]byte(c))
			for _, want := range ids {
				if id == want {
					out[id] = []byte(c)
				}
			}
		}
		return out, nil
	}
}

func TestCompute_ChangeSet(t *testing.T) {
	t.Parallel()
	current := map[string]string{
		"drone/README.md": "drone\n", "drone/dev/deploy.yaml": "replicas: 1\n", "large/README.md": "large\n", "old/x.yaml": "x\n",
	}
	want := map[string]string{
		"drone/README.md": "drone\n", "drone/dev/deploy.yaml": "replicas: 2\n", "large/README.md": "large\n", "new/y.yaml": "y: 1\n",
	}
	d := Desired{Path: "clusters", Files: fixtures.Bytes(want), RootFiles: map[string][]byte{PromotedCommitFile: []byte(strings.Repeat("a", 40))}}
	p, err := Compute(inspection(current, nil), d, Options{}, reader(current))
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := map[string]Change{
		"clusters/drone/dev/deploy.yaml":      {Action: ActionUpdate, Diff: "--- a/clusters/drone/dev/deploy.yaml\n+++ b/clusters/drone/dev/deploy.yaml\n@@ -1 +1 @@\n-replicas: 1\n+replicas: 2\n"},
		"clusters/new/y.yaml":                 {Action: ActionCreate, Diff: "y: 1\n"},
		"clusters/old/x.yaml":                 {Action: ActionDelete, Diff: "x\n"}, // a delete shows what leaves
		".github/tracking/Promoted_Commit_Id": {Action: ActionCreate, Diff: strings.Repeat("a", 40)},
	}
	if !reflect.DeepEqual(p.Changes, wantChanges) {
		t.Errorf("changes:\n got %#v\nwant %#v", p.Changes, wantChanges)
	}
	if p.Counts != (Counts{Create: 2, Update: 1, Delete: 1}) || p.Omitted != 0 || p.CurrentFiles != 4 || p.Deleted() != 1 {
		t.Errorf("counts %+v omitted %d current %d deleted %d", p.Counts, p.Omitted, p.CurrentFiles, p.Deleted())
	}
	wantBy := map[string]Counts{"drone": {Update: 1}, "new": {Create: 1}, "old": {Delete: 1}}
	if !reflect.DeepEqual(p.ByDirectory, wantBy) {
		t.Errorf("by directory %v, want %v", p.ByDirectory, wantBy)
	}
	// The desired tree id is the one the branch reads once delivered.
	if got := inspection(want, nil).ManagedTree; p.DesiredTree != got {
		t.Errorf("desired tree %s, delivered tree reads %s", p.DesiredTree, got)
	}
}

func TestCompute_NothingChanges(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a/b.yaml": "b\n"}
	p, err := Compute(inspection(files, map[string]string{MarkerPath("."): string(MarkerContent("."))}),
		Desired{Path: "", Files: fixtures.Bytes(files), RootFiles: map[string][]byte{MarkerPath(""): MarkerContent(".")}}, Options{},
		func([]string) (map[string][]byte, error) { return nil, errors.New("no blob may be read") })
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() || len(p.Changes) != 0 || p.DesiredTree != p.BaseTree {
		t.Errorf("plan %+v", p)
	}
}

func TestCompute_CapAndCut(t *testing.T) {
	t.Parallel()
	want := map[string]string{}
	for i := 0; i < 30; i++ {
		want["ct/"+string(rune('a'+i%26))+strings.Repeat("z", i/26)+".yaml"] = strings.Repeat("k: v\n", 100)
	}
	p, err := Compute(inspection(nil, nil), Desired{Files: fixtures.Bytes(want)}, Options{MaxChanges: 10, MaxDiffBytes: 64}, reader(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 10 || p.Omitted != 20 || p.Counts.Create != 30 {
		t.Fatalf("listed %d, omitted %d, counts %+v", len(p.Changes), p.Omitted, p.Counts)
	}
	c := p.Changes["ct/a.yaml"]
	if !strings.HasPrefix(c.Diff, "k: v\nk: v\n") || !strings.Contains(c.Diff, "[... cut: 60 of 500 bytes shown; the apply writes the whole file]") {
		t.Errorf("cut content %q", c.Diff)
	}
	// A delete's diff is the removed content, cut the same way.
	gone, err := Compute(inspection(want, nil), Desired{Files: map[string][]byte{}}, Options{MaxChanges: 10, MaxDiffBytes: 64}, reader(want))
	if err != nil {
		t.Fatal(err)
	}
	if c := gone.Changes["ct/a.yaml"]; c.Action != ActionDelete || !strings.HasPrefix(c.Diff, "k: v\nk: v\n") ||
		!strings.Contains(c.Diff, "[... cut: 60 of 500 bytes shown; the apply deletes the whole file]") {
		t.Errorf("cut deletion %+v", c)
	}
}

// A root file's deletion shows the content the inspection read.
func TestCompute_RootFileDeletionShowsContent(t *testing.T) {
	t.Parallel()
	promoted := strings.Repeat("b", 40)
	p, err := Compute(inspection(nil, map[string]string{PromotedCommitFile: promoted}), Desired{Files: map[string][]byte{}, DeleteRootFiles: []string{PromotedCommitFile}}, Options{}, reader(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Changes[PromotedCommitFile]; c.Action != ActionDelete || c.Diff != promoted {
		t.Errorf("%+v", p.Changes)
	}
}

func TestCheckMassDeletion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		current, deleted, max int
		refused               bool
	}{
		{18, 15, 50, true}, {18, 9, 50, false}, {18, 10, 50, true}, {9, 9, 50, false}, {10, 6, 50, true},
		{18, 15, 100, false}, {18, 15, 90, false}, {100, 1, 0, true}, {0, 0, 50, false},
	}
	for _, c := range cases {
		err := CheckMassDeletion(c.current, c.deleted, c.max)
		if (err != nil) != c.refused {
			t.Errorf("%+v: %v", c, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "deletes "+strconv.Itoa(c.deleted)+" of the "+strconv.Itoa(c.current)+" files") || !strings.Contains(err.Error(), "environment name")) {
			t.Errorf("message lacks the counts or the likely cause: %v", err)
		}
	}
}

func TestCheckOverlap(t *testing.T) {
	t.Parallel()
	if err := CheckOverlap("large", nil); err != nil {
		t.Errorf("no markers: %v", err)
	}
	err := CheckOverlap("large", []string{"."})
	if err == nil || !strings.Contains(err.Error(), `path "large" overlaps the path "."`) {
		t.Errorf("got %v", err)
	}
}

func TestMissingBranch(t *testing.T) {
	t.Parallel()
	err := MissingBranch("devv", []string{"dev", "main"})
	if !strings.Contains(err.Error(), `branch "devv" does not exist (the branches are "dev", "main")`) || !strings.Contains(err.Error(), "create_branch = true") {
		t.Errorf("got %v", err)
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	if HeadBranch("dev", "") != "kalypso/dev" || HeadBranch("dev", "prs/dev") != "prs/dev" {
		t.Error("head branch")
	}
	if got := Labels([]string{"kalypso"}, true); !reflect.DeepEqual(got, []string{"kalypso", "promoted"}) {
		t.Errorf("labels %v", got)
	}
	if got := Labels([]string{"promoted"}, true); !reflect.DeepEqual(got, []string{"promoted"}) {
		t.Errorf("labels %v", got)
	}
	if got := Labels(nil, false); len(got) != 0 {
		t.Errorf("labels %v", got)
	}
	for _, ok := range []string{strings.Repeat("0", 40), "0123456789abcdef0123456789abcdef01234567", strings.Repeat("f", 64)} {
		if err := ValidatePromotedCommitID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "abc123", "0123456789ABCDEF0123456789ABCDEF01234567", "main", strings.Repeat("0", 41)} {
		if err := ValidatePromotedCommitID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if MarkerPath("") != OwnerMarker || MarkerPath(".") != OwnerMarker || MarkerPath("clusters") != "clusters/"+OwnerMarker {
		t.Error("marker path")
	}
}

func TestValidatePullRequestURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://github.com/org/fleet.git", "https://ghe.example.com/org/fleet", "git@github.com:org/fleet.git", "ssh://git@github.com/org/fleet.git"} {
		if err := ValidatePullRequestURL(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"file:///tmp/repos/fleet.git", "/tmp/repos/fleet.git", "https://github.com/fleet.git", "https://github.com/a/b/c", "git@github.com:fleet.git"} {
		if err := ValidatePullRequestURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestID_RoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct{ id, url, path, branch string }{
		{"https://github.com/org/fleet.git//clusters?ref=main", "https://github.com/org/fleet.git", "clusters", "main"},
		{"https://github.com/org/fleet.git//.?ref=dev", "https://github.com/org/fleet.git", ".", "dev"},
		{"https://github.com/org/fleet.git?ref=dev", "https://github.com/org/fleet.git", ".", "dev"},
		{"file:///tmp/fleet.git//a/b?ref=feature/x", "file:///tmp/fleet.git", "a/b", "feature/x"},
		{"git@github.com:org/fleet.git//gitops?ref=main", "git@github.com:org/fleet.git", "gitops", "main"},
	}
	for _, c := range cases {
		u, p, b, err := ParseID(c.id)
		if err != nil || u != c.url || p != c.path || b != c.branch {
			t.Errorf("parse(%q) = %q %q %q %v", c.id, u, p, b, err)
			continue
		}
		if c.path != "." || strings.Contains(c.id, "//.") {
			if got := ID(u, p, b); got != c.id {
				t.Errorf("render = %q, want %q", got, c.id)
			}
		}
	}
	for _, bad := range []string{"https://github.com/org/fleet.git//clusters", "https://x:y@github.com/o/r.git?ref=main", "file:///r.git//../x?ref=main", "?ref=main"} {
		if _, _, _, err := ParseID(bad); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

func TestCheckFileNames(t *testing.T) {
	t.Parallel()
	got := CheckFileNames([]string{"large", "large-x/a.yaml", "large/README.md", ".hidden", "a/../../x", "ok/a.yaml"})
	want := []FileProblem{
		{Name: ".hidden", Summary: "Dot-entry at the root of path"},
		{Name: "a/../../x", Summary: "Invalid file name"},
		{Name: "large", Summary: "File and directory of the same name"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Summary != want[i].Summary {
			t.Errorf("problem %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestErrorHint_PermissionIsNotTheNetwork(t *testing.T) {
	t.Parallel()
	hint, _ := ErrorHint(fmt.Errorf("open /srv/fleet.git/objects: %w", os.ErrPermission))
	if strings.Contains(hint, "network") || !strings.Contains(hint, "permissions") {
		t.Errorf("hint %q", hint)
	}
	if hint, attr := ErrorHint(errors.New("dial tcp: connection refused")); !strings.Contains(hint, "network") || attr != "repository_url" {
		t.Errorf("hint %q attr %q", hint, attr)
	}
}

func TestCheckSettings(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	got := CheckSettings(Settings{
		RepoURL: str("file:///srv/fleet.git"), PullRequest: true, Branch: str("a b"), HeadBranch: str("kalypso/dev.lock"),
		PromotedCommitID: str(""), Path: str("../x"),
	})
	want := []string{"repository_url", "branch", "pull_request.head_branch", "promoted_commit_id", "path"}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, attr := range want {
		if got[i].Attribute != attr {
			t.Errorf("problem %d is about %s, want %s: %+v", i, got[i].Attribute, attr, got[i])
		}
	}
	if got := CheckSettings(Settings{RepoURL: str("https://github.com/org/fleet.git"), PullRequest: true, Branch: str("dev"), Path: str("clusters")}); len(got) != 0 {
		t.Errorf("valid settings refused: %+v", got)
	}
	if got := CheckSettings(Settings{RepoURL: str("https://user:pw@example.com/org/fleet.git")}); len(got) != 1 || strings.Contains(got[0].Detail, "pw@") {
		t.Errorf("credentials: %+v", got)
	}
}

// Without max_changes the change set lists the first 100 files by path and counts all of them: the
// state keeps what is listed, and every later plan carries it (DefaultMaxChanges).
func TestCompute_DefaultListsTheFirstHundred(t *testing.T) {
	t.Parallel()
	want := map[string][]byte{}
	for i := 0; i < 250; i++ {
		want[fmt.Sprintf("ct/f%03d.yaml", i)] = []byte("k: v\n")
	}
	p, err := Compute(inspection(nil, nil), Desired{Files: want}, Options{}, reader(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 100 || p.Omitted != 150 || p.Counts.Create != 250 {
		t.Fatalf("listed %d, omitted %d, counts %+v", len(p.Changes), p.Omitted, p.Counts)
	}
	if _, ok := p.Changes["ct/f099.yaml"]; !ok {
		t.Error("ct/f099.yaml, the 100th by path, is not listed")
	}
	if _, ok := p.Changes["ct/f100.yaml"]; ok {
		t.Error("ct/f100.yaml, the 101st by path, is listed")
	}
	if got := p.Counts.String(p.Omitted); got != "250 to create, 0 to update, 0 to delete (150 not listed in changes)" {
		t.Errorf("summary %q", got)
	}
}
