// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package proccpu

import (
	"crypto/sha256"
	"testing"
)

// Seconds grows while the process computes.
func TestSecondsGrowsWithWork(t *testing.T) {
	t.Parallel()
	before := Seconds()
	if before <= 0 {
		t.Fatalf("CPU time %v at start", before)
	}
	sum := sha256.Sum256(nil)
	for range 500_000 {
		sum = sha256.Sum256(sum[:])
	}
	if after := Seconds(); after <= before {
		t.Errorf("CPU time %v after hashing, %v before (last sum %x)", after, before, sum[:4])
	}
}
