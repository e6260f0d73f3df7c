// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"context"
	"fmt"
	"html"
	"sort"
	"strings"
)

// MarkdownLimit bounds a Markdown summary: GitHub refuses a comment or a pull-request body past 65,535
// characters, and a tool that posts the summary (tfcmt, Atlantis) adds its own lines around it.
const MarkdownLimit = 60000

// NoChangeMarkdown is the summary of an empty change set.
const NoChangeMarkdown = "### 0 to create, 0 to update, 0 to delete\n\nNo file changes.\n"

// MarkdownSummary is what a Markdown summary of a change set describes.
type MarkdownSummary struct {
	// Title names the change, for example "`envs/dev` on branch `main` of https://github.com/org/fleet".
	Title string
	// Plan is the change set; its Changes are the files whose content the summary shows.
	Plan *Plan
	// Workloads maps a deployment target (the second folder of a Kalypso tree) to its workload, to count
	// the changes per workload (render mode). Without it, the summary counts per folder.
	Workloads map[string]string
	// Limit bounds the summary in bytes, so in characters too; zero is MarkdownLimit.
	Limit int
}

// Markdown is a summary of the change set for a pull-request comment or body: the counts, per cluster type
// and per workload, then the deletions with their removed content, then the other changes with their
// diffs, in path order. It never exceeds the limit: what does not fit is cut at a whole file, and its last
// line says what was cut. A file's content is fenced with more backticks than it holds in a row, and
// paths are escaped, so no content can close the block or inject HTML.
func (s MarkdownSummary) Markdown() string {
	limit := s.Limit
	if limit <= 0 {
		limit = MarkdownLimit
	}
	p := s.Plan
	if p == nil {
		p = &Plan{}
	}
	if p.Empty() {
		// The same text for every resource: the summary a stored (applied) change set reads as.
		return NoChangeMarkdown
	}
	b := &boundedWriter{limit: limit - cutNoteReserve}
	b.line(fmt.Sprintf("### %s", p.Counts.String(p.Omitted)))
	if s.Title != "" {
		b.line("")
		b.line(s.Title)
	}
	tables := []struct {
		heading string
		rows    map[string]Counts
	}{{"Cluster type", p.ByDirectory}, {"Workload", s.byWorkload()}}
	for _, t := range tables {
		if len(t.rows) == 0 {
			continue
		}
		b.line("")
		b.line(fmt.Sprintf("| %s | Create | Update | Delete |", t.heading))
		b.line("|---|--:|--:|--:|")
		for _, name := range sortedKeys(t.rows) {
			c := t.rows[name]
			if !b.line(fmt.Sprintf("| `%s` | %d | %d | %d |", tableCell(name), c.Create, c.Update, c.Delete)) {
				b.cutRows++
			}
		}
	}
	deletes, others := p.listedByAction()
	for _, section := range []struct {
		heading string
		paths   []string
	}{{"Deletions", deletes}, {"Changes", others}} {
		if len(section.paths) == 0 {
			continue
		}
		b.line("")
		b.line(fmt.Sprintf("#### %s (%d)", section.heading, len(section.paths)))
		for _, path := range section.paths {
			if !b.block("\n" + fileBlock(path, p.Changes[path])) {
				b.cutFiles++
			}
		}
	}
	if p.Omitted > 0 {
		b.line("")
		b.line(fmt.Sprintf("_%d more changed files are counted above but not listed (`max_changes`); `terraform show -json` of the plan has the listed ones._", p.Omitted))
	}
	return b.String()
}

// planSummary is the summary step: the Markdown summary of the planned change set, titled with the
// location it changes.
func planSummary(_ context.Context, p *Planning) error {
	if p.Changes == nil {
		return nil
	}
	r := p.Config.Resource
	dir := r.Path
	if dir == "" {
		dir = "."
	}
	title := fmt.Sprintf("`%s` on branch `%s` of %s", dir, r.Branch, r.RepoURL)
	if r.PullRequest != nil {
		title += " (pull request)"
	}
	p.Markdown = MarkdownSummary{Title: title, Plan: p.Changes, Workloads: p.Rendered.Workloads}.Markdown()
	return nil
}

// cutNoteReserve is the room kept for the line that says what was cut.
const cutNoteReserve = 300

// boundedWriter writes lines until the next one would pass limit; afterwards it counts what it left out.
type boundedWriter struct {
	sb       strings.Builder
	limit    int
	full     bool
	cutRows  int
	cutFiles int
}

// line writes s and a line break when they fit (and nothing was cut before), and reports whether it did.
func (w *boundedWriter) line(s string) bool { return w.block(s + "\n") }

// block writes s whole when it fits, and reports whether it did. Once something did not fit, nothing is
// written: the summary is cut at one place, and its last line says what is missing.
func (w *boundedWriter) block(s string) bool {
	if w.full || w.sb.Len()+len(s) > w.limit {
		w.full = true
		return false
	}
	w.sb.WriteString(s)
	return true
}

func (w *boundedWriter) String() string {
	if !w.full {
		return w.sb.String()
	}
	var what []string
	if w.cutRows > 0 {
		what = append(what, fmt.Sprintf("%d table rows", w.cutRows))
	}
	if w.cutFiles > 0 {
		what = append(what, fmt.Sprintf("%d files' content", w.cutFiles))
	}
	if len(what) == 0 {
		what = append(what, "the last lines")
	}
	return w.sb.String() + fmt.Sprintf("\n_Cut to stay under %d characters: %s not shown. `terraform show -json` of the plan has every listed change._\n",
		w.limit+cutNoteReserve, strings.Join(what, " and "))
}

// byWorkload counts the changes per workload (or per folder without Workloads) from ByTarget.
func (s MarkdownSummary) byWorkload() map[string]Counts {
	if s.Plan == nil || len(s.Plan.ByTarget) == 0 {
		return nil
	}
	out := map[string]Counts{}
	for target, c := range s.Plan.ByTarget {
		name := target
		if w, ok := s.Workloads[target]; ok {
			name = w
		}
		sum := out[name]
		sum.Create, sum.Update, sum.Delete = sum.Create+c.Create, sum.Update+c.Update, sum.Delete+c.Delete
		out[name] = sum
	}
	return out
}

// listedByAction splits the listed changes into deletions and the others, each in path order.
func (p *Plan) listedByAction() (deletes, others []string) {
	for path, c := range p.Changes {
		if c.Action == ActionDelete {
			deletes = append(deletes, path)
		} else {
			others = append(others, path)
		}
	}
	sort.Strings(deletes)
	sort.Strings(others)
	return deletes, others
}

// fileBlock is one file of the summary: a collapsed block whose summary is the path and the action, and
// whose body is the diff (an update), the content (a create) or the removed content (a delete).
func fileBlock(path string, c Change) string {
	lang := "diff"
	if c.Action != ActionUpdate {
		lang = ""
	}
	body := c.Diff
	if c.Action == ActionUpdate {
		// The block's summary names the file: the diff's ---/+++ header would say it twice.
		if rest, ok := strings.CutPrefix(body, "--- a/"); ok {
			if _, after, ok := strings.Cut(rest, "\n+++ b/"); ok {
				if _, hunks, ok := strings.Cut(after, "\n"); ok {
					body = hunks
				}
			}
		}
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return fmt.Sprintf("<details><summary><code>%s</code> (%s)</summary>\n\n%s%s\n%s%s\n</details>\n",
		html.EscapeString(path), c.Action, fence, lang, body, fence)
}

// longestRun is the length of the longest run of r in s.
func longestRun(s string, r byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == r {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// tableCell escapes what would end a table cell or a code span.
func tableCell(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s)
}

func sortedKeys(m map[string]Counts) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
