// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// cutReserve is the room kept for the line that says what was cut.
const cutReserve = 400

// Markdown is the status for a pull-request comment or a job summary, at most limit bytes (MarkdownLimit
// when limit <= 0; a byte limit bounds the characters too). The environments and the metrics always come
// first; then drift, the comparisons and the rows, line by line, until the next line would not fit, and a
// last line says how many of each were cut.
func (s *Status) Markdown(limit int) string {
	if limit <= 0 {
		limit = MarkdownLimit
	}
	w := &boundedWriter{limit: limit - cutReserve}
	w.head("# Fleet status\n\n")
	w.head(fmt.Sprintf("%s, %s, %s, %d drifting; measured at %s.\n\n", plural(len(s.Environments), "environment"),
		plural(len(s.Rows), "deployment target"), plural(len(s.Clusters), "cluster"), s.Drift, s.Now.UTC().Format(time.RFC3339)))
	w.head("| Environment | Branch | Head | Control-plane commit | State | Clusters |\n|---|---|---|---|---|---|\n")
	for _, e := range s.Environments {
		w.head(fmt.Sprintf("| %s | `%s` | `%s` | `%s` | %s | %s |\n", cell(e.Name), codeCell(e.Branch), codeCell(short(e.Head)), codeCell(short(e.Promoted)), e.State, cell(e.Summary)))
	}
	if len(s.Metrics) > 0 {
		w.head("\n## Delivery metrics\n\n| Environment | Window | Deployments | Per day | Lead time (median) | Change failure rate | Time to restore (median) | DORA keys |\n|---|---|---|---|---|---|---|---|\n")
		for _, m := range s.Metrics {
			lead, restore := "n/a", "n/a"
			if m.LeadTimes > 0 {
				lead = fmt.Sprintf("%s (%d)", m.LeadTimeMedian, m.LeadTimes)
			}
			if m.Restores > 0 {
				restore = fmt.Sprintf("%s (%d)", m.TimeToRestoreMedian, m.Restores)
			}
			w.head(fmt.Sprintf("| %s | %s – %s | %d | %.2f | %s | %.0f%% (%d) | %s | %s |\n", cell(m.Environment),
				m.WindowStart.UTC().Format("2006-01-02"), m.WindowEnd.UTC().Format("2006-01-02"), m.Deployments, m.DeploymentsPerDay,
				lead, 100*m.ChangeFailureRate, m.Failed, restore, strings.Join(m.Keys, ", ")))
		}
	}

	drift := w.section("drifting clusters")
	if s.Drift > 0 {
		w.line(drift, fmt.Sprintf("\n## Drift\n\n%s a commit older than their cluster type folder's newest change:\n\n", counted(s.Drift, "cluster reports", "clusters report")), 0)
		for _, c := range s.Clusters {
			if c.Drift && !w.skip(drift) {
				w.line(drift, fmt.Sprintf("- %s / %s / %s: reports `%s` (%s), the folder is at `%s`\n",
					cell(c.Environment), cell(c.ClusterType), cell(c.Name), codeCell(short(c.Commit)), c.State, codeCell(short(c.FolderCommit))), 1)
			}
		}
	}
	diffs := w.section("differing deployment targets")
	for _, d := range s.Comparisons {
		w.line(diffs, fmt.Sprintf("\n## %s vs %s\n\n%s, %s.\n\n", cell(d.From), cell(d.To),
			counted(len(d.Differing), "deployment target differs", "deployment targets differ"), counted(d.Same, "is alike", "are alike")), 0)
		for _, f := range d.Differing {
			if w.skip(diffs) {
				continue
			}
			var files []string
			for _, fd := range f.Files {
				files = append(files, fmt.Sprintf("`%s` %s", codeCell(fd.Path), fd.Change))
			}
			where := ""
			switch f.Only {
			case "from":
				where = " (only in " + cell(d.From) + ")"
			case "to":
				where = " (only in " + cell(d.To) + ")"
			}
			ver := ""
			if f.FromVersion != f.ToVersion {
				ver = fmt.Sprintf("; version %s → %s", cell(orNone(f.FromVersion)), cell(orNone(f.ToVersion)))
			}
			w.line(diffs, fmt.Sprintf("- %s/%s%s: %s%s\n", cell(f.ClusterType), cell(f.DeploymentTarget), where, strings.Join(files, ", "), ver), 1)
		}
	}
	rows := w.section("rows")
	if len(s.Rows) > 0 {
		w.line(rows, "\n## Deployment targets\n\n| Environment | Cluster type | Deployment target | Version | Desired commit | Control-plane commit | State | Clusters | Changed |\n|---|---|---|---|---|---|---|---|---|\n", 0)
		for _, r := range s.Rows {
			if w.skip(rows) {
				continue
			}
			changed := "before the history read"
			if !r.ChangedAt.IsZero() {
				changed = fmt.Sprintf("%s (%s ago)", r.ChangedAt.UTC().Format(time.RFC3339), r.Age.Round(time.Minute))
			}
			w.line(rows, fmt.Sprintf("| %s | %s | %s | %s | `%s` | `%s` | %s | %d/%d | %s |\n", cell(r.Environment), cell(r.ClusterType), cell(r.DeploymentTarget),
				cell(orNone(r.Version)), codeCell(short(r.DesiredCommit)), codeCell(short(r.Promoted)), r.State, r.Succeeded, r.Clusters, changed), 1)
		}
	}
	return w.finish()
}

// boundedWriter writes lines while they fit and counts, per section, the items it had to leave out.
type boundedWriter struct {
	b     strings.Builder
	limit int
	full  bool
	secs  []*section
}

type section struct {
	name       string
	cut, total int
}

func (w *boundedWriter) section(name string) *section {
	s := &section{name: name}
	w.secs = append(w.secs, s)
	return s
}

// head writes a line of the part that always comes first; it is cut like the others only past the limit.
func (w *boundedWriter) head(s string) { w.line(&section{}, s, 0) }

// line writes s, counting items (1 for a list item, 0 for a heading) in sec; once a line does not fit,
// nothing more is written.
func (w *boundedWriter) line(sec *section, s string, items int) {
	sec.total += items
	if !w.full && w.b.Len()+len(s) > w.limit {
		w.full = true
	}
	if w.full {
		sec.cut += items
		return
	}
	w.b.WriteString(s)
}

// skip counts an item of sec as cut, without formatting it, once the summary is full.
func (w *boundedWriter) skip(sec *section) bool {
	if w.full {
		sec.total++
		sec.cut++
	}
	return w.full
}

func (w *boundedWriter) finish() string {
	var cut []string
	for _, s := range w.secs {
		if s.cut > 0 {
			cut = append(cut, fmt.Sprintf("%d of %d %s", s.cut, s.total, s.name))
		}
	}
	if len(cut) > 0 || w.full {
		if len(cut) == 0 {
			cut = append(cut, "the rest")
		}
		fmt.Fprintf(&w.b, "\n_Cut to stay within %d characters: %s not shown; the data source's rows, clusters and comparisons hold them all._\n",
			w.limit+cutReserve, strings.Join(cut, ", "))
	}
	return w.b.String()
}

// maxCell bounds the bytes of one name or summary in a cell, before escaping.
const maxCell = 200

// cell makes s plain text in a table cell or a list item: no line breaks, no column separators, and no
// Markdown or HTML of its own. Names, versions and report descriptions come from Workload files, the
// GitOps tree and the clusters' status reports, so a description such as "[log in](https://…)" or
// "<img src=…>" must show as written instead of becoming a link, an image or a tag in a pull request.
// It is cut before escaping, at a character boundary, so a cut never splits an escape or a UTF-8 rune.
func cell(s string) string {
	s, cut := truncate(s)
	s = markdownText.Replace(s)
	if cut {
		s += "…"
	}
	return s
}

// codeCell makes s safe inside a code span of a cell: no line breaks, no column separators, no
// backtick to end the span (inside a span every other character shows as written).
func codeCell(s string) string {
	s, cut := truncate(s)
	s = strings.NewReplacer("\r", " ", "\n", " ", "|", `\|`, "`", "'").Replace(s)
	if cut {
		s += "…"
	}
	return s
}

// markdownText escapes what Markdown (GitHub's included) would read as markup, backslash included;
// line breaks become spaces, a pipe stays inside its cell, and & < > become entities.
var markdownText = strings.NewReplacer("\r", " ", "\n", " ", `\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`,
	"~", `\~`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "!", `\!`, "#", `\#`)

// truncate cuts s to at most maxCell bytes at a character boundary; cut says whether it did. Bytes that
// are not UTF-8 (a folder name is any bytes) become U+FFFD, so the summary is always valid UTF-8.
func truncate(s string) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxCell {
		return s, false
	}
	end := maxCell
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// counted is n followed by the words for one or for any other number, so that a summary of one thing reads
// "1 cluster reports" and not "1 clusters report".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// plural is n and a noun that takes an s for any number but one.
func plural(n int, noun string) string { return counted(n, noun, noun+"s") }
