// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import "testing"

// One of a thing reads in the singular, every other number in the plural, zero included.
func TestCountedReadsInTheSingularForOne(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 clusters report"}, {1, "1 cluster reports"}, {2, "2 clusters report"}, {-1, "-1 clusters report"}} {
		if got := counted(c.n, "cluster reports", "clusters report"); got != c.want {
			t.Errorf("counted(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := plural(1, "environment") + ", " + plural(3, "environment"); got != "1 environment, 3 environments" {
		t.Errorf("plural = %q", got)
	}
}
