// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"bytes"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// fluxRefKeys are a Flux GitRepository's spec.ref fields in the order Flux gives them precedence.
var fluxRefKeys = []string{"commit", "name", "semver", "tag", "branch"}

// version is the workload's version that the reconciler manifests of folder name: the spec.ref of a Flux
// GitRepository ("flux:tag" and the tag, …) or the targetRevision of an Argo CD Application ("argocd").
// Several are joined with ", ". Manifests that do not parse name no version: the folder is what Git holds,
// and its reconciler reports whether it applies.
func version(t *tree, folder string) (string, string) {
	var versions, sources []string
	seen := map[string]bool{}
	add := func(v, from string) {
		if v == "" || seen[from+"\x00"+v] {
			return
		}
		seen[from+"\x00"+v] = true
		versions, sources = append(versions, v), append(sources, from)
	}
	for _, p := range t.byFolder[folder] {
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			continue
		}
		for _, v := range t.memo.of(t.files[p]) {
			add(v[0], v[1])
		}
	}
	return strings.Join(versions, ", "), strings.Join(dedupe(sources), ", ")
}

func dedupe(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// versionMemo holds the versions each reconciler file's content names: the same workload at the same
// version renders the same file on every cluster type that holds it, so a fleet parses a few hundred
// distinct files, not one per folder. One memo serves one Compute.
type versionMemo map[string][][2]string

// of is the versions (value, source) that one file names.
func (m versionMemo) of(b []byte) [][2]string {
	if !bytes.Contains(b, []byte("GitRepository")) && !bytes.Contains(b, []byte("targetRevision")) {
		return nil
	}
	if v, ok := m[string(b)]; ok {
		return v
	}
	var out [][2]string
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Ref    map[string]any `yaml:"ref"`
				Source struct {
					TargetRevision string `yaml:"targetRevision"`
				} `yaml:"source"`
				Sources []struct {
					TargetRevision string `yaml:"targetRevision"`
				} `yaml:"sources"`
			} `yaml:"spec"`
		}
		if err := dec.Decode(&doc); err != nil {
			break // the end, or manifests that do not parse: they name no version
		}
		switch doc.Kind {
		case "GitRepository":
			for _, k := range fluxRefKeys {
				if v, ok := doc.Spec.Ref[k].(string); ok && v != "" {
					out = append(out, [2]string{v, "flux:" + k})
					break
				}
			}
		case "Application":
			if v := doc.Spec.Source.TargetRevision; v != "" {
				out = append(out, [2]string{v, "argocd"})
			}
			for _, src := range doc.Spec.Sources {
				if src.TargetRevision != "" {
					out = append(out, [2]string{src.TargetRevision, "argocd"})
				}
			}
		}
	}
	m[string(b)] = out
	return out
}

// tree is an environment's head tree with its files grouped by folder.
type tree struct {
	memo  versionMemo
	files map[string][]byte
	// byFolder lists, per folder "<cluster type>/<deployment target>", its files' paths, sorted.
	byFolder map[string][]string
}

func newTree(files map[string][]byte, memo versionMemo) *tree {
	t := &tree{files: files, memo: memo, byFolder: map[string][]string{}}
	for p := range files {
		ct, rest, ok := strings.Cut(p, "/")
		if !ok {
			continue
		}
		dt, _, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		f := ct + "/" + dt
		t.byFolder[f] = append(t.byFolder[f], p)
	}
	for _, ps := range t.byFolder {
		sort.Strings(ps)
	}
	return t
}
