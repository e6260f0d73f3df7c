// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"strings"
	"testing"
)

// TestCheckFileNames_GitPathRules: names git refuses on some platform, names differing only in case, and a
// copy of the ownership record are each one problem at their own name.
func TestCheckFileNames_GitPathRules(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, summary, detail string }{
		{"x/.git./config", "Invalid file name", `has a segment ".git." that Git on Windows or macOS reads as .git`},
		{"x/git~1/config", "Invalid file name", `has a segment "git~1" that Git on Windows or macOS reads as .git`},
		{"x/.g\u200cit/config", "Invalid file name", "reads as .git (git fsck: hasDotgit)"},
		{"x/.gitmodules", "Invalid file name", `has a segment ".gitmodules" that Git reads as .gitmodules`},
		{"b/" + OwnerMarker, "Invalid file name", "named like the ownership record"},
	}
	for _, c := range cases {
		got := CheckFileNames([]string{c.name, "ok/a.yaml"})
		if len(got) != 1 || got[0].Name != c.name || got[0].Summary != c.summary || !strings.Contains(got[0].Detail, c.detail) {
			t.Errorf("%q: %+v, want %q containing %q", c.name, got, c.summary, c.detail)
		}
	}
	got := CheckFileNames([]string{"clusters/a.yaml", "Clusters/b.yaml", "clusters/A.yaml", "other/x.yaml", "Other.yaml"})
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	want := []struct{ name, detail string }{
		{"clusters/A.yaml", `"Clusters" and "clusters" differ only in letter case`},
		{"clusters/a.yaml", `"clusters/A.yaml" and "clusters/a.yaml" differ only in letter case`},
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Summary != "File names that differ only in case" || !strings.HasPrefix(got[i].Detail, w.detail) {
			t.Errorf("problem %d: %+v, want %+v", i, got[i], w)
		}
	}
}
