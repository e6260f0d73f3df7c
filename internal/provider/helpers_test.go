// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// filesCheck expects a files map to hold exactly the given tree.
func filesCheck(want map[string]string) knownvalue.Check {
	checks := make(map[string]knownvalue.Check, len(want))
	for p, c := range want {
		checks[p] = knownvalue.StringExact(c)
	}
	return knownvalue.MapExact(checks)
}

// hclManifestList writes each fixture input to a temporary file and returns an HCL list of file() calls,
// so that configurations read the YAML exactly as users would.
func hclManifestList(t *testing.T, c *fixtures.Case) string {
	t.Helper()
	dir := t.TempDir()
	var items []string
	for i, p := range c.InputPaths() {
		f := filepath.Join(dir, fmt.Sprintf("%03d-%s", i, strings.ReplaceAll(p, "/", "_")))
		if err := os.WriteFile(f, []byte(c.Inputs[p]), 0o600); err != nil {
			t.Fatal(err)
		}
		items = append(items, fmt.Sprintf("file(%q)", filepath.ToSlash(f)))
	}
	return "[\n    " + strings.Join(items, ",\n    ") + ",\n  ]"
}

// hclString quotes a Go string as an HCL heredoc-free string literal.
func hclString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "${", "$${", "%{", "%%{")
	return `"` + r.Replace(s) + `"`
}

// spaceTolerant lets a pattern match across the line wrapping Terraform applies to diagnostics.
func spaceTolerant(pattern string) string {
	return strings.ReplaceAll(pattern, " ", `\s+`)
}

// expectPlanError builds a plan-only step that must fail with every pattern, in order, in the output
// (summary, the attribute's configuration line and the detail), taken literally; spaces match Terraform's line wrapping.
func expectPlanError(config string, patterns ...string) resource.TestStep {
	re := "(?s)"
	for i, p := range patterns {
		if i > 0 {
			re += ".*"
		}
		re += spaceTolerant(regexp.QuoteMeta(p))
	}
	return resource.TestStep{Config: config, PlanOnly: true, ExpectError: regexp.MustCompile(re)}
}

// hclList writes strings as an HCL list literal.
func hclList(xs []string) string {
	items := make([]string, len(xs))
	for i, x := range xs {
		items[i] = hclString(x)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// hclMap writes a map as an HCL object literal, keys sorted, indented for an attribute of a block.
func hclMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "    %s = %s\n", hclString(k), hclString(m[k]))
	}
	b.WriteString("  }")
	return b.String()
}

// controlPlaneReverseExample returns examples/control-plane-reverse/main.tf, minus its terraform and
// variable blocks, writing to a new local bare repository, and that repository.
func controlPlaneReverseExample(t *testing.T) (config, bare string) {
	t.Helper()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "control-plane-reverse", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config = string(example)
	config = config[strings.Index(config, `provider "kalypso"`):]
	bare = gitserver.NewBareRepo(t, "", "control-plane.git", "main")
	config = strings.ReplaceAll(config, "var.control_plane_repo", fmt.Sprintf("%q", "file://"+filepath.ToSlash(bare)))
	return gitopsUnprotected(config), bare
}

// exampleFile is examples/<dir>/main.tf.
func exampleFile(t *testing.T, dir string) string {
	t.Helper()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	return string(example)
}

// exampleForTestFramework is examples/<dir>/main.tf from its first variable on (terraform-plugin-testing
// writes the terraform block) with every kalypso_gitops_commit unprotected (gitopsUnprotected).
func exampleForTestFramework(t *testing.T, dir string) string {
	t.Helper()
	cfg := exampleFile(t, dir)
	return gitopsUnprotected(cfg[strings.Index(cfg, `variable "`):])
}

// gitopsUnprotected sets deletion_protection = false in every kalypso_gitops_commit of config: the test
// framework destroys what a test created, which the default protection refuses.
func gitopsUnprotected(config string) string {
	return gitopsResourceOpen.ReplaceAllString(config, "$0\n  deletion_protection = false")
}

var gitopsResourceOpen = regexp.MustCompile(`resource "kalypso_gitops_commit" "[^"]+" \{`)
