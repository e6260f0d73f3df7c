// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"bytes"
	"errors"
	"io"
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
		b := t.files[p]
		if !bytes.Contains(b, []byte("GitRepository")) && !bytes.Contains(b, []byte("targetRevision")) {
			continue
		}
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
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) || err != nil {
				break
			}
			switch doc.Kind {
			case "GitRepository":
				for _, k := range fluxRefKeys {
					if v, ok := doc.Spec.Ref[k].(string); ok && v != "" {
						add(v, "flux:"+k)
						break
					}
				}
			case "Application":
				add(doc.Spec.Source.TargetRevision, "argocd")
				for _, s := range doc.Spec.Sources {
					add(s.TargetRevision, "argocd")
				}
			}
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

// tree is an environment's head tree with its files grouped by folder.
type tree struct {
	files map[string][]byte
	// byFolder lists, per folder "<cluster type>/<deployment target>", its files' paths, sorted.
	byFolder map[string][]string
}

func newTree(files map[string][]byte) *tree {
	t := &tree{files: files, byFolder: map[string][]string{}}
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
