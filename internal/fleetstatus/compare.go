// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"bytes"
	"sort"
	"strings"
)

// compare lists the deployment targets whose content differs between two environments' heads. Git names
// a folder by its content, so equal tree ids are equal folders and only the others are opened.
func compare(c Comparison, from, to EnvInput, fromTree, toTree *tree) EnvironmentDiff {
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
		d := FolderDiff{ClusterType: ct, DeploymentTarget: dt}
		d.FromVersion, _ = version(fromTree, f)
		d.ToVersion, _ = version(toTree, f)
		switch {
		case !inTo:
			d.Only = "from"
		case !inFrom:
			d.Only = "to"
		}
		d.Files = fileDiffs(fromTree, toTree, f)
		out.Differing = append(out.Differing, d)
	}
	return out
}

// fileDiffs compares the files of folder, by path relative to it.
func fileDiffs(from, to *tree, folder string) []FileDiff {
	var out []FileDiff
	prefix := folder + "/"
	for _, p := range from.byFolder[folder] {
		if other, ok := to.files[p]; !ok {
			out = append(out, FileDiff{Path: strings.TrimPrefix(p, prefix), Change: "removed"})
		} else if !bytes.Equal(from.files[p], other) {
			out = append(out, FileDiff{Path: strings.TrimPrefix(p, prefix), Change: "changed"})
		}
	}
	for _, p := range to.byFolder[folder] {
		if _, ok := from.files[p]; !ok {
			out = append(out, FileDiff{Path: strings.TrimPrefix(p, prefix), Change: "added"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
