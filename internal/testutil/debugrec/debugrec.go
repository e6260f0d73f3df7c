// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package debugrec records the debug events engine packages report (gitrepo.Client.Debug, the debug
// function of githubpr.New), so that tests assert what a user would see with TF_LOG=debug.
package debugrec

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Event is one debug event: its message and fields.
type Event struct {
	Msg    string
	Fields map[string]any
}

// Recorder keeps every event, in order; it is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Record is the debug function to hand to the engine.
func (r *Recorder) Record(_ context.Context, msg string, fields map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{msg, fields})
}

// Events returns every event recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Find returns the events with message msg.
func (r *Recorder) Find(msg string) []Event {
	var out []Event
	for _, e := range r.Events() {
		if e.Msg == msg {
			out = append(out, e)
		}
	}
	return out
}

// Leaks returns, printed, every event whose message or fields hold one of the secrets.
func (r *Recorder) Leaks(secrets ...string) []string {
	var out []string
	for _, e := range r.Events() {
		s := fmt.Sprint(e.Msg, e.Fields)
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}
