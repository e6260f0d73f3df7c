// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRunWritesYAMLAndTFVars(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"-size", "1k", "-format", "both", "-out", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "expected assignments:           1029\n") {
		t.Errorf("output does not report 1029 expected assignments:\n%s", out.String())
	}
	for _, path := range []string{"base-repo.yaml", "templates/arc-flux.yaml", "fleet.auto.tfvars.json"} {
		if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
			t.Error(err)
		}
	}
	policies, err := filepath.Glob(filepath.Join(dir, "scheduling", "*.yaml"))
	if err != nil || len(policies) != 8 {
		t.Errorf("%d policy files (%v), want 8", len(policies), err)
	}
}

func TestRunAppliesOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"-size", "1k", "-format", "tfvars", "-out", dir, "-cluster-types", "3", "-config-maps", "0", "-seed", "7"}
	if err := run(args, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed 7", "cluster types:                  3\n", "platform config maps:           0\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "base-repo.yaml")); !os.IsNotExist(err) {
		t.Errorf("-format tfvars wrote YAML too (stat: %v)", err)
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-size", "1k"},
		{"-size", "3k", "-out", t.TempDir()},
		{"-size", "1k", "-format", "xml", "-out", t.TempDir()},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

func TestRunWritesOneMorePolicyAndShapes(t *testing.T) {
	t.Parallel()
	dir, policy := t.TempDir(), filepath.Join(t.TempDir(), "one-more.yaml")
	var out bytes.Buffer
	if err := run([]string{"-size", "quarter-5.7k", "-out", dir, "-one-more-policy", policy}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "expected assignments:           5675\n") {
		t.Errorf("output does not report 5675 expected assignments:\n%s", out.String())
	}
	text, err := os.ReadFile(policy)
	if err != nil || !strings.Contains(string(text), "kind: SchedulingPolicy") {
		t.Errorf("one-more policy %q, %v", text, err)
	}
	out.Reset()
	if err := run([]string{"-size", "quarter-5.7k", "-format", "tfvars", "-out", t.TempDir(), "-add-one-more-policy"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "expected assignments:           5676\n") || !strings.Contains(out.String(), "scheduling policies:            41\n") {
		t.Errorf("with the policy added, output does not report 41 policies and 5676 assignments:\n%s", out.String())
	}
	ct := filepath.Join(t.TempDir(), "one-more-cluster-type.yaml")
	out.Reset()
	if err := run([]string{"-size", "quarter-5.7k", "-out", t.TempDir(), "-one-more-policy", policy, "-one-more-cluster-type", ct}, &out); err != nil {
		t.Fatal(err)
	}
	if text, err := os.ReadFile(ct); err != nil || !strings.Contains(string(text), "kind: ClusterType") || !strings.Contains(string(text), "name: zz-one-more-cluster-type") {
		t.Errorf("one-more cluster type %q, %v", text, err)
	}
	if !regexp.MustCompile(`one more cluster type adds: +[1-9][0-9]*\n`).MatchString(out.String()) {
		t.Errorf("output does not report what the cluster type adds:\n%s", out.String())
	}
	if err := run([]string{"-size", "tutorial-5.9k", "-format", "tfvars", "-out", t.TempDir()}, &bytes.Buffer{}); err == nil {
		t.Error("tfvars of the tutorial shape: want an error, the HCL baseline cannot render it")
	}
}
