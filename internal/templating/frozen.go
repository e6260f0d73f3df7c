// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

import (
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

// frozenYAML returns toYaml of v and true when v is a frozen map.
func frozenYAML(v interface{}) (string, bool) {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return "", false
	}
	frozenConfigs.RLock()
	e := frozenConfigs.entries[mapIdentity(m)]
	frozenConfigs.RUnlock()
	if e == nil {
		return "", false
	}
	e.once.Do(func() { e.yaml = memoizedToYAML(e.config) })
	return e.yaml, true
}
