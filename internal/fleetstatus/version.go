// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// fluxRefKeys are a Flux GitRepository's spec.ref fields in the order Flux gives them precedence.
var fluxRefKeys = []string{"commit", "name", "semver", "tag", "branch"}

// folderVersion is the workload's version that the reconciler manifests of a folder name: the spec.ref of
// a Flux GitRepository ("flux:tag" and the tag, …) or the targetRevision of an Argo CD Application
// ("argocd"). Several are joined with ", ". Manifests that do not parse name no version: the folder is
// what Git holds, and its reconciler reports whether it applies.
type folderVersion struct{ Version, From string }

// folderVersions is the version of every folder tree Gather listed. A folder's tree id names all of its
// content, so the same workload at the same version on many cluster types (or environments) is read once.
func folderVersions(in *Input) map[string]folderVersion {
	memo := versionMemo{}
	out := make(map[string]folderVersion, len(in.Trees))
	for id, files := range in.Trees {
		out[id] = versionOf(files, in.Blobs, memo)
	}
	return out
}

func versionOf(files []gitrepo.TreeFile, blobs map[string][]byte, memo versionMemo) folderVersion {
	var versions, sources []string
	var seen map[string]bool
	for _, f := range files {
		if !manifest(f.Path) {
			continue
		}
		for _, v := range memo.of(f.Blob, blobs[f.Blob]) {
			if seen == nil {
				seen = map[string]bool{}
			}
			if v[0] == "" || seen[v[1]+"\x00"+v[0]] {
				continue
			}
			seen[v[1]+"\x00"+v[0]] = true
			versions, sources = append(versions, v[0]), append(sources, v[1])
		}
	}
	if len(versions) == 0 {
		return folderVersion{}
	}
	return folderVersion{Version: strings.Join(versions, ", "), From: strings.Join(dedupe(sources), ", ")}
}

// manifest tells the files whose content may name a version: the YAML manifests.
func manifest(p string) bool { return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") }

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

// versionMemo holds the versions each manifest names, by blob id: the same workload at the same version
// renders the same file on every cluster type that holds it, so a fleet parses a few hundred distinct
// files, not one per folder. One memo serves one Compute.
type versionMemo map[string][][2]string

// of is the versions (value, source) that the file with blob id and content b names.
func (m versionMemo) of(id string, b []byte) [][2]string {
	if v, ok := m[id]; ok {
		return v
	}
	if !bytes.Contains(b, []byte("GitRepository")) && !bytes.Contains(b, []byte("targetRevision")) {
		m[id] = nil
		return nil
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
	m[id] = out
	return out
}
