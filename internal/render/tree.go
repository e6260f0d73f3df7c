// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/parallel"
)

// The GitOps tree, as upstream writes it: a folder per cluster type holding README.md and a folder per
// deployment target placed on it, which holds reconciler.yaml, namespace.yaml and, unless empty,
// platform-config.yaml (or .sh). Every path of a Result.Files is one of
//
//	<clusterType>/README.md
//	<clusterType>/<deploymentTarget>/<file>
//
// and the engine builds and reads that layout only in this file (the provider narrows with Result.Only).

// readmePath is the path of a cluster type folder's README.md.
func readmePath(clusterType string) string { return clusterType + "/" + model.ReadmeFile }

// assignmentPath is the folder of a deployment target placed on a cluster type (Assignment.Path).
func assignmentPath(clusterType, target string) string { return clusterType + "/" + target }

// filePath is the path of a file in an assignment's folder.
func filePath(folder, file string) string { return folder + "/" + file }

// clusterTypeOf is the cluster type whose folder holds a path of the tree.
func clusterTypeOf(path string) string {
	ct, _, _ := strings.Cut(path, "/")
	return ct
}

// fileName is the name of the file a template writes in an assignment's folder: the platform config
// takes its extension from its template's content type.
func fileName(file, contentType string) string {
	if file != model.PlatformConfigFile {
		return file
	}
	if contentType == model.ContentTypeSh {
		return file + ".sh"
	}
	return file + ".yaml"
}

// writesFile reports whether a rendered file is written: reconciler.yaml and namespace.yaml always are,
// even empty; the platform config only when it is not empty (DESIGN.md §3, GitOps tree).
func writesFile(file, content string) bool {
	return file != model.PlatformConfigFile || content != ""
}

// fileContent joins the manifests a template rendered into one file, with a bare `---\n` and nothing
// else inserted.
func fileContent(manifests []string) string { return strings.Join(manifests, "---\n") }

// newTree starts the result of an environment with a README.md per cluster type.
func newTree(environment string, set *model.Set, assignments int) *Result {
	// Three files per assignment and a README per cluster type: sized once, the map never grows.
	res := &Result{Environment: environment, Files: make(map[string]string, 3*assignments+len(set.ClusterTypes)), PromotedCommit: set.PromotedCommit()}
	for _, ct := range set.ClusterTypes {
		res.ClusterTypes = append(res.ClusterTypes, ct.Metadata.Name)
		res.Files[readmePath(ct.Metadata.Name)] = model.ReadmeText
	}
	return res
}

// layoutTree adds every rendered, unskipped assignment and its files to the result's GitOps tree. It
// returns what it learnt on the way, which spares the content hash and the tree-size check a walk of
// the whole tree each (treeLayout).
func layoutTree(res *Result, assignments []Assignment, rendered []renderedAssignment) *treeLayout {
	kept, files := 0, 0
	for _, r := range rendered {
		if !r.skipped {
			kept++
			files += len(r.files)
		}
	}
	n := len(res.Files) + files
	lay := &treeLayout{paths: make([]string, 0, n), contents: make([]string, 0, n), shares: map[string]*workloadShare{}}
	// Each cluster type's README.md comes before its assignments' files, as it sorts before folders
	// named with a lower-case letter.
	readmes := 0
	readmesUpTo := func(ct string) {
		for ; readmes < len(res.ClusterTypes) && (ct == "" || res.ClusterTypes[readmes] <= ct); readmes++ {
			p := readmePath(res.ClusterTypes[readmes])
			lay.paths = append(lay.paths, p)
			lay.contents = append(lay.contents, res.Files[p])
			lay.bytes += int64(len(res.Files[p]))
		}
	}
	// Sized once (the slice grows from nil as before, so that no assignments stays nil).
	res.Assignments = slices.Grow(res.Assignments, kept)
	for i, r := range rendered {
		if r.skipped {
			continue
		}
		a := &assignments[i]
		res.Assignments = append(res.Assignments, *a)
		readmesUpTo(a.ClusterType)
		// An assignment's files are rendered in another order; sorted, most trees' paths are in order
		// already (assignments come by cluster type, then target).
		slices.SortFunc(r.files, func(a, b renderedFile) int { return strings.Compare(a.path, b.path) })
		var size int64
		for _, f := range r.files {
			res.Files[f.path] = f.content
			lay.paths = append(lay.paths, f.path)
			lay.contents = append(lay.contents, f.content)
			size += int64(len(f.content))
			lay.irregular = lay.irregular || folderOf(f.path) != a.Path
		}
		lay.bytes += size
		if len(r.files) > 0 {
			sh := lay.shares[a.Workload]
			if sh == nil {
				sh = &workloadShare{name: a.Workload}
				lay.shares[a.Workload] = sh
			}
			sh.bytes += size
			sh.files += int64(len(r.files))
		}
	}
	readmesUpTo("")
	return lay
}

// treeLayout is what layoutTree learns while it adds the files: every path of the tree, in the order
// it added them (almost always sorted), with its content (which spares the content hash a lookup in the
// tree per file), the bytes of all files and the bytes and files of each workload's folders. irregular is set when a file is not in its assignment's folder, which no render writes; the
// content hash and the tree-size check then read the tree itself.
type treeLayout struct {
	paths     []string
	contents  []string // contents[i] is the content of paths[i]; nil once paths are sorted apart from it
	bytes     int64
	shares    map[string]*workloadShare
	irregular bool
}

// workloadShare is the bytes and files of one workload's folders.
type workloadShare struct {
	name         string
	bytes, files int64
}

// sortedPaths returns the paths of files, sorted, and their contents when it has them: the layout's when
// they are exactly the tree's, which takes one comparison per path where they are in order, or else the
// tree's keys, sorted, and no contents.
func (lay *treeLayout) sortedPaths(files map[string]string) (paths, contents []string) {
	if lay != nil && !lay.irregular && len(lay.paths) == len(files) {
		paths, contents = lay.paths, lay.contents
		if !strictlyIncreasing(paths) {
			slices.Sort(paths)
			lay.contents, contents = nil, nil
		}
		// Every path of the layout is a key of files; as many distinct ones as files has keys are all of them.
		if strictlyIncreasing(paths) {
			return paths, contents
		}
	}
	return sortedPathsOf(files), nil
}

func strictlyIncreasing(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

func sortedPathsOf(files map[string]string) []string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// folderOf is the folder of the first two components of a path (an assignment's folder), or the path.
func folderOf(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		if j := strings.IndexByte(name[i+1:], '/'); j >= 0 {
			return name[:i+1+j]
		}
	}
	return name
}

// ContentHash is a SHA-256 over the sorted paths of a file map, each followed by the SHA-256 of its
// content. Hashing each file on its own lets every core take a share: at 100k assignments the tree is
// about 200 MB, and one sequential SHA-256 over it was the longest single-threaded step of a render.
func ContentHash(files map[string]string) string {
	return contentHash(files, sortedPathsOf(files), nil)
}

// contentHash is ContentHash with the sorted paths of files given, and their contents when contents is
// not nil.
func contentHash(files map[string]string, paths, contents []string) string {
	sums := make([][sha256.Size]byte, len(paths))
	const chunk = 256
	parallel.For((len(paths)+chunk-1)/chunk, 0, func(c int) {
		for i := c * chunk; i < len(paths) && i < (c+1)*chunk; i++ {
			if contents != nil {
				sums[i] = sha256.Sum256(stringBytes(contents[i]))
			} else {
				sums[i] = sha256.Sum256(stringBytes(files[paths[i]]))
			}
		}
	})
	h := sha256.New()
	for i, p := range paths {
		h.Write(stringBytes(p))
		h.Write([]byte{0})
		h.Write(sums[i][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// stringBytes views s as bytes without copying, for writers that only read (io.Writer must neither
// modify nor retain p): hashing a 100k-assignment tree would otherwise copy its 200 MB of content.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// TreeIndex groups a result's files and assignments by cluster type. A large fleet is delivered one
// cluster type at a time, narrowing the same render once per cluster type; with the index each
// narrowing copies its own folder instead of scanning the whole tree.
type TreeIndex struct {
	res         *Result
	files       map[string][]string // cluster type → the paths of its folder, README.md included
	assignments map[string][]int    // cluster type → indices into res.Assignments
}

// Index indexes the result by cluster type. The result must not change afterwards.
func (r *Result) Index() *TreeIndex {
	x := &TreeIndex{
		res:         r,
		files:       make(map[string][]string, len(r.ClusterTypes)),
		assignments: make(map[string][]int, len(r.ClusterTypes)),
	}
	for p := range r.Files {
		ct := clusterTypeOf(p)
		x.files[ct] = append(x.files[ct], p)
	}
	for i, a := range r.Assignments {
		x.assignments[a.ClusterType] = append(x.assignments[a.ClusterType], i)
	}
	return x
}

// Only narrows the result to the folders of the named cluster types; see TreeIndex.Only. To narrow one
// result several times, index it once with Index.
func (r *Result) Only(clusterTypes []string) (*Result, error) {
	return r.Index().Only(clusterTypes)
}

// Only narrows the indexed result to the folders of the named cluster types: assignments, files and
// ContentHash cover those folders only. ClusterTypes still lists every cluster type of the environment,
// so that it can drive a for_each, and Unscheduled stays environment-wide. Naming a cluster type the
// environment does not have is an error.
func (x *TreeIndex) Only(clusterTypes []string) (*Result, error) {
	known := make(map[string]bool, len(x.res.ClusterTypes))
	for _, ct := range x.res.ClusterTypes {
		known[ct] = true
	}
	wanted := map[string]bool{}
	var unknown []string
	for _, ct := range clusterTypes {
		if !known[ct] {
			unknown = append(unknown, fmt.Sprintf("%q", ct))
		}
		wanted[ct] = true
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s names %s, which %s not a cluster type of environment %q; the environment has %d cluster types",
			AttrOnlyClusterTypes, strings.Join(unknown, ", "), map[bool]string{true: "is", false: "are"}[len(unknown) == 1], x.res.Environment, len(x.res.ClusterTypes))
	}
	out := &Result{
		Environment: x.res.Environment, Files: map[string]string{}, Unscheduled: x.res.Unscheduled,
		ClusterTypes: x.res.ClusterTypes, PromotedCommit: x.res.PromotedCommit,
	}
	var indices []int
	for ct := range wanted {
		for _, p := range x.files[ct] {
			out.Files[p] = x.res.Files[p]
		}
		indices = append(indices, x.assignments[ct]...)
	}
	sort.Ints(indices) // the full list is sorted by cluster type, then deployment target
	out.Assignments = make([]Assignment, len(indices))
	for i, k := range indices {
		out.Assignments[i] = x.res.Assignments[k]
	}
	out.ContentHash = ContentHash(out.Files)
	return out, nil
}
