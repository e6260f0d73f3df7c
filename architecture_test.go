// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureMapCoversEveryPackageAndFile: ARCHITECTURE.md's map names every package under
// internal/ (`internal/<name>`) and every production Go file of the engine and the glue, by its name or
// by a pattern in backticks (`builtin_*.go`, `<name>_{resource,data_source,function}.go`), so a new
// package or file cannot land without its line. Test infrastructure (internal/testutil) is named by
// package only.
func TestArchitectureMapCoversEveryPackageAndFile(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	// Fenced blocks first: their ``` would pair the backticks after them the wrong way round.
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(doc), "")
	var names []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text, -1) {
		names = append(names, expandBraces(m[1])...)
	}
	placeholder := regexp.MustCompile(`<[^>]*>`)
	covered := func(pkg, file string) bool {
		for _, n := range names {
			if file == "" {
				if n == pkg || strings.HasPrefix(n, pkg+"/") {
					return true
				}
				continue
			}
			if !strings.HasSuffix(n, ".go") {
				continue
			}
			pattern := placeholder.ReplaceAllString(path.Base(n), "*")
			if ok, _ := path.Match(pattern, file); ok {
				return true
			}
		}
		return false
	}
	var missing []string
	err = filepath.WalkDir("internal", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		var production []string
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				production = append(production, filepath.Base(f))
			}
		}
		if len(production) == 0 {
			return nil
		}
		pkg := filepath.ToSlash(dir)
		if !covered(pkg, "") {
			missing = append(missing, "package "+pkg)
		}
		if strings.HasPrefix(pkg, "internal/testutil/") {
			return nil
		}
		for _, f := range production {
			if !covered(pkg, f) {
				missing = append(missing, pkg+"/"+f)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("ARCHITECTURE.md's map does not name:\n  %s\nadd each to the row of what it does (a file group may be a pattern such as `builtin_*.go`)", strings.Join(missing, "\n  "))
	}
}

// expandBraces expands the first {a,b} of s, recursively: "x_{a,b}.go" is x_a.go and x_b.go.
func expandBraces(s string) []string {
	open := strings.IndexByte(s, '{')
	end := strings.IndexByte(s, '}')
	if open < 0 || end < open {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[open+1:end], ",") {
		out = append(out, expandBraces(s[:open]+alt+s[end+1:])...)
	}
	return out
}
