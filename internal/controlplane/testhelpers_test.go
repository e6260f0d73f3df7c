// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package controlplane

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

func fixtureDir(name string) string {
	return filepath.Join(fixtures.Root(), "controlplane", name)
}

// writeTree writes files (slash path -> content) below a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
