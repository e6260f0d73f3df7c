// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The hold of a rollout, folder by folder. A rollout writes one wave at a time, so the tree a plan writes
// is the configuration's content in the admitted wave's folders and the branch's everywhere else: after a
// rollback that changed the folders of several waves, that tree is never the tree the rollback replaced,
// and a hold that compares whole trees would let the first wave receive the failed content again. With a
// rollout, the hold therefore records each cluster-type folder the rollback changed (the content that
// failed there and the content it restored), and decides per folder:
//   - a folder whose desired content is still the content that failed stays held: the plan keeps the
//     branch's content there, whatever wave is admitted;
//   - a folder whose desired content is other content is released, and the waves write it as any change;
//   - a held folder leaves the hold once an apply writes other content there (only a released folder can
//     be written), and the hold ends when no folder is left; release_hold = true releases every folder at
//     once, on purpose.
// The files directly under path count as one more folder, named "". Without a rollout, the hold compares
// whole trees (rollback.go): a plan writes the whole desired tree at once.

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// HeldFolder is a folder a rollback changed: the digests (FolderDigests) of the content that failed there
// and of the content the rollback restored. "" is the digest of an absent folder. EarlierFailed are the
// contents that failed there before, when a rollback rolled the folder back further: each stays held.
type HeldFolder struct {
	Failed        string   `json:"failed"`
	Restored      string   `json:"restored"`
	EarlierFailed []string `json:"earlier_failed,omitempty"`
}

// holds reports whether the folder is held while it renders desired: one of the contents that failed there.
func (f HeldFolder) holds(desired string) bool {
	if desired == f.Failed {
		return true
	}
	for _, d := range f.EarlierFailed {
		if desired == d {
			return true
		}
	}
	return false
}

// FolderDigests digests the content of each cluster-type folder ("" for the files directly under path)
// from the blob id of each file (relative to path): the names and contents, not the modes. A folder
// without files has no digest.
func FolderDigests(blobs map[string]string) map[string]string {
	rels := make([]string, 0, len(blobs))
	for rel := range blobs {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	lists := map[string]*strings.Builder{}
	for _, rel := range rels {
		ct := clusterTypeOf(rel)
		b := lists[ct]
		if b == nil {
			b = &strings.Builder{}
			lists[ct] = b
		}
		b.WriteString(strings.TrimPrefix(rel, ct+"/"))
		b.WriteByte(0)
		b.WriteString(blobs[rel])
		b.WriteByte('\n')
	}
	out := make(map[string]string, len(lists))
	for ct, b := range lists {
		sum := sha256.Sum256([]byte(b.String()))
		out[ct] = hex.EncodeToString(sum[:])
	}
	return out
}

// fileBlobs are the blob ids of desired files.
func fileBlobs(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for rel, content := range files {
		out[rel] = gitrepo.BlobID(content)
	}
	return out
}

// branchBlobs are the blob ids of the managed files a branch holds.
func branchBlobs(ins *gitrepo.Inspection) map[string]string {
	out := make(map[string]string, len(ins.Managed))
	for rel, e := range ins.Managed {
		out[rel] = e.Hash
	}
	return out
}

// HoldFolders is the folders a rollback holds: each folder it changed, from the content before it
// (before) to the content it wrote (after), and the folders an earlier hold (earlier, nil for none) held
// that this rollback left as that hold restored them: a rollback that a rollout writes wave by wave holds,
// after its last wave, every folder it changed on the way. Nil when it changed no folder.
func HoldFolders(earlier *Hold, before, after map[string]string) map[string]HeldFolder {
	out := map[string]HeldFolder{}
	if earlier != nil {
		for ct, f := range earlier.Folders {
			if after[ct] == f.Restored {
				out[ct] = f
			}
		}
	}
	changed := func(ct string) {
		f := HeldFolder{Failed: before[ct], Restored: after[ct]}
		var e HeldFolder
		var ok bool
		if earlier != nil {
			e, ok = earlier.Folders[ct]
		}
		if ok { // rolled back further: what failed there before stays held
			for _, d := range append(append([]string{}, e.EarlierFailed...), e.Failed) {
				if d != f.Failed && d != f.Restored && !slices.Contains(f.EarlierFailed, d) {
					f.EarlierFailed = append(f.EarlierFailed, d)
				}
			}
		}
		out[ct] = f
	}
	for ct, was := range before {
		if after[ct] != was {
			changed(ct)
		}
	}
	for ct := range after {
		if _, ok := before[ct]; !ok {
			changed(ct) // the rollback restored a folder the failed tree did not have
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// PerFolder reports whether h decides folder by folder: with a rollout, for a hold that recorded its
// folders (an older record compares whole trees).
func (h *Hold) PerFolder(rolling bool) bool {
	return rolling && h != nil && len(h.Folders) > 0
}

// HeldFolders are the folders h holds while the configuration renders desired (FolderDigests of the
// desired files): those whose desired content is still the content that failed there. Nil for none.
func (h *Hold) HeldFolders(desired map[string]string) map[string]bool {
	var out map[string]bool
	for ct, f := range h.Folders {
		if f.holds(desired[ct]) {
			if out == nil {
				out = map[string]bool{}
			}
			out[ct] = true
		}
	}
	return out
}

// After is the hold after an apply that is no rollback and left the managed tree with the folders
// written (FolderDigests): the folders it did not write stay held, as their rollback restored them; nil
// when none is left.
func (h *Hold) After(written map[string]string) *Hold {
	if h == nil || len(h.Folders) == 0 {
		return nil
	}
	kept := map[string]HeldFolder{}
	for ct, f := range h.Folders {
		if written[ct] == f.Restored {
			kept[ct] = f
		}
	}
	if len(kept) == 0 {
		return nil
	}
	out := *h
	out.Folders = kept
	return &out
}

// folderNames lists held folders for a message: sorted, "" spelled as the files directly under path.
func folderNames(held map[string]bool) string {
	names := make([]string, 0, len(held))
	for ct := range held {
		if ct == "" {
			ct = "(the files directly under path)"
		}
		names = append(names, ct)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
