// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
	"math"
	"reflect"
	"sync"
	"unsafe"
)

// A frozen config is one that nobody will ever modify: the renderer's composed configs, shared by every
// assignment that matches the same sources (Data.ConfigFrozen). toYaml of a frozen map is memoized by
// the map's identity, so the thousands of assignments that share it skip even the canonical encoding
// that the content memo needs, which walks and sorts the whole config.
//
// The registry, one per Engine (memos), holds each frozen map, so that its address cannot be reused by
// another map while its entry exists.
type frozenConfigs struct {
	sync.RWMutex
	entries map[unsafe.Pointer]*frozenEntry
}

// frozenLimit bounds the registry; when it is full, it starts again empty.
const frozenLimit = 1 << 14

type frozenEntry struct {
	config map[string]interface{}
	once   sync.Once
	yaml   string
	// size is valueSize of config, counted in full once: the argument guard of every function that
	// takes the config (toYaml .ConfigData) walked the whole map by reflection on every call.
	sizeOnce sync.Once
	size     int
}

func mapIdentity(m map[string]interface{}) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// freeze registers m as frozen.
func (f *frozenConfigs) freeze(m map[string]interface{}) {
	if m == nil {
		return
	}
	id := mapIdentity(m)
	f.RLock()
	_, ok := f.entries[id]
	f.RUnlock()
	if ok {
		return
	}
	f.Lock()
	defer f.Unlock()
	if _, ok := f.entries[id]; ok {
		return
	}
	if len(f.entries) >= frozenLimit {
		f.entries = map[unsafe.Pointer]*frozenEntry{}
	}
	f.entries[id] = &frozenEntry{config: m}
}

// entryOf returns the registry's entry for v when v is a frozen map, or nil.
func (f *frozenConfigs) entryOf(v interface{}) *frozenEntry {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return nil
	}
	f.RLock()
	e := f.entries[mapIdentity(m)]
	f.RUnlock()
	return e
}

// uncountedSize is a limit for valueSize that no value reaches: it counts the whole value. A value
// nested too deeply still counts as more than any real limit (uncountedSize+1).
const uncountedSize = math.MaxInt / 4

// size returns valueSize(reflect.ValueOf(v), limit, 0) as its callers use it, and true, when v is
// a frozen map: the full size, which is more than limit exactly when valueSize with that limit is (a
// truncated count stops only once it is past its limit).
func (f *frozenConfigs) size(v interface{}) (int, bool) {
	e := f.entryOf(v)
	if e == nil {
		return 0, false
	}
	e.sizeOnce.Do(func() { e.size = valueSize(reflect.ValueOf(e.config), uncountedSize, 0) })
	return e.size, true
}

// yaml returns toYaml of v, through memo, and true when v is a frozen map.
func (f *frozenConfigs) yaml(v interface{}, memo *yamlMemo) (string, bool) {
	e := f.entryOf(v)
	if e == nil {
		return "", false
	}
	e.once.Do(func() { e.yaml = memo.toYAML(e.config) })
	return e.yaml, true
}
