// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/render"
)

// A large fleet is delivered per cluster type: `for_each` over the cluster types, each instance calling
// environment_render with `only_cluster_types = [each.key]`. Terraform makes one call per instance, all
// with the same environment and manifests, so the provider process keeps its last renders and each
// call only filters. Concurrent calls for the same input wait for one render instead of repeating it.

// renderCacheEntries bounds the cache: a plan usually renders one or two environments at a time, and
// a 100k-assignment render holds a few hundred MB.
const renderCacheEntries = 2

type renderKey [sha256.Size]byte

type cachedRender struct {
	done  chan struct{}
	res   *render.Result
	diags model.Diagnostics

	indexOnce sync.Once
	// filesByClusterType lists the paths of each cluster type's folder, README.md included.
	filesByClusterType map[string][]string
	assignmentsByCT    map[string][]int
}

type renderCache struct {
	mu      sync.Mutex
	entries map[renderKey]*cachedRender
	order   []renderKey // least recently used first
}

var sharedRenderCache = &renderCache{entries: map[renderKey]*cachedRender{}}

func renderCacheKey(environment string, manifests []string, opts render.Options) renderKey {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	write := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	write(environment)
	write(opts.ConfigValidation)
	// A render that failed on a limit may succeed under a raised one.
	write(fmt.Sprint(opts.Timeout, opts.TemplateTimeout, opts.MaxTemplateOutput, opts.MaxOutput))
	for _, m := range manifests {
		write(m)
	}
	var k renderKey
	copy(k[:], h.Sum(nil))
	return k
}

// render returns the cached render of the input, rendering it on a miss. The result is shared: callers
// must not modify it.
func (c *renderCache) render(environment string, manifests []string, opts render.Options) *cachedRender {
	k := renderCacheKey(environment, manifests, opts)
	c.mu.Lock()
	if e, ok := c.entries[k]; ok {
		c.touch(k)
		c.mu.Unlock()
		<-e.done
		logRender(opts, "render reused from the provider's cache", environment, manifests, e, time.Time{})
		return e
	}
	e := &cachedRender{done: make(chan struct{})}
	c.entries[k] = e
	c.order = append(c.order, k)
	for len(c.order) > renderCacheEntries {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.mu.Unlock()

	start := time.Now()
	e.res, e.diags = render.Render(environment, manifests, opts)
	close(e.done)
	logRender(opts, "render", environment, manifests, e, start)
	if stoppedEarly(e.diags) {
		// A canceled or timed-out render says nothing about the input: the next call renders again.
		c.mu.Lock()
		if c.entries[k] == e {
			delete(c.entries, k)
			for i, o := range c.order {
				if o == k {
					c.order = append(c.order[:i:i], c.order[i+1:]...)
					break
				}
			}
		}
		c.mu.Unlock()
	}
	return e
}

// logRender writes a render's sizes and timing to Terraform's debug log: the environment, the input's
// size, what came out and how long it took. No content is logged: a manifest may hold anything.
func logRender(opts render.Options, msg, environment string, manifests []string, e *cachedRender, start time.Time) {
	if opts.Context == nil {
		return
	}
	inBytes := 0
	for _, m := range manifests {
		inBytes += len(m)
	}
	fields := map[string]any{
		"environment": environment, "manifests": len(manifests), "manifest_bytes": inBytes,
		"errors": len(e.diags.Errors()), "warnings": len(e.diags.Warnings()),
	}
	if !start.IsZero() {
		fields["duration_ms"] = time.Since(start).Milliseconds()
	}
	if e.res != nil {
		outBytes := 0
		for _, f := range e.res.Files {
			outBytes += len(f)
		}
		fields["cluster_types"], fields["assignments"], fields["files"], fields["file_bytes"] = len(e.res.ClusterTypes), len(e.res.Assignments), len(e.res.Files), outBytes
		fields["unscheduled_deployment_targets"] = len(e.res.Unscheduled)
	}
	tflog.Debug(opts.Context, msg, fields)
}

// stoppedEarly reports a render that Terraform canceled or that ran past its whole-render deadline.
func stoppedEarly(diags model.Diagnostics) bool {
	for _, d := range diags {
		if d.Summary == render.SummaryRenderCanceled || (d.Summary == render.SummaryRenderLimit && d.Kind == "") {
			return true
		}
	}
	return false
}

func (c *renderCache) touch(k renderKey) {
	for i, o := range c.order {
		if o == k {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), k)
			return
		}
	}
}

func (e *cachedRender) index() {
	e.indexOnce.Do(func() {
		e.filesByClusterType = make(map[string][]string, len(e.res.ClusterTypes))
		for p := range e.res.Files {
			ct, _, _ := strings.Cut(p, "/")
			e.filesByClusterType[ct] = append(e.filesByClusterType[ct], p)
		}
		e.assignmentsByCT = make(map[string][]int, len(e.res.ClusterTypes))
		for i, a := range e.res.Assignments {
			e.assignmentsByCT[a.ClusterType] = append(e.assignmentsByCT[a.ClusterType], i)
		}
	})
}

// only narrows a render to the folders of the named cluster types: assignments, files and content_hash
// cover those folders only. cluster_types still lists every cluster type of the environment, so that it
// can drive for_each, and unscheduled_deployment_targets stays environment-wide.
func (e *cachedRender) only(clusterTypes []string) (*render.Result, error) {
	e.index()
	known := make(map[string]bool, len(e.res.ClusterTypes))
	for _, ct := range e.res.ClusterTypes {
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
		return nil, fmt.Errorf("only_cluster_types names %s, which %s not a cluster type of environment %q; the environment has %d cluster types",
			strings.Join(unknown, ", "), map[bool]string{true: "is", false: "are"}[len(unknown) == 1], e.res.Environment, len(e.res.ClusterTypes))
	}
	out := &render.Result{
		Environment: e.res.Environment, Files: map[string]string{}, Unscheduled: e.res.Unscheduled,
		ClusterTypes: e.res.ClusterTypes, PromotedCommit: e.res.PromotedCommit,
	}
	var indices []int
	for ct := range wanted {
		for _, p := range e.filesByClusterType[ct] {
			out.Files[p] = e.res.Files[p]
		}
		indices = append(indices, e.assignmentsByCT[ct]...)
	}
	sort.Ints(indices) // the full list is sorted by cluster type, then deployment target
	out.Assignments = make([]render.Assignment, len(indices))
	for i, k := range indices {
		out.Assignments[i] = e.res.Assignments[k]
	}
	out.ContentHash = render.ContentHash(out.Files)
	return out, nil
}

// renderCached renders through the shared cache, narrowed to only's cluster types unless only is nil.
func renderCached(environment string, manifests []string, opts render.Options, only []string) (*render.Result, model.Diagnostics, error) {
	e := sharedRenderCache.render(environment, manifests, opts)
	if e.diags.HasError() || only == nil {
		return e.res, e.diags, nil
	}
	res, err := e.only(only)
	return res, e.diags, err
}
