// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Command testtimes reads the output of `go test -json` and prints where the run's wall time went: the
// run's span, each package's time (sorted, with when it started and ended in the run, its serial tests'
// sum and its parallel tests' sum), the slowest tests, and the critical path (the package that ended
// last and, in it, the tests that bound its time). Parallel tests overlap, so a test's Elapsed is its
// own running time, not its share of the wall time: a package's time is bounded below by the sum of its
// serial tests plus its longest parallel test.
//
//	TF_ACC=1 go test -count=1 -timeout 60m -json ./... >run.json
//	go run ./tools/testtimes -n 20 run.json
//
// Lines that are not JSON (build output) are skipped. Subtests are listed with -subtests.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// testRun is what the events say about one test.
type testRun struct {
	pkg, name string
	result    string // pass, fail, skip; "" when the run ended without one
	elapsed   float64
	parallel  bool      // it paused (t.Parallel) at least once
	started   time.Time // its run event, or its cont event when it paused for t.Parallel
	end       time.Time
	// total is elapsed plus the time of its parallel subtests, which a parent's Elapsed leaves out (it
	// ends when the parent's function returns); serial subtests are already in it.
	total float64
}

// pkgRun is what the events say about one package's test binary.
type pkgRun struct {
	name        string
	result      string
	elapsed     float64
	first, last time.Time
	tests       []*testRun
}

func main() {
	n := flag.Int("n", 20, "how many of the slowest tests to list")
	subtests := flag.Bool("subtests", false, "list subtests among the slowest too (their time is part of their parent's)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: testtimes [-n 20] [-subtests] [go-test-json-file ...]   (stdin without files)")
		flag.PrintDefaults()
	}
	flag.Parse()
	var inputs []io.Reader
	for _, p := range flag.Args() {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtimes:", err)
			os.Exit(1)
		}
		defer f.Close()
		inputs = append(inputs, f)
	}
	if len(inputs) == 0 {
		inputs = append(inputs, os.Stdin)
	}
	pkgs, tests, err := read(io.MultiReader(inputs...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
	if len(pkgs) == 0 {
		fmt.Fprintln(os.Stderr, "testtimes: no go test -json events in the input")
		os.Exit(1)
	}
	report(os.Stdout, pkgs, tests, *n, *subtests)
}

// read collects the packages and tests of a go test -json stream.
func read(r io.Reader) (map[string]*pkgRun, map[string]*testRun, error) {
	pkgs := map[string]*pkgRun{}
	tests := map[string]*testRun{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if json.Unmarshal(line, &e) != nil || e.Package == "" || e.Time.IsZero() {
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkgRun{name: e.Package, first: e.Time}
			pkgs[e.Package] = p
		}
		if e.Time.Before(p.first) {
			p.first = e.Time
		}
		if e.Time.After(p.last) {
			p.last = e.Time
		}
		if e.Test == "" {
			if isResult(e.Action) {
				p.result, p.elapsed = e.Action, e.Elapsed
			}
			continue
		}
		key := e.Package + "\x00" + e.Test
		t := tests[key]
		if t == nil {
			t = &testRun{pkg: e.Package, name: e.Test}
			tests[key] = t
			p.tests = append(p.tests, t)
		}
		switch {
		case e.Action == "run" || e.Action == "cont":
			t.started = e.Time
		case e.Action == "pause":
			t.parallel = true
		case isResult(e.Action):
			t.result, t.elapsed, t.end = e.Action, e.Elapsed, e.Time
		}
	}
	for _, t := range tests {
		t.total = t.elapsed
	}
	// Deepest first, so a child's total is final before its parent adds it.
	byDepth := make([]*testRun, 0, len(tests))
	for _, t := range tests {
		byDepth = append(byDepth, t)
	}
	sort.Slice(byDepth, func(i, j int) bool { return strings.Count(byDepth[i].name, "/") > strings.Count(byDepth[j].name, "/") })
	for _, t := range byDepth {
		i := strings.LastIndex(t.name, "/")
		if i < 0 {
			continue
		}
		parent := tests[t.pkg+"\x00"+t.name[:i]]
		if parent == nil {
			continue
		}
		if t.parallel {
			parent.total += t.total
		} else {
			parent.total += t.total - t.elapsed
		}
	}
	return pkgs, tests, sc.Err()
}

func isResult(action string) bool { return action == "pass" || action == "fail" || action == "skip" }

func topLevel(t *testRun) bool { return !strings.Contains(t.name, "/") }

func report(w io.Writer, pkgs map[string]*pkgRun, tests map[string]*testRun, n int, subtests bool) {
	var start, end time.Time
	list := make([]*pkgRun, 0, len(pkgs))
	for _, p := range pkgs {
		list = append(list, p)
		if start.IsZero() || p.first.Before(start) {
			start = p.first
		}
		if p.last.After(end) {
			end = p.last
		}
	}
	fmt.Fprintf(w, "run: %.1f s from the first event to the last (compilation before the first package's start is not in it)\n\n", end.Sub(start).Seconds())

	sort.Slice(list, func(i, j int) bool {
		if list[i].elapsed != list[j].elapsed {
			return list[i].elapsed > list[j].elapsed
		}
		return list[i].name < list[j].name
	})
	fmt.Fprintln(w, "packages (elapsed of the test binary; start and end are seconds into the run; serial and parallel sum the top-level tests' times):")
	fmt.Fprintf(w, "%9s %7s %7s %6s %9s %9s  %s\n", "elapsed", "start", "end", "tests", "serial", "parallel", "package")
	for _, p := range list {
		if p.result == "" && len(p.tests) == 0 {
			continue
		}
		var serial, parallel float64
		count := 0
		for _, t := range p.tests {
			if !topLevel(t) {
				continue
			}
			count++
			if t.parallel {
				parallel += t.total
			} else {
				serial += t.total
			}
		}
		result := ""
		if p.result != "pass" {
			result = "  [" + orNone(p.result) + "]"
		}
		fmt.Fprintf(w, "%8.1fs %7.1f %7.1f %6d %8.1fs %8.1fs  %s%s\n", p.elapsed, p.first.Sub(start).Seconds(), p.last.Sub(start).Seconds(),
			count, serial, parallel, p.name, result)
	}

	var slow []*testRun
	for _, t := range tests {
		if subtests || topLevel(t) {
			slow = append(slow, t)
		}
	}
	sort.Slice(slow, func(i, j int) bool {
		if slow[i].total != slow[j].total {
			return slow[i].total > slow[j].total
		}
		return slow[i].pkg+slow[i].name < slow[j].pkg+slow[j].name
	})
	if len(slow) > n {
		slow = slow[:n]
	}
	fmt.Fprintf(w, "\nslowest %d tests (own time with their parallel subtests'; parallel tests overlapped others):\n", len(slow))
	for i, t := range slow {
		mode := "serial"
		if t.parallel {
			mode = "parallel"
		}
		result := ""
		if t.result != "pass" {
			result = "  [" + orNone(t.result) + "]"
		}
		fmt.Fprintf(w, "%3d %8.1fs  %-8s  %s %s%s\n", i+1, t.total, mode, shortPkg(t.pkg), t.name, result)
	}

	// The critical path: the package that ended last, and in it the test that ended last and the longest one.
	lastPkg := list[0]
	for _, p := range list {
		if p.last.After(lastPkg.last) {
			lastPkg = p
		}
	}
	fmt.Fprintf(w, "\ncritical path: %s ended last, %.1f s into the run (its binary ran %.1f s from %.1f s)\n",
		lastPkg.name, lastPkg.last.Sub(start).Seconds(), lastPkg.elapsed, lastPkg.first.Sub(start).Seconds())
	var lastTest, longest *testRun
	for _, t := range lastPkg.tests {
		if !topLevel(t) {
			continue
		}
		if lastTest == nil || t.end.After(lastTest.end) {
			lastTest = t
		}
		if longest == nil || t.total > longest.total {
			longest = t
		}
	}
	if lastTest != nil {
		fmt.Fprintf(w, "  last to end: %s (%.1f s, from %.1f s to %.1f s into the run)\n", lastTest.name, lastTest.total,
			lastTest.started.Sub(start).Seconds(), lastTest.end.Sub(start).Seconds())
		fmt.Fprintf(w, "  longest:     %s (%.1f s)\n", longest.name, longest.total)
	}
}

func orNone(s string) string {
	if s == "" {
		return "no result"
	}
	return s
}

// shortPkg drops the module path, so the list reads as the tree does.
func shortPkg(p string) string {
	const module = "github.com/kalypso/terraform-provider-kalypso"
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}
