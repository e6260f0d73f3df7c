// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build !unix

package proccpu

// Seconds is 0 where getrusage does not exist: benchmarks then report no CPU time.
func Seconds() float64 { return 0 }

// ChildrenSeconds is 0 where getrusage does not exist.
func ChildrenSeconds() float64 { return 0 }
