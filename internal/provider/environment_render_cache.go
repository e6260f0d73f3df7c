// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
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

	// tree indexes res by cluster type once, for the many calls that each narrow it to one.
	indexOnce sync.Once
	tree      *render.TreeIndex

	// kalypso_gitops_commit's apply walk plans (ModifyPlan) and then applies (Create, Update) in one
	// provider process, on the same cached render: its files are converted once, and the tree the plan
	// built is kept for the apply.
	filesOnce sync.Once
	files     map[string][]byte
	builtMu   sync.Mutex
	built     *gitrepo.Tree
}

// renderCache is the renders of Caches and the engine that renders them.
type renderCache struct {
	engine  *render.Engine
	mu      sync.Mutex
	entries map[renderKey]*cachedRender
	order   []renderKey // least recently used first
}

func newRenderCache(engine *render.Engine) *renderCache {
	return &renderCache{engine: engine, entries: map[renderKey]*cachedRender{}}
}

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
	write(fmt.Sprint(opts.Timeout, opts.TemplateTimeout, opts.MaxTemplateOutput, opts.MaxOutput, opts.SchemaMaxDepth, opts.SchemaMaxBytes))
	for _, m := range manifests {
		write(m)
	}
	var k renderKey
	copy(k[:], h.Sum(nil))
	return k
}

// has reports whether the cache holds (or is computing) the render of key.
func (c *renderCache) has(k renderKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[k]
	return ok
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
	e.res, e.diags = c.engine.Render(environment, manifests, opts)
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

// only narrows the render to the folders of the named cluster types (render.TreeIndex.Only), indexing
// it on the first call.
func (e *cachedRender) only(clusterTypes []string) (*render.Result, error) {
	e.indexOnce.Do(func() { e.tree = e.res.Index() })
	return e.tree.Only(clusterTypes)
}

// renders returns the render cache of c, or for nil caches (a test's hand-built ProviderData) one of
// its own that holds nothing beyond this call.
func (c *Caches) renderCache() *renderCache {
	if c == nil {
		return newRenderCache(render.NewEngine())
	}
	return c.renders
}

// renderCached renders through c's cache, narrowed to only's cluster types unless only is nil.
func (c *Caches) renderCached(environment string, manifests []string, opts render.Options, only []string) (*render.Result, model.Diagnostics, error) {
	e := c.renderCache().render(environment, manifests, opts)
	if e.diags.HasError() || only == nil {
		return e.res, e.diags, nil
	}
	res, err := e.only(only)
	return res, e.diags, err
}

// deliveryFiles is the render's files as the delivery takes them, converted on the first call.
func (e *cachedRender) deliveryFiles() map[string][]byte {
	e.filesOnce.Do(func() {
		e.files = make(map[string][]byte, len(e.res.Files))
		for p, c := range e.res.Files {
			// No copy: the render's strings are immutable and outlive the map, and the delivery only reads
			// them. (A whole environment is 160 MiB of files; copying it cost a second per plan.)
			e.files[p] = unsafe.Slice(unsafe.StringData(c), len(c))
			if c == "" {
				e.files[p] = []byte{}
			}
		}
	})
	return e.files
}

// rememberTree records the tree a plan built of deliveryFiles; builtTree returns it (nil when none). A nil
// entry (files mode) has none.
func (e *cachedRender) rememberTree(t *gitrepo.Tree) {
	if e != nil && t != nil {
		e.builtMu.Lock()
		defer e.builtMu.Unlock()
		e.built = t
	}
}

func (e *cachedRender) builtTree() *gitrepo.Tree {
	if e == nil {
		return nil
	}
	e.builtMu.Lock()
	defer e.builtMu.Unlock()
	return e.built
}
