// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Every plan reads the branch twice (the refresh, then the plan against the branch), each in a new
// provider process, and reading the first object of a repository makes go-git index the whole pack by
// offset: 0.1-0.2 s of CPU per read for an environment of 260k files, most of an empty re-plan's own
// work. What Inspect finds without ListFiles is a function of the commit alone (Git objects never
// change), so an inspectMemo keeps it on local disk, one record per repository, path and request, and
// the next read of the same commit needs no object at all. Writes never use it: the apply reads the
// branch itself and writes only onto the tree its plan was computed against.

// inspectMemoRecords bounds the records an InspectionDir keeps (two per resource, of a few hundred bytes
// each): the oldest go first.
const inspectMemoRecords = 512

// inspectMemoVersion changes when the record's meaning changes: older records are then ignored.
const inspectMemoVersion = "2"

// inspectRecord is what an Inspection without ListFiles holds besides the branch head.
type inspectRecord struct {
	Version     string            `json:"version"`
	Commit      string            `json:"commit"`
	ManagedTree string            `json:"managed_tree"`
	Sub         string            `json:"sub"`
	RootFiles   map[string][]byte `json:"root_files"`
	Markers     []string          `json:"markers"`
	PathFile    string            `json:"path_file"`
	CaseTwin    string            `json:"case_twin,omitempty"`
}

// inspectMemoPath is the record file of req in c.InspectionDir, or "" when there is no memo for it.
func (c *Client) inspectMemoPath(req InspectRequest, dir string) string {
	if c.InspectionDir == "" || req.ListFiles {
		return ""
	}
	roots := slices.Clone(req.RootFiles)
	slices.Sort(roots)
	h := sha256.Sum256([]byte(strings.Join(append([]string{inspectMemoVersion, c.RepositoryKey(req.RepoURL), dir, req.Marker}, roots...), "\x00")))
	return filepath.Join(c.InspectionDir, hex.EncodeToString(h[:])+".json")
}

// recall fills out from the record at p when it was taken at commit head; false when there is none
// (missing, unreadable, of another commit or malformed: the caller reads the branch).
func recallInspection(p string, head plumbing.Hash, out *Inspection) bool {
	if p == "" {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var r inspectRecord
	if json.Unmarshal(b, &r) != nil || r.Version != inspectMemoVersion || r.Commit != head.String() {
		return false
	}
	if !isStoredID(r.ManagedTree) || (r.Sub != "" && !isStoredID(r.Sub)) {
		return false
	}
	out.ManagedTree, out.Markers, out.PathFile, out.CaseTwin = r.ManagedTree, r.Markers, r.PathFile, r.CaseTwin
	if r.Sub != "" {
		out.sub = plumbing.NewHash(r.Sub)
	}
	for name, content := range r.RootFiles {
		out.RootFiles[name] = content
	}
	return true
}

// keepInspection writes the record of out, read at commit head, to p; a failure only costs the next
// read its speed.
func keepInspection(p string, head plumbing.Hash, out *Inspection) {
	if p == "" {
		return
	}
	r := inspectRecord{Version: inspectMemoVersion, Commit: head.String(), ManagedTree: out.ManagedTree, RootFiles: out.RootFiles, Markers: out.Markers, PathFile: out.PathFile, CaseTwin: out.CaseTwin}
	if !out.sub.IsZero() {
		r.Sub = out.sub.String()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	if WriteFileAtomic(p, b) == nil {
		TrimOldest(filepath.Dir(p), inspectMemoRecords)
	}
}

// isStoredID reports whether s is an object id as this package writes them (treestore.go checks the same).
func isStoredID(s string) bool { return len(s) == hashHexSize && plumbing.IsHash(s) }
