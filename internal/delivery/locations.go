// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Locations records, for one provider configuration, where the resources of one plan deliver: a
// repository (gitrepo.RepositoryKey), a branch and a path. The ownership records on the branch
// (OwnerMarker) catch an overlap with a resource that was applied; two resources created in the same
// plan have written no record yet, so each plan claims its location here, and the second of two
// overlapping claims is refused. Plans of all resources run in one provider process, and the claims of
// one plan are made by the provider configuration's own instance, so nothing outlives the plan.
type Locations struct {
	mu     sync.Mutex
	claims map[string][]claim // by repository key and branch
	// applied holds the locations a create wrote in this process (repository key, branch and path):
	// with create_before_destroy, the destroy of the replaced object comes after it (Applied).
	applied map[string]bool
	// handedOver holds the locations the destroy of a replaced object left to its replacement (HandOver).
	handedOver map[string]bool
}

// HandOver records that the destroy of a replaced object left path of branch in the repository key to the
// create that replaces it, in this process.
func (l *Locations) HandOver(repoKey, branch, path string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handedOver == nil {
		l.handedOver = map[string]bool{}
	}
	l.handedOver[repoKey+"\x00"+branch+"\x00"+path] = true
}

// HandedOver reports whether a destroy handed exactly that location over in this process.
func (l *Locations) HandedOver(repoKey, branch, path string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.handedOver[repoKey+"\x00"+branch+"\x00"+path]
}

// Applied records that a create wrote path of branch in the repository key in this process.
func (l *Locations) Applied(repoKey, branch, path string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.applied == nil {
		l.applied = map[string]bool{}
	}
	l.applied[repoKey+"\x00"+branch+"\x00"+path] = true
}

// WasApplied reports whether a create wrote exactly that location in this process: the object a
// create_before_destroy replacement destroys after it holds no files of its own any more.
func (l *Locations) WasApplied(repoKey, branch, path string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applied[repoKey+"\x00"+branch+"\x00"+path]
}

type claim struct {
	path    string // cleaned, "" for the root
	id      string // the resource's id, as the user spelled its location
	content string // the desired tree (content_hash) once Deliver has recorded it
}

// Claim records that the resource id delivers to path of branch in the repository key, or returns the
// refusal when another resource of this plan delivers to the same path, or to one that contains it or
// lies inside it. The message is the same whichever of the two claims first.
func (l *Locations) Claim(repoKey, branch, path, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claims == nil {
		l.claims = map[string][]claim{}
	}
	k := repoKey + "\x00" + branch
	for _, c := range l.claims[k] {
		if c.id == id && c.path == path {
			// Terraform may plan one resource more than once in a walk, and the provider is not told which
			// resource it plans: a claim of the same location by the same spelling is taken for the same
			// resource. (Two resources spelled exactly alike are not caught here, nor by the records.)
			return nil
		}
		if !Overlaps(c.path, path) && Overlaps(strings.ToLower(c.path), strings.ToLower(path)) {
			ids := []string{c.id, id}
			sort.Strings(ids)
			return fmt.Errorf("two kalypso_gitops_commit resources of this configuration deliver to paths of branch %q that differ only in letter case: "+
				"%s and %s. A checkout on Windows or macOS holds one directory for both, so their files would mix there. Nothing was written. "+
				"Give each resource a directory whose name differs in more than case", branch, ids[0], ids[1])
		}
		if Overlaps(c.path, path) {
			ids := []string{c.id, id}
			sort.Strings(ids)
			return fmt.Errorf("two kalypso_gitops_commit resources of this configuration deliver to overlapping paths of branch %q: %s and %s. "+
				"Each would delete the other's files on every apply, and clusters prune what is deleted. Nothing was written. Give each resource "+
				"its own directory (for example clusters/a and clusters/b), or merge them into one resource", branch, ids[0], ids[1])
		}
	}
	l.claims[k] = append(l.claims[k], claim{path: path, id: id})
	return nil
}

// Overlaps reports whether one cleaned path ("" for the root) is the other or contains it.
func Overlaps(a, b string) bool {
	if a == b || a == "" || b == "" {
		return true
	}
	return strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// Deliver records the desired tree (content_hash) of the claim of id at path. Two resources spelled
// exactly alike are one claim (Claim cannot tell them from one resource planned twice), but a resource
// planned twice in one plan renders the same tree: a second, different tree for the same location is a
// second resource, and it is refused. Two alike resources with the same tree write the same files and
// are left alone.
func (l *Locations) Deliver(repoKey, branch, path, id, content string) error {
	if content == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cs := l.claims[repoKey+"\x00"+branch]
	for i := range cs {
		c := &cs[i]
		if c.id != id || c.path != path {
			continue
		}
		if c.content == "" {
			c.content = content
			return nil
		}
		if c.content != content {
			return fmt.Errorf("two kalypso_gitops_commit resources of this configuration deliver different files to the same location %s (branch %q). "+
				"Each would replace the other's files on every apply, and clusters prune what is deleted. Nothing was written. Give each resource "+
				"its own directory, or merge them into one resource", id, branch)
		}
		return nil
	}
	return nil
}
