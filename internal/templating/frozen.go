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
// The registry holds each frozen map, so that its address cannot be reused by another map while its
// entry exists.
var frozenConfigs = struct {
	sync.RWMutex
	entries map[unsafe.Pointer]*frozenEntry
}{entries: map[unsafe.Pointer]*frozenEntry{}}

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
func freeze(m map[string]interface{}) {
	if m == nil {
		return
	}
	id := mapIdentity(m)
	frozenConfigs.RLock()
	_, ok := frozenConfigs.entries[id]
	frozenConfigs.RUnlock()
	if ok {
		return
	}
	frozenConfigs.Lock()
	defer frozenConfigs.Unlock()
	if _, ok := frozenConfigs.entries[id]; ok {
		return
	}
	if len(frozenConfigs.entries) >= frozenLimit {
		frozenConfigs.entries = map[unsafe.Pointer]*frozenEntry{}
	}
	frozenConfigs.entries[id] = &frozenEntry{config: m}
}

// frozenEntryOf returns the registry's entry for v when v is a frozen map, or nil.
func frozenEntryOf(v interface{}) *frozenEntry {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return nil
	}
	frozenConfigs.RLock()
	e := frozenConfigs.entries[mapIdentity(m)]
	frozenConfigs.RUnlock()
	return e
}

// uncountedSize is a limit for valueSize that no value reaches: it counts the whole value. A value
// nested too deeply still counts as more than any real limit (uncountedSize+1).
const uncountedSize = math.MaxInt / 4

// frozenSize returns valueSize(reflect.ValueOf(v), limit, 0) as its callers use it, and true, when v is
// a frozen map: the full size, which is more than limit exactly when valueSize with that limit is (a
// truncated count stops only once it is past its limit).
func frozenSize(v interface{}) (int, bool) {
	e := frozenEntryOf(v)
	if e == nil {
		return 0, false
	}
	e.sizeOnce.Do(func() { e.size = valueSize(reflect.ValueOf(e.config), uncountedSize, 0) })
	return e.size, true
}

// frozenYAML returns toYaml of v and true when v is a frozen map.
func frozenYAML(v interface{}) (string, bool) {
	e := frozenEntryOf(v)
	if e == nil {
		return "", false
	}
	e.once.Do(func() { e.yaml = memoizedToYAML(e.config) })
	return e.yaml, true
}
