// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/kalypso/terraform-provider-kalypso/internal/fleetstatus"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleethistory"
)

// hostileNames reach the summary and the page from folder names of the GitOps tree, Workload files and
// the clusters' status reports (cluster names, descriptions).
var hostileNames = []string{
	"<script>alert(1)</script>",
	`"><img src=x onerror=alert(1)>`,
	`' onmouseover='alert(1)`,
	"javascript:alert(1)",
	"[log in](https://evil.example/phish)",
	"![pixel](https://evil.example/track.png)",
	"<https://evil.example>",
	"a | b | c",
	"line\nbreak\r\n## heading",
	"`code` and ``` fence",
	"**bold** _em_ ~~strike~~",
	`trailing backslash\`,
	`\|escaped pipe`,
	"&lt;entity&gt; &amp;",
	"# heading",
	"<!-- comment",
	strings.Repeat("é", 150),         // 300 bytes of two-byte runes: a cut must not split one
	strings.Repeat("|", 150),         // a cut must not split an escape
	strings.Repeat("a", 199) + "€€€", // the 200-byte boundary falls inside a three-byte rune
}

func hostileStatus() *fleetstatus.Status {
	now := time.Date(2026, 1, 9, 9, 0, 0, 0, time.UTC)
	st := &fleetstatus.Status{Now: now}
	for i, n := range hostileNames {
		st.Environments = append(st.Environments, fleetstatus.EnvironmentStatus{Name: n, Branch: n, Head: strings.Repeat("a", 40), Promoted: n,
			State: rollout.Failed, Summary: "0/1 clusters succeeded, 1 failed (" + n + ")"})
		st.Rows = append(st.Rows, fleetstatus.Row{Environment: n, ClusterType: n, DeploymentTarget: n, Version: n, DesiredCommit: n, Promoted: n,
			State: rollout.Failed, Clusters: 1, ChangedAt: now.Add(-time.Duration(i) * time.Hour), Age: time.Duration(i) * time.Hour})
		st.Clusters = append(st.Clusters, fleetstatus.Cluster{Environment: n, ClusterType: n, Name: n, Message: n, Commit: n, FolderCommit: n, Drift: true, State: rollout.Failed})
		st.Metrics = append(st.Metrics, fleetstatus.Metrics{Environment: n, WindowStart: now.Add(-time.Hour), WindowEnd: now})
	}
	st.Drift = len(hostileNames)
	st.Comparisons = []fleetstatus.EnvironmentDiff{{From: hostileNames[0], To: hostileNames[1], Differing: []fleetstatus.FolderDiff{}}}
	for _, n := range hostileNames {
		st.Comparisons[0].Differing = append(st.Comparisons[0].Differing, fleetstatus.FolderDiff{ClusterType: n, DeploymentTarget: n, Only: "from",
			FromVersion: n, Files: []fleetstatus.FileDiff{{Path: n, Change: "changed"}}})
	}
	return st
}

// TestHostileMarkdown: no name brings its own markup into the summary: no tag, link, image, heading,
// code span or extra column; every line of a table has its column count; the output is valid UTF-8 at
// any bound, and a cut never ends inside an escape.
func TestHostileMarkdown(t *testing.T) {
	t.Parallel()
	st := hostileStatus()
	for _, limit := range []int{0, 1000, 2345, 5000, 20000} {
		md := st.Markdown(limit)
		if !utf8.ValidString(md) {
			t.Errorf("limit %d: invalid UTF-8", limit)
		}
		text := outsideCodeSpans(md)
		for _, bad := range []string{"<script", "<img", "<https", "<!--", "\n## heading", "\n# heading", "**bold**", "``"} {
			if strings.Contains(text, bad) {
				t.Errorf("limit %d: the summary holds %q unescaped", limit, bad)
			}
		}
		if link := unescapedLink.FindString(text); link != "" {
			t.Errorf("limit %d: the summary holds a link or image %q", limit, link)
		}
		for _, line := range strings.Split(md, "\n") {
			if !strings.HasPrefix(line, "|") {
				continue
			}
			// Columns are the pipes no backslash escapes (GFM splits a row so, before any other escape).
			if got, want := columns(line), columns(tableHeaderOf(md, line)); got != want {
				t.Errorf("limit %d: %d columns, want %d: %q", limit, got, want, line)
			}
		}
	}
	md := st.Markdown(0)
	for _, want := range []string{
		`&lt;script&gt;alert(1)&lt;/script&gt;`,
		`\[log in\](https://evil.example/phish)`,
		`\!\[pixel\](https://evil.example/track.png)`,
		`a \| b \| c`,
		`line break  \#\# heading`,
		`\*\*bold\*\* \_em\_ \~\~strike\~\~`,
		`trailing backslash\\ |`,
		`\\\|escaped pipe`,
		`&amp;lt;entity&amp;gt; &amp;amp;`,
		"`" + `\\|escaped pipe` + "`", // a branch in a code span: only the pipe is escaped
		strings.Repeat("é", 100) + "…",
		strings.Repeat(`\|`, 150) + " |", // 150 pipes are 150 bytes: no cut
		strings.Repeat("a", 199) + "…",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}

// unescapedLink is the middle of a Markdown link or image: "](" after a bracket no backslash escapes.
var unescapedLink = regexp.MustCompile(`(^|[^\\])\]\(`)

// tableHeaderOf is the header line of the table that holds line.
func tableHeaderOf(md, line string) string {
	head := md[:strings.Index(md, line)+len(line)]
	start := strings.LastIndex(head, "\n\n")
	return strings.SplitN(head[start+2:], "\n", 2)[0]
}

// outsideCodeSpans is md without its code spans (a backtick escaped by a backslash opens none).
func outsideCodeSpans(md string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(md); i++ {
		switch {
		case md[i] == '`' && (i == 0 || md[i-1] != '\\'):
			in = !in
		case md[i] == '\n':
			in = false
			b.WriteByte('\n')
		case !in:
			b.WriteByte(md[i])
		}
	}
	return b.String()
}

func columns(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] != '|' {
			continue
		}
		if i == 0 || line[i-1] != '\\' {
			n++
		}
	}
	return n
}

// TestHostileHTML: the page escapes every name: no element, attribute or URL comes from a name, and
// every name shows as its text.
func TestHostileHTML(t *testing.T) {
	t.Parallel()
	page, err := hostileStatus().HTML()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	allowedTags := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "h1": true, "h2": true,
		"p": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "code": true, "span": true, "br": true,
		"ul": true, "li": true, "a": true, "div": true, "details": true, "summary": true}
	allowedAttrs := map[string]bool{"lang": true, "charset": true, "name": true, "content": true, "http-equiv": true, "id": true, "class": true,
		"href": true, "data-env": true, "data-cluster-type": true, "data-state": true, "data-targets": true, "data-workload": true}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			if !allowedTags[n.Data] {
				t.Errorf("element <%s> comes from a name", n.Data)
			}
			for _, a := range n.Attr {
				if !allowedAttrs[a.Key] {
					t.Errorf("attribute %s=%q on <%s> comes from a name", a.Key, a.Val, n.Data)
				}
				if a.Key == "href" && !strings.HasPrefix(a.Val, "#workload-") {
					t.Errorf("href %q leaves the page", a.Val)
				}
			}
		case html.TextNode:
			text.WriteString(n.Data)
		case html.CommentNode:
			t.Errorf("a comment comes from a name: %q", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, n := range hostileNames {
		// An HTML parser reads CR LF and a lone CR as LF.
		if n := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(n); !strings.Contains(text.String(), n) {
			t.Errorf("the page does not show %q as text", n)
		}
	}
}

// TestHostileBranches: an environment's branch (its name, when no branch is given) that git would not
// take as a branch is refused at that environment, before any repository is read, with the rule it
// breaks; none is read as a path, a revision or another ref.
func TestHostileBranches(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	cases := []struct{ branch, want string }{
		{"../../config", `contains ".."`},
		{"../../../../../../../../etc/passwd", `contains ".."`},
		{"..", "ends with '.'"},
		{"dev..stage", `contains ".."`},
		{"-x", "starts with '-'"},
		{"--upload-pack=touch", "starts with '-'"},
		{"refs/heads/dev", "is a full ref name"},
		{"HEAD", "is a Git pseudo-ref"},
		{"FETCH_HEAD", "is a Git pseudo-ref"},
		{"origin/dev", "names a remote-tracking branch"},
		{"dev~1", "contains '~'"},
		{"dev^", "contains '^'"},
		{"dev@{1}", `contains "@{"`},
		{"dev\n", "contains a control character"},
		{"dev stage", "contains a space"},
		{"dev.lock", `ending with ".lock"`},
		{".hidden", "a component starting with '.'"},
		{"/dev", "starts or ends with '/'"},
		{"dév", "contains the character U+00E9"},
		{"dev\u200b", "contains the character U+200B"},
	}
	for _, c := range cases {
		req := request(t, s)
		req.Environments = req.Environments[:1]
		req.Environments[0].Branch = c.branch
		_, err := fleetstatus.Read(context.Background(), &gitrepo.Client{}, req)
		var ee *fleetstatus.EnvError
		if !errors.As(err, &ee) || ee.Index != 0 || ee.Env != "dev" || !errors.Is(err, fleetstatus.ErrInput) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), "name the environment's branch") {
			t.Errorf("branch %q: %v; want an input error at environment 0 (dev) containing %q", c.branch, err, c.want)
		}
	}
}
