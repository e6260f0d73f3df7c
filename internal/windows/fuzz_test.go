// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package windows

import (
	"testing"
	"time"
)

// FuzzParseSchedule: any text is a schedule or an error, never a panic, and a schedule's next start
// lies after the time asked about and is its own previous start.
func FuzzParseSchedule(f *testing.F) {
	for _, seed := range []string{"0 8 * * 1-5", "*/15 * * * *", "0 0 29 2 *", "5/30 1-3 1,15 jan-mar sun", "@weekly", "0 0 31 2 *", "1-", "*/0 * * * *", "0 0 * * 7"} {
		f.Add(seed, int64(1795000000))
	}
	berlin, err := LoadZone("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string, unix int64) {
		s, err := ParseSchedule(expr)
		if err != nil {
			return
		}
		at := time.Unix(unix%(200*365*24*3600), 0)
		next, ok := s.Next(at, berlin)
		if !ok {
			return
		}
		if !next.After(at) {
			t.Fatalf("%q: Next(%s) = %s", expr, at, next)
		}
		if prev, ok := s.Prev(next, berlin); !ok || !prev.Equal(next) {
			t.Fatalf("%q: Prev(%s) = %s, %v", expr, next, prev, ok)
		}
	})
}
