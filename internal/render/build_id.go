// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

var buildID = sync.OnceValue(func() string {
	id := "unknown"
	revision, modified := "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		id = bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	id += " " + revision
	if revision == "" || modified {
		// A development build: its templates and code may differ under the same version, so the binary
		// itself tells builds apart.
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				id += fmt.Sprintf(" %d %d", fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return id
})

// BuildID names the code that renders. Under one BuildID equal inputs give equal output, so a plan may
// trust what an earlier apply with the same inputs recorded instead of rendering again.
func BuildID() string { return buildID() }
