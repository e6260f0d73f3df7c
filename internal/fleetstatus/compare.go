// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// compare lists the deployment targets whose content differs between two environments' heads. Git names
// a folder by its content, so equal tree ids are equal folders and only the others are opened, and a file
// by its content, so their files are compared by blob id without reading them.
func compare(c Comparison, from, to EnvInput, trees map[string][]gitrepo.TreeFile, versions map[string]folderVersion) EnvironmentDiff {
	out := EnvironmentDiff{From: c.From, To: c.To}
	names := make([]string, 0, len(from.Log.Folders)+len(to.Log.Folders))
	for f := range from.Log.Folders {
		if deploymentFolder(f) {
			names = append(names, f)
		}
	}
	for f := range to.Log.Folders {
		if _, ok := from.Log.Folders[f]; !ok && deploymentFolder(f) {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		a, inFrom := from.Log.Folders[f]
		b, inTo := to.Log.Folders[f]
		if a == b {
			out.Same++
			continue
		}
		ct, dt, _ := strings.Cut(f, "/")
		d := FolderDiff{ClusterType: ct, DeploymentTarget: dt, FromVersion: versions[a].Version, ToVersion: versions[b].Version}
		switch {
		case !inTo:
			d.Only = "from"
		case !inFrom:
			d.Only = "to"
		}
		d.Files = fileDiffs(trees[a], trees[b])
		out.Differing = append(out.Differing, d)
	}
	return out
}

// fileDiffs compares two folders' files (each sorted by path, relative to the folder), in path order.
func fileDiffs(from, to []gitrepo.TreeFile) []FileDiff {
	var out []FileDiff
	i, j := 0, 0
	for i < len(from) || j < len(to) {
		switch {
		case j == len(to) || i < len(from) && from[i].Path < to[j].Path:
			out = append(out, FileDiff{Path: from[i].Path, Change: "removed"})
			i++
		case i == len(from) || to[j].Path < from[i].Path:
			out = append(out, FileDiff{Path: to[j].Path, Change: "added"})
			j++
		default:
			if from[i].Blob != to[j].Blob {
				out = append(out, FileDiff{Path: from[i].Path, Change: "changed"})
			}
			i++
			j++
		}
	}
	return out
}
