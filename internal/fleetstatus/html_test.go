// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fleethistory"
)

// chromium finds a headless Chromium: the test skips without one, unless KALYPSO_REQUIRE_CHROMIUM=1 (CI
// installs the Debian package and sets it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KALYPSO_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("KALYPSO_REQUIRE_CHROMIUM=1 but no chromium on PATH; install it (Debian: apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium); KALYPSO_REQUIRE_CHROMIUM=1 makes this a failure")
	return ""
}

// runChromium runs a headless Chromium on the page with args; it reaches nothing but the file.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
		"--disable-extensions", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// The page of the scripted history opens in headless Chromium: its DOM holds the matrix of cluster types
// by environments with each cell's worst state and count, and a drill-down per workload; it holds no
// script and loads nothing. The screenshot is kept in $KALYPSO_TEST_ARTIFACTS (a temporary directory
// without it).
func TestHTMLPageInHeadlessChromium(t *testing.T) {
	t.Parallel()
	s := fleethistory.Build(t, t.TempDir())
	page, err := read(t, request(t, s)).HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"<script", "src=", "http://", "https://", "<link", "@import", "url("} {
		if strings.Contains(page, banned) {
			t.Errorf("the page holds %q: it must load nothing", banned)
		}
	}
	bin := chromium(t)
	dir := os.Getenv("KALYPSO_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fleet-status.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}

	doc, err := html.Parse(bytes.NewReader(runChromium(t, bin, file, "--dump-dom")))
	if err != nil {
		t.Fatal(err)
	}
	matrix := find(doc, func(n *html.Node) bool { return n.Data == "table" && attr(n, "id") == "matrix" })
	if len(matrix) != 1 {
		t.Fatalf("%d tables#matrix in the DOM", len(matrix))
	}
	got := map[string]string{}
	for _, td := range find(matrix[0], func(n *html.Node) bool { return n.Data == "td" }) {
		got[attr(td, "data-cluster-type")+"/"+attr(td, "data-env")] = attr(td, "data-state") + " " + attr(td, "data-targets")
	}
	want := map[string]string{
		"large/dev": "progressing 1", "large/stage": "succeeded 1", "large/prod": "unknown 1",
		"small/dev": "progressing 3", "small/stage": "succeeded 2", "small/prod": "succeeded 2",
	}
	if len(got) != len(want) {
		t.Errorf("matrix cells %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("matrix cell %s: %q, want %q", k, got[k], v)
		}
	}
	heads := find(matrix[0], func(n *html.Node) bool { return n.Data == "th" && attr(n, "data-env") != "" })
	if len(heads) != 3 || attr(heads[0], "data-env") != "dev" || attr(heads[2], "data-env") != "prod" {
		t.Errorf("matrix columns: %d", len(heads))
	}
	hello := find(doc, func(n *html.Node) bool { return n.Data == "details" && attr(n, "id") == "workload-hello" })
	if len(hello) != 1 {
		t.Fatalf("%d drill-downs for hello", len(hello))
	}
	rows := find(hello[0], func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-env") != "" })
	var places []string
	for _, r := range rows {
		places = append(places, attr(r, "data-env")+"/"+attr(r, "data-cluster-type")+"/"+attr(r, "class"))
	}
	if strings.Join(places, " ") != "dev/large/state-progressing dev/small/state-progressing stage/large/state-succeeded stage/small/state-succeeded prod/large/state-unknown prod/small/state-succeeded" {
		t.Errorf("hello's drill-down: %v", places)
	}
	if n := len(find(doc, func(n *html.Node) bool { return n.Data == "script" })); n != 0 {
		t.Errorf("%d scripts in the DOM", n)
	}

	shot := filepath.Join(dir, "fleet-status.png")
	runChromium(t, bin, file, "--screenshot="+shot, "--window-size=1400,1100", "--hide-scrollbars")
	b, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 10000 {
		t.Fatalf("screenshot %s: %d bytes, %v", shot, len(b), err)
	}
	t.Logf("page and screenshot: %s, %s", file, shot)
}
