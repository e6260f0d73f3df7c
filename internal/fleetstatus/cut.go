// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"fmt"
	"strings"
)

// DefaultMaxItems bounds each long list of a status that goes into Terraform's state (Bounded): a fleet of
// 3 environments × 86,400 folders is 259,200 rows, and every element costs Terraform and the provider
// about 0.1 ms of CPU per plan each (BENCHMARKS.md, issue 33): 10,000 per list already took the plan of
// that fleet past 5 s. The Markdown summary and the HTML page cover the whole status either way.
const DefaultMaxItems = 1000

// Bounded is the status with at most limit rows, limit clusters and limit differing folders per comparison (the
// first ones, in their order), and a line that says what was cut ("" when nothing was). Counts (rows and
// clusters per environment, drift, a comparison's Same) stay those of the whole status. s is not changed.
func (s *Status) Bounded(limit int) (*Status, string) {
	out := *s
	var cut []string
	if len(s.Rows) > limit {
		out.Rows = s.Rows[:limit]
		cut = append(cut, fmt.Sprintf("rows: %d of %d", limit, len(s.Rows)))
	}
	if len(s.Clusters) > limit {
		out.Clusters = s.Clusters[:limit]
		cut = append(cut, fmt.Sprintf("clusters: %d of %d", limit, len(s.Clusters)))
	}
	copied := false
	for i, c := range s.Comparisons {
		if len(c.Differing) <= limit {
			continue
		}
		if !copied {
			out.Comparisons, copied = append([]EnvironmentDiff(nil), s.Comparisons...), true
		}
		out.Comparisons[i].Differing = c.Differing[:limit]
		cut = append(cut, fmt.Sprintf("%s vs %s differing: %d of %d", c.From, c.To, limit, len(c.Differing)))
	}
	if len(cut) == 0 {
		return &out, ""
	}
	return &out, fmt.Sprintf("Cut to %d items per list: %s.", limit, strings.Join(cut, "; "))
}
