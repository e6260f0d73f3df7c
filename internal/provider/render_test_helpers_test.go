// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
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
