// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"fmt"
	pathpkg "path"
	"slices"
	"strings"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Action is what the apply does to one file.
type Action string

const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
)

const (
	// DefaultMaxChanges is how many files the change set lists by default; the counts always cover all.
	// The plan that lists a change and its apply carry each listed file through Terraform and the plugin
	// framework several times. (Until the provider read an applied change set as empty, issue 36, every later
	// plan did too: at 1,000 entries 0.8 s of every empty re-plan after a first apply, issue 22.)
	DefaultMaxChanges = 100
	// DefaultMaxDiffBytes cuts one file's diff (or a created file's content) in the change set.
	DefaultMaxDiffBytes = 16 << 10
)

// Change is one file of the change set.
type Change struct {
	Action Action
	// Diff is a unified diff for an update, the content for a create, and the removed content for a
	// delete (each cut past MaxDiffBytes, with a note).
	Diff string
}

// Counts are the numbers of files per action.
type Counts struct {
	Create, Update, Delete int
}

// String is "2 to create, 1 to update, 0 to delete", followed by how many files are not listed when omitted > 0.
func (c Counts) String(omitted int) string {
	s := fmt.Sprintf("%d to create, %d to update, %d to delete", c.Create, c.Update, c.Delete)
	if omitted > 0 {
		s += fmt.Sprintf(" (%d not listed in changes)", omitted)
	}
	return s
}

// Total is the number of changed files.
func (c Counts) Total() int { return c.Create + c.Update + c.Delete }

func (c *Counts) add(a Action) {
	switch a {
	case ActionCreate:
		c.Create++
	case ActionUpdate:
		c.Update++
	case ActionDelete:
		c.Delete++
	}
}

// Desired is what a resource wants under its path and at the repository root.
type Desired struct {
	// Path is the managed directory, root-relative ("" or "." for the root).
	Path string
	// Files are the managed files, relative to Path.
	Files map[string][]byte
	// RecordedTree, with Files nil, is the managed tree id the files are known to form (the last apply of
	// the same render inputs recorded it). Compute then needs no files while the branch holds that tree,
	// and returns ErrFilesNeeded otherwise.
	RecordedTree string
	// Built is gitrepo.NewTreeFromFiles(Files) when a plan in this process built it (Plan.Tree): the apply
	// writes it without building it again. With Files nil it is the tree an earlier plan kept in the
	// local store (RenderStore): Compute and the apply read the files' content from it.
	Built *gitrepo.Tree
	// RootFiles are written at root-relative paths (the promoted-commit file, the ownership record).
	RootFiles map[string][]byte
	// DeleteRootFiles are root-relative files removed when present.
	DeleteRootFiles []string
}

// Options bound the change set.
type Options struct {
	// MaxChanges is how many files Plan.Changes lists (the first ones by path). Zero: DefaultMaxChanges.
	MaxChanges int
	// MaxDiffBytes cuts each Diff. Zero: DefaultMaxDiffBytes.
	MaxDiffBytes int
}

// Plan is the change set between the branch and the desired tree.
type Plan struct {
	// Changes maps root-relative paths to their change, for at most Options.MaxChanges files.
	Changes map[string]Change
	// Counts cover every changed file, listed or not.
	Counts Counts
	// ByDirectory counts the changes per top-level directory under the path (a cluster type's folder in a
	// Kalypso GitOps repository); root files are not included.
	ByDirectory map[string]Counts
	// ByTarget counts the changes per second-level directory under the path (a deployment target's
	// folder, <cluster type>/<deployment target>/<file>), over every cluster type.
	ByTarget map[string]Counts
	// Omitted is the number of changed files not listed in Changes.
	Omitted int
	// CurrentFiles is the number of managed files under the path on the branch; DesiredFiles the number
	// the change leaves there (both 0 when the plan reused a recorded tree: nothing changes then).
	CurrentFiles, DesiredFiles int
	// DesiredTree is the managed tree id of the desired files (gitrepo.Tree.ID).
	DesiredTree string
	// BaseTree is the managed tree id of the path on the branch (gitrepo.Inspection.ManagedTree).
	BaseTree string
	// Markers lists the directories (root-relative) that hold another resource's ownership record: Compute
	// finds those below the path among the files it would delete, ReadBranch adds those above it.
	Markers []string
	// Tree is the desired tree built from the files (nil for a RecordedTree), for Desired.Built.
	Tree *gitrepo.Tree
	// BranchExists is false when the plan creates the branch (create_branch).
	BranchExists bool
	// Withdraws is true in pull-request mode when the plan was made against the head branch of an open
	// proposal and the base branch already holds the desired content: the apply writes nothing and closes
	// the proposal (proposal.go).
	Withdraws bool
	// Record is the ownership record at the path on the branch (nil when there is none): ReadBranch fills it.
	Record []byte
}

// Empty reports whether applying changes nothing.
func (p *Plan) Empty() bool { return p.Counts.Total() == 0 }

// Deleted is the number of managed files under the path the change deletes.
func (p *Plan) Deleted() int {
	n := 0
	for _, c := range p.ByDirectory {
		n += c.Delete
	}
	return n
}

// ErrFilesNeeded means that Desired.RecordedTree is not what the branch holds: the change set needs the files.
var ErrFilesNeeded = errors.New("the desired files are needed to compute the change set")

// BlobReader reads blobs of the inspected branch by id.
type BlobReader func(ids []string) (map[string][]byte, error)

type pending struct {
	path     string
	rel      string // the path relative to Desired.Path ("" for a root file)
	action   Action
	old, new string // blob ids
	content  []byte // desired content of a root file
	// gitlink is true for a submodule entry the change deletes: old is a commit of another repository.
	gitlink bool
}

// Compute returns the change set that turns what ins found into d. read is called once, for the old
// content of the listed updates and deletes. It runs in named steps: the deltas of the path's tree, their
// changes, the root files' changes, the listed ones, and their diffs.
func Compute(ins *gitrepo.Inspection, d Desired, opts Options, read BlobReader) (*Plan, error) {
	if opts.MaxChanges <= 0 {
		opts.MaxChanges = DefaultMaxChanges
	}
	if opts.MaxDiffBytes <= 0 {
		opts.MaxDiffBytes = DefaultMaxDiffBytes
	}
	p := &Plan{ByDirectory: map[string]Counts{}, BaseTree: ins.ManagedTree, BranchExists: ins.BranchExists}
	deltas, desiredFiles, err := p.deltas(ins, d)
	if err != nil {
		return nil, err
	}
	all := mergeByPath(p.pathChanges(deltas, d.Path, desiredFiles), rootChanges(ins, d))
	for _, c := range all {
		p.Counts.add(c.action)
	}
	listed := all
	if len(listed) > opts.MaxChanges {
		listed = listed[:opts.MaxChanges]
		p.Omitted = len(all) - opts.MaxChanges
	}
	if p.Changes, err = diffs(listed, ins, d, read, opts.MaxDiffBytes); err != nil {
		return nil, err
	}
	return p, nil
}

// deltas compares the path's tree with the desired one (d.Built, or built from d.Files as Plan.Tree)
// unless d.RecordedTree stands for it, and returns how many files the desired tree holds.
func (p *Plan) deltas(ins *gitrepo.Inspection, d Desired) ([]gitrepo.Delta, int, error) {
	if d.Files == nil && d.Built == nil && d.RecordedTree != "" {
		if d.RecordedTree != ins.ManagedTree {
			return nil, 0, ErrFilesNeeded
		}
		p.DesiredTree = d.RecordedTree
		return nil, 0, nil
	}
	want := d.Built
	if want == nil {
		var err error
		if want, err = gitrepo.NewTreeFromFiles(d.Files); err != nil {
			return nil, 0, err
		}
	}
	p.Tree, p.DesiredTree = want, want.ID()
	deltas, err := ins.Diff(want)
	return deltas, want.Len(), err
}

// pathChanges turns the deltas under dir into changes with root-relative paths, counts them per
// top-level directory, finds other resources' ownership records among the deletions, and counts the
// files the branch holds under dir.
func (p *Plan) pathChanges(deltas []gitrepo.Delta, dir string, desiredFiles int) []pending {
	all := make([]pending, 0, len(deltas))
	created, deleted := 0, 0
	for _, dl := range deltas {
		switch {
		case dl.Old.Hash == "":
			created++
			all = append(all, pending{path: dl.Path, rel: dl.Path, action: ActionCreate, new: dl.New})
		case dl.New == "":
			deleted++
			all = append(all, pending{path: dl.Path, action: ActionDelete, old: dl.Old.Hash, gitlink: dl.Old.Gitlink()})
			if base := pathpkg.Base(dl.Path); base == OwnerMarker {
				// Another resource's ownership record below this path: nothing desired has that name.
				p.Markers = append(p.Markers, join(dir, pathpkg.Dir(dl.Path)))
			}
		default:
			all = append(all, pending{path: dl.Path, rel: dl.Path, action: ActionUpdate, old: dl.Old.Hash, new: dl.New, gitlink: dl.Old.Gitlink()})
		}
	}
	// Files that stay are on both sides, so the branch holds the desired files less the new, plus the removed.
	p.CurrentFiles, p.DesiredFiles = desiredFiles-created+deleted, desiredFiles
	for i := range all {
		top, rest, _ := strings.Cut(all[i].path, "/")
		c := p.ByDirectory[top]
		c.add(all[i].action)
		p.ByDirectory[top] = c
		if target, _, ok := strings.Cut(rest, "/"); ok {
			if p.ByTarget == nil {
				p.ByTarget = map[string]Counts{}
			}
			t := p.ByTarget[target]
			t.add(all[i].action)
			p.ByTarget[target] = t
		}
		all[i].path = join(dir, all[i].path)
	}
	return all
}

// mergeByPath returns the changes of both lists sorted by path. The path's changes come sorted from the
// diff (900k of them in a first delivery at 300k assignments), the root files' are a few: they are sorted
// and merged in, instead of sorting all of them again.
func mergeByPath(path, root []pending) []pending {
	byPath := func(a, b pending) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(path, byPath) {
		slices.SortFunc(path, byPath)
	}
	if len(root) == 0 {
		return path
	}
	slices.SortFunc(root, byPath)
	out := make([]pending, 0, len(path)+len(root))
	i, j := 0, 0
	for i < len(path) && j < len(root) {
		if path[i].path < root[j].path {
			out, i = append(out, path[i]), i+1
		} else {
			out, j = append(out, root[j]), j+1
		}
	}
	return append(append(out, path[i:]...), root[j:]...)
}

// rootChanges are the changes of the root files (the promoted-commit file, the ownership record).
func rootChanges(ins *gitrepo.Inspection, d Desired) []pending {
	var all []pending
	for name, content := range d.RootFiles {
		cur, ok := ins.RootFiles[name]
		switch {
		case !ok:
			all = append(all, pending{path: name, action: ActionCreate, content: content})
		case string(cur) != string(content):
			all = append(all, pending{path: name, action: ActionUpdate, content: content})
		}
	}
	for _, name := range d.DeleteRootFiles {
		if _, ok := ins.RootFiles[name]; ok {
			all = append(all, pending{path: name, action: ActionDelete})
		}
	}
	return all
}

// diffs reads the old content of the listed updates and deletes in one call and makes each change's
// diff: the content of a created file, a unified diff for an update, the removed content for a delete
// (so that a reviewer and a policy see what leaves), each cut past limit.
func diffs(listed []pending, ins *gitrepo.Inspection, d Desired, read BlobReader, limit int) (map[string]Change, error) {
	var ids []string
	for _, c := range listed {
		if c.action != ActionCreate && c.old != "" && !c.gitlink {
			ids = append(ids, c.old)
		}
	}
	old := map[string][]byte{}
	if len(ids) > 0 {
		var err error
		if old, err = read(ids); err != nil {
			return nil, err
		}
	}
	out := make(map[string]Change, len(listed))
	for _, c := range listed {
		ch := Change{Action: c.action}
		if c.rel != "" {
			var err error
			if c.content, err = d.content(c.rel); err != nil {
				return nil, err
			}
		}
		before := string(old[c.old])
		switch {
		case c.gitlink: // no content in this repository: say what Git says of it
			before = gitrepo.GitlinkText(c.old)
		case c.old == "": // a root file: its old content came with the inspection
			before = string(ins.RootFiles[c.path])
		}
		switch c.action {
		case ActionCreate:
			ch.Diff = cut(string(c.content), limit, "writes")
		case ActionUpdate:
			ch.Diff = cut(UnifiedDiff(c.path, before, string(c.content)), limit, "writes")
		case ActionDelete:
			ch.Diff = cut(before, limit, "deletes")
		}
		out[c.path] = ch
	}
	return out, nil
}

// content is a desired file's content: from Files, or from the tree a plan loaded (TreeStore).
func (d Desired) content(rel string) ([]byte, error) {
	if d.Files != nil || d.Built == nil {
		return d.Files[rel], nil
	}
	return d.Built.File(rel)
}

// TreeID is the managed tree id of the desired files: what the branch holds under the path once they are
// delivered. It is the tree a plan built (Built), or computed from Files.
func (d Desired) TreeID() (string, error) {
	if d.Built != nil {
		return d.Built.ID(), nil
	}
	t, err := gitrepo.NewTreeFromFiles(d.Files)
	if err != nil {
		return "", err
	}
	return t.ID(), nil
}

// cut shortens s to at most limit bytes at a line end and says how much was left out, and that the apply
// still writes (or deletes) the whole file.
func cut(s string, limit int, verb string) string {
	if len(s) <= limit {
		return s
	}
	head := s[:limit]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	return fmt.Sprintf("%s[... cut: %d of %d bytes shown; the apply %s the whole file]\n", head, len(head), len(s), verb)
}
