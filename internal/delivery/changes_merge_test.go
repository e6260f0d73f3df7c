// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"slices"
	"strings"
	"testing"
)

// TestMergeByPathSortsLikeASort: the path's changes (sorted or not) and the root files' changes come out
// in one list sorted by path, as a sort of both together would have them, root files anywhere among them.
func TestMergeByPathSortsLikeASort(t *testing.T) {
	t.Parallel()
	paths := func(ps ...string) []pending {
		out := make([]pending, len(ps))
		for i, p := range ps {
			out[i] = pending{path: p}
		}
		return out
	}
	for _, tc := range []struct{ path, root []pending }{
		{paths("gitops/a/x.yaml", "gitops/b/y.yaml"), nil},
		{paths("gitops/a/x.yaml", "gitops/b/y.yaml"), paths(".kalypso-owner", "zz-promoted")},
		{paths("b/x.yaml", "d/y.yaml"), paths("c.yaml", "a.yaml", "e.yaml")},
		{paths("d/y.yaml", "b/x.yaml"), paths("c.yaml")},
		{nil, paths("b", "a")},
	} {
		var want []string
		for _, c := range append(slices.Clone(tc.path), tc.root...) {
			want = append(want, c.path)
		}
		slices.Sort(want)
		var got []string
		for _, c := range mergeByPath(tc.path, tc.root) {
			got = append(got, c.path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("mergeByPath(%v, %v) = %s, want %s", tc.path, tc.root, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}
