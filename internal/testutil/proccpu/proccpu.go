// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

//go:build unix

// Package proccpu reads the CPU time of the running process, for benchmarks: on a machine shared with
// other work, wall time says little, CPU time stays comparable.
package proccpu

import (
	"syscall"
	"time"
)

// Seconds is the user plus system CPU time of this process so far (0 when it cannot be read).
func Seconds() float64 { return usage(syscall.RUSAGE_SELF) }

// ChildrenSeconds is the CPU time of the child processes that have ended and been waited for (for
// example the git processes behind a test Git server).
func ChildrenSeconds() float64 { return usage(syscall.RUSAGE_CHILDREN) }

func usage(who int) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
