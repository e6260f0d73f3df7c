// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// WriteFileAtomic replaces a file whole and leaves no temporary file; TrimOldest keeps the newest files.
func TestCacheFiles_WriteAtomicAndTrimOldest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "records")
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if err := gitrepo.WriteFileAtomic(p, []byte("first")); err != nil {
			t.Fatal(err)
		}
		if err := gitrepo.WriteFileAtomic(p, []byte(fmt.Sprint("record ", i))); err != nil {
			t.Fatal(err)
		}
		// Modification times one minute apart: r0 is the oldest.
		if err := os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	gitrepo.TrimOldest(dir, 3)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"r2.json", "r3.json", "r4.json"}) {
		t.Fatalf("after trimming to 3: %v", names)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r4.json")); err != nil || string(b) != "record 4" {
		t.Fatalf("r4.json holds %q, %v", b, err)
	}
}
