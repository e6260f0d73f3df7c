// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// FolderLog is a branch's first-parent history read for the folders two levels under a path (in a GitOps
// tree: <cluster type>/<deployment target>), with which commit last changed each folder the head holds.
type FolderLog struct {
	// Commits are the commits read, newest first, each with the content of the file asked for.
	Commits []LogEntry
	// Folders maps each folder of the head ("<cluster type>/<deployment target>", relative to the path) to
	// its Git tree id: equal ids, equal content.
	Folders map[string]string
	// Changed is, per folder of the head, the position in Commits of the commit that last changed it (the
	// oldest commit from the head on that holds it as the head does). A folder that every commit read holds
	// alike is absent, unless the history reaches the branch's first commit (Complete).
	Changed  map[string]int
	Complete bool
}

// LogFolders reads up to limit commits of branch's first-parent history under dir (a cleaned path, "" for
// the root), each with the content of file ("" reads none), and tells which commit last changed each
// folder two levels under dir. A commit whose cluster type folder has the head's tree id is not opened
// further, so a long history of changes to a few folders costs what those folders cost.
func (c *Client) LogFolders(ctx context.Context, repoURL, branch, dir string, limit int, file string) (*FolderLog, error) {
	return withCacheRecovery(ctx, c, repoURL, func() (*FolderLog, error) {
		return c.logFolders(ctx, repoURL, branch, dir, limit, file)
	})
}

func (c *Client) logFolders(ctx context.Context, repoURL, branch, dir string, limit int, file string) (*FolderLog, error) {
	opErr := func(err error) error {
		return &Error{Op: "read", Repo: repoURL, Branch: branch, Path: displayPath(dir), Err: c.scrub().Error(err)}
	}
	out := &FolderLog{Folders: map[string]string{}, Changed: map[string]int{}}
	// alive holds, per cluster type folder of the head, its tree id and the folders under it whose content
	// every commit read so far holds as the head does.
	type group struct {
		id      string
		folders map[string]string
	}
	alive := map[string]*group{}
	complete, err := c.walkFirstParent(ctx, repoURL, branch, limit, opErr, func(s *session, cm *object.Commit) error {
		pos := len(out.Commits)
		e, err := logEntry(cm, file)
		if err != nil {
			return err
		}
		out.Commits = append(out.Commits, e)
		types, err := subdirIDs(s.repo.Storer, cm.TreeHash, dir)
		if err != nil {
			return err
		}
		if pos == 0 {
			for ct, id := range types {
				sub, err := subdirIDs(s.repo.Storer, plumbing.NewHash(id), "")
				if err != nil {
					return err
				}
				g := &group{id: id, folders: map[string]string{}}
				for dt, fid := range sub {
					out.Folders[ct+"/"+dt] = fid
					g.folders[dt] = fid
				}
				alive[ct] = g
			}
		} else {
			for ct, g := range alive {
				if types[ct] == g.id {
					continue
				}
				var sub map[string]string
				if id, ok := types[ct]; ok {
					if sub, err = subdirIDs(s.repo.Storer, plumbing.NewHash(id), ""); err != nil {
						return err
					}
				}
				for dt, fid := range g.folders {
					if sub[dt] != fid {
						// The previous (newer) commit is the oldest that holds this folder as the head does.
						out.Changed[ct+"/"+dt] = pos - 1
						delete(g.folders, dt)
					}
				}
				if len(g.folders) == 0 {
					delete(alive, ct)
				} else {
					// Compare the next commit against this one's id: folders still alive are equal here.
					g.id = types[ct]
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.Complete = complete; complete {
		for ct, g := range alive {
			for dt := range g.folders {
				out.Changed[ct+"/"+dt] = len(out.Commits) - 1
			}
		}
	}
	return out, nil
}

// subdirIDs maps the directories directly under dir of the tree root to their tree ids (empty when dir is absent).
func subdirIDs(s storer.EncodedObjectStorer, root plumbing.Hash, dir string) (map[string]string, error) {
	t, err := object.GetTree(s, root)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if t, err = t.Tree(dir); errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return map[string]string{}, nil
		} else if err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(t.Entries))
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			out[e.Name] = e.Hash.String()
		}
	}
	return out, nil
}
