// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fleetPlan is the change set of a Kalypso tree with n changed files: cluster types of 50 deployment
// targets each, each target of workload "app-<k>" with reconciler.yaml, namespace.yaml and
// platform-config.yaml; every fifth file is deleted, every third updated (one line), the others created.
// Every file is listed, as with max_changes = n.
func fleetPlan(n int) *Plan {
	p := &Plan{Changes: map[string]Change{}, ByDirectory: map[string]Counts{}, ByTarget: map[string]Counts{}}
	files := []string{"namespace.yaml", "platform-config.yaml", "reconciler.yaml"}
	for i := 0; i < n; i++ {
		ct, target, file := fmt.Sprintf("ct-%03d", i/150), fmt.Sprintf("app-%d-t%d", (i/3)%50/5, (i/3)%50%5), files[i%3]
		path := ct + "/" + target + "/" + file
		content := fmt.Sprintf("kind: ConfigMap\nmetadata:\n  name: %s\n  namespace: dev-%s-%s\ndata:\n  REGION: west\n", target, ct, target)
		var c Change
		switch {
		case i%5 == 4:
			c = Change{Action: ActionDelete, Diff: content}
		case i%3 == 1:
			c = Change{Action: ActionUpdate, Diff: UnifiedDiff(path, content, strings.Replace(content, "west", "east", 1))}
		default:
			c = Change{Action: ActionCreate, Diff: content}
		}
		p.Changes[path] = c
		p.Counts.add(c.Action)
		d, t := p.ByDirectory[ct], p.ByTarget[target]
		d.add(c.Action)
		t.add(c.Action)
		p.ByDirectory[ct], p.ByTarget[target] = d, t
	}
	return p
}

// fleetWorkloads maps fleetPlan's targets to their workloads.
func fleetWorkloads() map[string]string {
	w := map[string]string{}
	for k := 0; k < 10; k++ {
		for t := 0; t < 5; t++ {
			w[fmt.Sprintf("app-%d-t%d", k, t)] = fmt.Sprintf("app-%d", k)
		}
	}
	return w
}

// TestMarkdownGolden: the summary of 10, 1,000 and 100,000 changed files against golden files in
// testdata/markdown (UPDATE_GOLDEN=1 rewrites them): counts per cluster type and per workload, deletions
// first, then the diffs; each at most MarkdownLimit bytes, the larger two cut at a whole file with a line
// that says what was cut.
func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, 1000, 100000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			got := MarkdownSummary{Title: "`envs/dev` on branch `main` of https://github.com/org/fleet", Plan: fleetPlan(n), Workloads: fleetWorkloads()}.Markdown()
			golden := filepath.Join("testdata", "markdown", fmt.Sprintf("%d.md", n))
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v; run UPDATE_GOLDEN=1 go test ./internal/delivery -run TestMarkdownGolden", err)
			}
			if got != string(want) {
				t.Errorf("the summary of %d files differs from %s; run UPDATE_GOLDEN=1 go test ./internal/delivery -run TestMarkdownGolden and review the diff", n, golden)
			}
			if len(got) > MarkdownLimit {
				t.Errorf("the summary of %d files is %d bytes, more than %d", n, len(got), MarkdownLimit)
			}
			cut := strings.Contains(got, "_Cut to stay under 60000 characters:")
			if cut != (n > 10) {
				t.Errorf("summary of %d files: cut = %v", n, cut)
			}
			// Deletions come before the other changes, and the counts before both.
			del, chg, tbl := strings.Index(got, "#### Deletions"), strings.Index(got, "#### Changes"), strings.Index(got, "| Workload |")
			if tbl < 0 || del < tbl || (chg >= 0 && chg < del) {
				t.Errorf("summary of %d files: tables at %d, deletions at %d, changes at %d", n, tbl, del, chg)
			}
		})
	}
}

// The 10-file summary, read as a reviewer reads it.
func TestMarkdownTenFiles(t *testing.T) {
	t.Parallel()
	got := MarkdownSummary{Plan: fleetPlan(10), Workloads: fleetWorkloads()}.Markdown()
	for _, want := range []string{
		"### 6 to create, 2 to update, 2 to delete\n",
		"| Cluster type | Create | Update | Delete |\n|---|--:|--:|--:|\n| `ct-000` | 6 | 2 | 2 |\n",
		"| Workload | Create | Update | Delete |\n|---|--:|--:|--:|\n| `app-0` | 6 | 2 | 2 |\n",
		"#### Deletions (2)\n\n<details><summary><code>ct-000/app-0-t1/platform-config.yaml</code> (delete)</summary>\n\n```\nkind: ConfigMap\n",
		"<details><summary><code>ct-000/app-0-t0/platform-config.yaml</code> (update)</summary>\n\n```diff\n@@ -3,4 +3,4 @@\n",
		"-  REGION: west\n+  REGION: east\n```\n</details>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
}

// The bound holds for any limit, the cut line names what is missing, and content cannot end its block.
func TestMarkdownBoundAndFences(t *testing.T) {
	t.Parallel()
	p := fleetPlan(1000)
	for _, limit := range []int{400, 2000, 10000, 60000} {
		got := MarkdownSummary{Plan: p, Limit: limit}.Markdown()
		if len(got) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(got))
		}
		if m := regexp.MustCompile(`_Cut to stay under \d+ characters: (.*) not shown\.`).FindStringSubmatch(got); m == nil || !strings.Contains(m[1], "files' content") {
			t.Errorf("limit %d: the cut line does not say which files are cut:\n%s", limit, got[max(0, len(got)-400):])
		}
	}
	hostile := &Plan{Counts: Counts{Create: 1}, Changes: map[string]Change{"ct/<img src=x>/a.yaml": {Action: ActionCreate, Diff: "a: |\n  ```\n  </details>\n  ````\n"}}}
	got := MarkdownSummary{Plan: hostile}.Markdown()
	if !strings.Contains(got, "<code>ct/&lt;img src=x&gt;/a.yaml</code>") || !strings.Contains(got, "\n`````\na: |\n") || !strings.HasSuffix(got, "  ````\n`````\n</details>\n") {
		t.Errorf("hostile path or content not contained:\n%s", got)
	}
	if got := (MarkdownSummary{Plan: &Plan{}}).Markdown(); got != "### 0 to create, 0 to update, 0 to delete\n\nNo file changes.\n" {
		t.Errorf("empty change set: %q", got)
	}
}

// The pull request's body is the summary; a move keeps the generated paragraph that names the old path.
func TestProposalBody(t *testing.T) {
	t.Parallel()
	generated := "The kalypso_gitops_commit moves from `a` to `b` on `main`: merging this pull request writes the new path and removes 2 files from the old one.\n\n| cluster type |"
	if got := proposalBody(generated, NoChangeMarkdown, false); got != NoChangeMarkdown {
		t.Errorf("update: %q", got)
	}
	if got, want := proposalBody(generated, "### summary\n", true), "The kalypso_gitops_commit moves from `a` to `b` on `main`: merging this pull request writes the new path and removes 2 files from the old one.\n\n### summary\n"; got != want {
		t.Errorf("move: %q, want %q", got, want)
	}
}
